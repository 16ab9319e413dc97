"""Editing a ladder's tournament file: add a bot, a new version of one, retire one.

The file stays the user's: the edit changes only the lines it must (a line added to
``[bots]``, the ``retired`` line of ``[ladder]``), keeps every comment, and is written
whole or not at all (a new file checked as a tournament file, put on the disk, then
renamed over the old, and the rename put on the disk: a power cut leaves the old file or
the new, never an empty one). A running ladder notices the change within
``ladder.poll_s`` seconds. An edit cut short by a stop (``kill -9``) may leave its hidden
file (``.NAME.XXXXXXXX.toml``) beside the file; the next edit, and a competition's
server as it starts, remove such leftovers (:func:`sweep_leftovers`), never one a living
edit holds.

Every character a line separator could be taken for (U+0085, U+2028, U+2029, and every
other character that is not printable) is written as an escape, and the file is split
into lines on ``\n`` only: Python's ``str.splitlines`` also splits on those characters,
and a command holding one would be cut in two, breaking the file for every later edit.
"""

from __future__ import annotations

import fcntl
import os
import re
import stat
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from goatarena.errors import ConfigError
from goatarena.formats.config import TournamentConfig
from goatarena.formats.ladder.roster import (
    base_name,
    latest_version,
    next_version,
    version_number,
)
from goatarena.formats.tournament_file import bot_name_problem, load_config, resolve_command

_HEADER = re.compile(r"^\s*\[\s*([A-Za-z0-9_.-]+)\s*\]\s*(#.*)?$")
_RETIRED = re.compile(r"^\s*retired\s*=")


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _quoted(text: str) -> str:
    """``text`` as a TOML basic string: quotes and backslashes escaped, and every
    character that is not printable (controls, U+0085, U+2028, U+2029, ...) written as a
    ``\\uXXXX`` or ``\\UXXXXXXXX`` escape, so that the line stays one line to any reader."""
    out = ['"']
    for char in text:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif char.isprintable():
            out.append(char)
        elif ord(char) <= 0xFFFF:
            out.append(f"\\u{ord(char):04X}")
        else:
            out.append(f"\\U{ord(char):08X}")
    out.append('"')
    return "".join(out)


def _lines(text: str) -> list[str]:
    """The file's lines, split on ``\\n`` only (not on what ``str.splitlines`` also
    takes for a line break: U+2028 inside a string is part of that string)."""
    lines = text.split("\n")
    if lines and not lines[-1]:
        lines.pop()
    return lines


def _table_span(lines: list[str], table: str) -> tuple[int, int] | None:
    """The index of ``[table]``'s header line and of the line after its last line."""
    start = next((i for i, line in enumerate(lines) if _header(line) == table), None)
    if start is None:
        return None
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i].lstrip().startswith("[")),
        len(lines),
    )
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return start, end


def _header(line: str) -> str | None:
    found = _HEADER.match(line)
    return found.group(1) if found else None


def _with_bot(text: str, name: str, command: str) -> str:
    lines = _lines(text)
    span = _table_span(lines, "bots")
    if span is None:
        raise ConfigError("the file has no [bots] table to add the bot to")
    lines.insert(span[1], f"{_quoted(name)} = {_quoted(command)}")
    return "\n".join(lines) + "\n"


def _with_retired(text: str, retired: list[str]) -> str:
    lines = _lines(text)
    line = f"retired = [{', '.join(_quoted(name) for name in retired)}]"
    span = _table_span(lines, "ladder")
    if span is None:
        return text.rstrip("\n") + f"\n\n[ladder]\n{line}\n"
    start, end = span
    found = next((i for i in range(start + 1, end) if _RETIRED.match(lines[i])), None)
    if found is None:
        lines.insert(start + 1, line)
    else:
        lines[found] = line
    return "\n".join(lines) + "\n"


def _ladder(path: Path) -> tuple[TournamentConfig, str]:
    config = load_config(path)
    if config.format != "ladder":
        raise ConfigError(f'{path} is a {config.format}, not a ladder (format = "ladder")')
    return config, path.read_text(encoding="utf-8")


_TEMPORARY_SUFFIX = ".toml"
_MKSTEMP_PART = re.compile(r"[a-z0-9_]{8}")
"""The random part of a name :func:`tempfile.mkstemp` makes (eight of its letters)."""
LEFTOVER_MIN_AGE_S = 5.0
"""How old a hidden file must be to be swept: well past the instant between an edit's
creating it and locking it."""


def _temporary_name_of(path: Path, name: str) -> bool:
    """Whether ``name`` is one an edit of ``path`` gives its hidden file."""
    prefix = f".{path.name}."
    if not (name.startswith(prefix) and name.endswith(_TEMPORARY_SUFFIX)):
        return False
    return bool(_MKSTEMP_PART.fullmatch(name[len(prefix) : -len(_TEMPORARY_SUFFIX)]))


def sweep_leftovers(path: Path, *, min_age_s: float = LEFTOVER_MIN_AGE_S) -> list[Path]:
    """Remove the hidden files that edits of ``path`` cut short by a stop left beside it;
    the files removed. Only a plain file of exactly the name an edit gives it, at least
    ``min_age_s`` old, that no living edit holds locked (an edit holds its file locked
    until it is renamed; a killed one's lock went with it)."""
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return []
    removed = []
    for entry in entries:
        if _temporary_name_of(path, entry.name) and _sweep_one(entry.path, min_age_s):
            removed.append(Path(entry.path))
    return removed


def _sweep_one(name: str, min_age_s: float) -> bool:
    try:
        handle = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False  # a link, gone already, or not ours to open
    try:
        found = os.fstat(handle)
        if not stat.S_ISREG(found.st_mode) or time.time() - found.st_mtime < min_age_s:
            return False
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False  # a living edit's
        try:
            now = os.stat(name, follow_symlinks=False)
        except OSError:
            return False
        # Still that file under that name: not one renamed over the ladder's meanwhile.
        if (now.st_dev, now.st_ino) != (found.st_dev, found.st_ino):
            return False
        os.unlink(name)
        return True
    except OSError:
        return False
    finally:
        os.close(handle)


def _write_checked(path: Path, text: str, bots: dict[str, str], retired: list[str]) -> None:
    """Write ``text`` over ``path`` if it reads back as a ladder with these bots and
    retired versions; otherwise leave the file as it was and say why."""
    sweep_leftovers(path)
    handle, temporary = tempfile.mkstemp(
        dir=path.parent, prefix=f".{path.name}.", suffix=_TEMPORARY_SUFFIX
    )
    # Locked until renamed (a second descriptor keeps the lock once the file is closed):
    # a sweep takes only a file whose edit is gone.
    held = os.dup(handle)
    try:
        fcntl.flock(held, fcntl.LOCK_EX)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            # On the disk before it is renamed over the file: after a power cut the file
            # is the old one or the new one, never an empty one.
            os.fsync(out.fileno())
        try:
            written = load_config(Path(temporary))
        except ConfigError as error:
            # Say it of the user's file, not of the hidden file it was checked in.
            raise ConfigError(str(error).replace(temporary, str(path))) from None
        if set(written.bots) != set(bots) or sorted(written.ladder.retired) != sorted(retired):
            raise ConfigError(
                f"{path} could not be edited safely (is [ladder] retired split over lines?):"
                " edit it by hand"
            )
        os.chmod(temporary, path.stat().st_mode & 0o7777)
        os.replace(temporary, path)
        _sync_folder(path.parent)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    finally:
        os.close(held)


def _sync_folder(folder: Path) -> None:
    """Put ``folder``'s entries (a rename in it) on the disk."""
    try:
        handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(handle)
    except OSError:
        pass  # a file system that cannot sync a folder: the rename stands all the same
    finally:
        os.close(handle)


CommandCheck = Callable[[str, str], None]
"""Called with a bot's name and its command (resolved against the file's folder) before
the file is written; raises a :class:`~goatarena.errors.GoatArenaError` to refuse it
(the command line checks that the program exists)."""


def _check_text(what: str, text: str) -> None:
    """Refuse text that cannot be written as UTF-8 (undecodable bytes of a command line)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ConfigError(f"{what} {text!r} is not valid UTF-8 text") from None


def add_bot(path: Path, name: str, command: str, *, check: CommandCheck | None = None) -> str:
    """Add bot ``name`` playing ``command`` (after ``check``); what was done, in words."""
    config, text = _ladder(path)
    if "@" in name:
        raise ConfigError(f"{name!r}: versions are named by `goatarena ladder update`")
    problem = bot_name_problem(name)
    if problem is not None:
        raise ConfigError(f"{problem}; nothing was added to {path}")
    if latest_version(list(config.bots), name) is not None:
        raise ConfigError(
            f"{name!r} is in the ladder already: `goatarena ladder update` adds a version"
        )
    _check_text("the command", command)
    if check is not None:
        check(name, resolve_command(command, path.parent.absolute()))
    bots = {**config.bots, name: command}
    _write_checked(path, _with_bot(text, name, command), bots, list(config.ladder.retired))
    return f"added {name} to {path}"


def update_bot(path: Path, name: str, command: str, *, check: CommandCheck | None = None) -> str:
    """Add a new version of bot ``name`` playing ``command`` (after ``check``), retiring
    the one before."""
    config, text = _ladder(path)
    base = base_name(name)
    latest = latest_version(list(config.bots), base)
    if latest is None:
        raise ConfigError(f"no bot {base!r} in the ladder: `goatarena ladder add` adds it")
    new = next_version(list(config.bots), base)
    _check_text("the command", command)
    if check is not None:
        check(new, resolve_command(command, path.parent.absolute()))
    retired = list(config.ladder.retired)
    if latest not in retired:
        retired.append(latest)
    text = _with_retired(_with_bot(text, new, command), retired)
    _write_checked(path, text, {**config.bots, new: command}, retired)
    return f"added {new} to {path}; {latest} is retired"


def retire_bot(path: Path, name: str) -> str:
    """Retire bot ``name`` (a version, or a bot's newest version by its name)."""
    config, text = _ladder(path)
    version = name if name in config.bots else latest_version(list(config.bots), name)
    if version is None:
        raise ConfigError(f"no bot {name!r} in the ladder")
    if version in config.ladder.retired:
        raise ConfigError(f"{version} is retired already")
    retired = [*config.ladder.retired, version]
    _write_checked(path, _with_retired(text, retired), dict(config.bots), retired)
    return f"retired {version} in {path}"


def reinstate_bot(path: Path, name: str) -> str:
    """Put retired version ``name`` back in play (the reverse of :func:`retire_bot`)."""
    config, text = _ladder(path)
    if name not in config.bots:
        raise ConfigError(f"no bot {name!r} in the ladder")
    if name not in config.ladder.retired:
        raise ConfigError(f"{name} is playing already")
    retired = [bot for bot in config.ladder.retired if bot != name]
    _write_checked(path, _with_retired(text, retired), dict(config.bots), retired)
    return f"put {name} back in play in {path}"


def add_version(
    path: Path,
    name: str,
    command: str,
    *,
    keep: int = 1,
    least: int = 1,
    check: CommandCheck | None = None,
) -> tuple[str, list[str]]:
    """Add the next version of an entrant's bot ``name`` (``name@1`` first, as a
    competition numbers them, and never below ``name@least``) playing ``command``,
    retiring the oldest active versions beyond ``keep``; the new version's name and the
    versions retired."""
    config, text = _ladder(path)
    problem = bot_name_problem(name)
    if problem is not None or "@" in name:
        raise ConfigError(f"{problem or repr(name)}; nothing was added to {path}")
    versions = sorted((bot for bot in config.bots if base_name(bot) == name), key=version_number)
    new = f"{name}@{max(version_number(versions[-1]) + 1 if versions else 1, least)}"
    _check_text("the command", command)
    if check is not None:
        check(new, resolve_command(command, path.parent.absolute()))
    retired = list(config.ladder.retired)
    active = [bot for bot in versions if bot not in retired]
    leaving = active[: max(0, len(active) - (keep - 1))]
    retired += leaving
    text = _with_retired(_with_bot(text, new, command), retired)
    _write_checked(path, text, {**config.bots, new: command}, retired)
    return new, leaving
