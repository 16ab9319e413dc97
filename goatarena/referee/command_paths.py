"""Which folder a bot's command makes its own: the one the organiser gave it, nothing else.

A bot's own folder is the folder of its program (the first word of its command naming a
file, or else a folder, that is no system's or runtime's: ``bots/x`` of ``python3
bots/x/bot.py``, ``build/classes`` of ``java -cp build/classes Bot``). It is shown to the
bot, hidden from every other bot, and copied for a root runner's bot where the bots'
group cannot read it (:mod:`goatarena.referee.readable_copy`). Every other word of the
command that names a path must lead, after its symlinks, into that folder, into a path
the organiser gave the bot (``[paths.NAME]``, ``--read``, ``--write``), or into the
system's and runtimes' folders (shown to every bot, never anyone's own). A word that
leads anywhere else is refused in one line naming it and where it leads: a submission
holding ``lib -> /usr/lib/x86_64-linux-gnu``, ``peek -> ../bob`` or ``res -> ../results``
and naming it in its command gains nothing, and can no longer have the system masked for
every other bot or another's folder copied readable for itself.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from goatarena.errors import BotError

SYSTEM_FOLDERS = (
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/usr/bin",
    "/usr/sbin",
    "/usr/lib",
    "/usr/lib32",
    "/usr/lib64",
    "/usr/libx32",
    "/usr/libexec",
    "/usr/include",
    "/usr/share",
    "/usr/local/bin",
    "/usr/local/sbin",
    "/usr/local/lib",
    "/usr/local/share",
    "/usr/local/include",
    "/etc",
    "/proc",
    "/sys",
    "/dev",
    "/run",
)
"""The system's folders: shared by every bot, so never a bot's own, never masked for
another, never copied. (An arena kept elsewhere under ``/usr/local`` or ``/opt`` is not
one of them: its bots' folders are theirs.)"""
INSTALL_ROOTS = ("/opt",)
"""Folders of installs: ``/opt/NAME`` is a runtime's where a folder on ``PATH`` lies in it."""


class ForeignPath(BotError):
    """A word of a bot's command leads out of the folders the organiser gave the bot."""


@dataclass(frozen=True)
class CommandFolders:
    """What a bot's command names: its own folder, and the runtime folders it names."""

    own: str | None
    """The bot's own folder (None: its program is a system's or runtime's)."""
    runtimes: tuple[str, ...]
    """Folders of runtimes that its words name, shown read-only as they are."""


def code_paths() -> list[str]:
    """What a Python bot needs of the referee's own install: interpreter, venv, SDK."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    spec = importlib.util.find_spec("goatarena")
    if spec is not None and spec.submodule_search_locations:
        # An editable install finds the package in a source tree: bind just the package.
        paths.update(spec.submodule_search_locations)
    paths.add(str(Path(sys.executable).resolve().parent))
    return sorted(paths)


def runtime_folders() -> list[str]:
    """Folders every bot may share: the referee's Python install, the folders on
    ``PATH`` and the ``/opt`` installs they lie in."""
    folders = [os.path.realpath(path) for path in code_paths()]
    # Only absolute entries: "." on PATH would make the working folder (and every bot
    # folder in it) a runtime's, no bot's own.
    path = os.environ.get("PATH", "").split(os.pathsep)
    on_path = [os.path.realpath(entry) for entry in path if os.path.isabs(entry)]
    folders += on_path
    for root in INSTALL_ROOTS:
        folders += [
            os.path.join(root, Path(path).relative_to(root).parts[0])
            for path in on_path
            if inside(path, root)
        ]
    return list(dict.fromkeys(folders))


def shared_folders() -> list[str]:
    """Every folder that is no bot's own: the system's and the runtimes' (resolved)."""
    system = [os.path.realpath(path) for path in SYSTEM_FOLDERS if os.path.exists(path)]
    return list(dict.fromkeys([*SYSTEM_FOLDERS, *system, *runtime_folders()]))


def is_shared(path: str, shared: Sequence[str] | None = None, *, holding: bool = True) -> bool:
    """Whether ``path`` is, or lies in, a folder every bot shares, or (with ``holding``)
    holds one (``/``, ``/usr``): such a path is never a bot's own."""
    folders = shared_folders() if shared is None else shared
    return any(
        path == folder or inside(path, folder) or (holding and inside(folder, path))
        for folder in folders
    )


def command_folders(
    argv: Sequence[str], cwd: Path, given: Sequence[str] = (), *, name: str = ""
) -> CommandFolders:
    """The folders ``argv`` (run from ``cwd``) names, checked against what the bot is
    ``given`` (its extra paths); :class:`ForeignPath` names a word that leads elsewhere.
    ``name`` is the bot's, for the message."""
    shared = shared_folders()
    allowed = [os.path.realpath(_full(path, cwd)) for path in given]
    own: str | None = None
    runtimes: list[str] = []
    for word in argv:
        found = _named(word, cwd)
        if found is None:
            continue
        folder, target = found
        if own is None and not is_shared(target, shared):
            own = folder
            if target != own and not inside(target, own):
                raise _foreign(name, word, target, own)
            continue
        if own is not None and (target == own or inside(target, own)):
            continue
        literal = os.path.abspath(_full(word, cwd))
        if own is not None and inside(literal, own):
            raise _foreign(name, word, target, own)  # a link in its folder that leads out
        if any(target == path or inside(target, path) for path in allowed):
            continue
        # In a shared folder, not one that holds them (a word "/" or "/usr" binds nothing).
        if is_shared(target, shared, holding=False):
            if not any(inside(folder, path) or folder == path for path in SYSTEM_FOLDERS):
                runtimes.append(folder)
            continue
        raise _foreign(name, word, target, own)
    if own is not None and any(inside(path, own) for path in SYSTEM_FOLDERS):
        who = f"bot {name!r}: " if name else ""
        raise ForeignPath(f"{who}its folder {own} holds the system's: give it a folder of its own")
    return CommandFolders(own, tuple(dict.fromkeys(runtimes)))


def own_folder(argv: Sequence[str], cwd: Path) -> str | None:
    """The bot's own folder (see :func:`command_folders`), without checking its other
    words: None where its program is a system's or runtime's."""
    shared = shared_folders()
    for word in argv:
        found = _named(word, cwd)
        if found is not None and not is_shared(found[1], shared):
            return found[0]
    return None


def _named(word: str, cwd: Path) -> tuple[str, str] | None:
    """The folder a word names (a file's folder, or a folder with a ``/`` in the word),
    and where the word leads (resolved); None for a word that is no path."""
    if not word or word.startswith("-") or len(word) > 4096:
        return None
    path = _full(word, cwd)
    try:
        if path.is_file():
            return os.path.realpath(path.parent), os.path.realpath(path)
        if path.is_dir() and ("/" in word or word == "."):
            real = os.path.realpath(path)
            return real, real
    except (OSError, ValueError):
        return None
    return None


def _full(word: str, cwd: Path) -> Path:
    return Path(word) if os.path.isabs(word) else cwd / word


def _foreign(name: str, word: str, target: str, own: str | None) -> ForeignPath:
    where = f"outside its folder {own}" if own is not None else "outside the system's folders"
    who = f"bot {name!r}: " if name else ""
    return ForeignPath(
        f"{who}the word {word!r} of its command leads to {target}, {where}: a bot may name"
        " only its own folder, the system's and the paths it is given ([paths.NAME] read)"
    )


def inside(path: str, folder: str) -> bool:
    """Whether ``path`` lies strictly inside ``folder`` (both absolute, normalised)."""
    return path.startswith(folder.rstrip("/") + "/")
