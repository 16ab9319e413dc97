"""The folders of the bots' own code: hidden from every other bot, and a warning where
two bots share one (each could read the other's files, as in ``subs/alice.py`` beside
``subs/bob.py``); a command word that leads elsewhere is refused before anything runs."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from goatarena.errors import BotError
from goatarena.referee.command import parse_command
from goatarena.referee.command_paths import command_folders, own_folder

Commands = Mapping[str, str | Sequence[str]]


def folders_by_bot(commands: Commands, cwd: Path | None = None) -> dict[str, list[str]]:
    """Each bot's own folder (:func:`~goatarena.referee.command_paths.own_folder`), as a
    list; a command that cannot be parsed has none (starting it says why)."""
    where = cwd or Path.cwd()
    found: dict[str, list[str]] = {}
    for name, command in commands.items():
        try:
            own = own_folder(parse_command(command), where)
        except BotError:
            own = None
        found[name] = [] if own is None else [own]
    return found


def bot_folders(commands: Commands, cwd: Path | None = None) -> list[str]:
    """Every folder of every bot's own code, once each."""
    return list(
        dict.fromkeys(f for folders in folders_by_bot(commands, cwd).values() for f in folders)
    )


def check_commands(
    commands: Commands, given: Mapping[str, Sequence[str]], cwd: Path | None = None
) -> None:
    """Refuse (:class:`~goatarena.referee.command_paths.ForeignPath`, one line per bot) a
    command with a word that leads out of its bot's folder, the paths it is ``given`` (by
    name) and the shared folders. A command that cannot be parsed is left to its start."""
    where = cwd or Path.cwd()
    refused = []
    for name, command in commands.items():
        try:
            argv = parse_command(command)
        except BotError:
            continue
        try:
            command_folders(argv, where, given.get(name, ()), name=name)
        except BotError as error:
            refused.append(str(error))
    if refused:
        raise BotError("\n".join(refused))


def sharing(commands: Commands, name: str, cwd: Path | None = None) -> list[tuple[str, str]]:
    """The bots of ``commands`` whose folder is ``name``'s own, with other files of it
    named (the same files named are one bot, played twice): (folder, other bot) pairs."""
    where = cwd or Path.cwd()
    folders = folders_by_bot(commands, where)
    mine = set(folders.get(name, []))
    files = {bot: set(_files_named(command, where)) for bot, command in commands.items()}
    return [
        (folder, other)
        for other, theirs in folders.items()
        if other != name and files[other] != files[name]
        for folder in mine.intersection(theirs)
    ]


def shared_folder_warnings(commands: Commands, cwd: Path | None = None) -> list[str]:
    """One line for each folder that the code of two or more bots is in (bots whose
    commands name the same files there are one bot, played twice)."""
    return [
        f"warning: {line}: give every bot a folder of its own (docs/tournaments.md)"
        for line in shared_folders(commands, cwd)
    ]


def shared_folders(commands: Commands, cwd: Path | None = None) -> list[str]:
    """What :func:`shared_folder_warnings` warns of, without the advice: "bots a, b share
    the folder F, so each can read the others' files"."""
    where = cwd or Path.cwd()
    owners: dict[str, dict[str, frozenset[str]]] = {}
    for name, folders in folders_by_bot(commands, where).items():
        files = _files_named(commands[name], where)
        for folder in folders:
            inside = frozenset(path for path in files if os.path.dirname(path) == folder)
            owners.setdefault(folder, {})[name] = inside
    return [
        f"bots {', '.join(names)} share the folder {folder}, so each can read the others' files"
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
