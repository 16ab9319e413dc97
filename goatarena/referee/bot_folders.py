"""The folders of the bots' own code: hidden from every other bot, and a warning where
two bots share one (each could read the other's files, as in ``subs/alice.py`` beside
``subs/bob.py``)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from goatarena.errors import BotError
from goatarena.referee.bot import parse_command
from goatarena.referee.sandbox_view import private_folders

Commands = Mapping[str, str | Sequence[str]]


def folders_by_bot(commands: Commands, cwd: Path | None = None) -> dict[str, list[str]]:
    """Each bot's own folders (those of :func:`~goatarena.referee.sandbox_view.private_folders`);
    a command that cannot be parsed has none (starting it says why)."""
    where = cwd or Path.cwd()
    found = {}
    for name, command in commands.items():
        try:
            found[name] = private_folders(parse_command(command), where)
        except BotError:
            found[name] = []
    return found


def bot_folders(commands: Commands, cwd: Path | None = None) -> list[str]:
    """Every folder of every bot's own code, once each."""
    return list(
        dict.fromkeys(f for folders in folders_by_bot(commands, cwd).values() for f in folders)
    )


def shared_folder_warnings(commands: Commands, cwd: Path | None = None) -> list[str]:
    """One line for each folder that the code of two or more bots is in (bots whose
    commands name the same files there are one bot, played twice)."""
    where = cwd or Path.cwd()
    owners: dict[str, dict[str, frozenset[str]]] = {}
    for name, folders in folders_by_bot(commands, where).items():
        files = _files_named(commands[name], where)
        for folder in folders:
            inside = frozenset(path for path in files if os.path.dirname(path) == folder)
            owners.setdefault(folder, {})[name] = inside
    return [
        f"warning: bots {', '.join(names)} share the folder {folder}, so each can read the"
        " others' files: give every bot a folder of its own (docs/tournaments.md)"
        for folder, names in owners.items()
        if len(set(names.values())) > 1
    ]


def _files_named(command: str | Sequence[str], cwd: Path) -> list[str]:
    """The files a bot's command names, resolved."""
    try:
        argv = parse_command(command)
    except BotError:
        return []
    found = []
    for word in argv:
        path = Path(word) if os.path.isabs(word) else cwd / word
        with contextlib.suppress(OSError, ValueError):
            if path.is_file():
                found.append(str(path.resolve()))
    return found
