"""Growing a tournament: which edits of a tournament file keep its stored games.

A stored game is identified by its key (game entry, table, deal, rotation) and was
played under the definition of the file at the time: the game's name, table size and
options, the time control, the violation policy, the memory limit, the master seed and
the commands of the seated bots. Adding bots, game entries (at the end of the list) or
deals leaves every stored game's definition as it was, so those games are kept and only
the new ones are played; a Swiss tournament may get more rounds. Anything else makes
stored games incomparable with new ones and is refused, naming each changed field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from goatarena.errors import StoreError
from goatarena.formats.config import TournamentConfig
from goatarena.formats.pairing import default_swiss_rounds
from goatarena.formats.tournament_file import resolve_command
from goatarena.store.database import Store

# Formats whose games have the same keys and seeds (a gauntlet plays a subset of the
# round-robin's tables), so stored games of one count in the other.
_SAME_KEYS = {"round-robin": "tables", "gauntlet": "tables", "swiss": "swiss", "ladder": "ladder"}

_FREE = frozenset(
    {
        "concurrency",
        "log_kb",
        "challengers",
        "sprt",
        "sandbox",
        "ponder",
        "tmp_mb",
        "paths",
        "ladder",
    }
)
"""Settings that decide which games are played, how fast, or how bots are isolated —
never the rules or the clock of a game."""

_GROWING = frozenset({"format", "bots", "games", "deals", "rounds"})
"""Settings that may grow, checked one by one."""


def incomparable_changes(
    old: TournamentConfig, new: TournamentConfig, *, workdir: Path | None = None
) -> list[str]:
    """Every change from ``old`` to ``new`` that stored games cannot survive, in words
    (``"time.move_ms: 1000 -> 500"``); empty when ``new`` only grows ``old``.

    A command stored before bot paths were resolved against the tournament file's folder
    is the same command if resolving it against ``workdir`` (the folder runs are started
    from) gives the new one.
    """
    changes: list[str] = []
    # Every setting not known to be free or handled below must be unchanged, so that a
    # setting added later is safe by default: refused until it is listed here.
    for field in msgspec.structs.fields(TournamentConfig):
        name = field.name
        if name in _FREE or name in _GROWING:
            continue
        before, after = getattr(old, name), getattr(new, name)
        if isinstance(before, msgspec.Struct) and isinstance(after, msgspec.Struct):
            changes += _fields(name, before, after)
        elif before != after:
            changes.append(f"{name}: {before!r} -> {after!r}")
    if _SAME_KEYS[old.format] != _SAME_KEYS[new.format]:
        changes.append(f"format: {old.format!r} -> {new.format!r}")
    for name, command in old.bots.items():
        if name not in new.bots:
            changes.append(f"bots.{name}: removed")
        elif not _same_command(command, new.bots[name], workdir):
            changes.append(f"bots.{name}: command {command!r} -> {new.bots[name]!r}")
    for index, entry in enumerate(old.games):
        if index >= len(new.games):
            changes.append(f"games[{index}]: removed ({entry.name})")
            continue
        changes += _fields(f"games[{index}]", entry, new.games[index])
    if new.deals < old.deals:
        changes.append(f"deals: {old.deals} -> {new.deals} (fewer)")
    if new.format == "swiss" and old.format == "swiss":
        changes += _swiss_changes(old, new)
    return changes


def _same_command(old: str, new: str, workdir: Path | None) -> bool:
    return old == new or (workdir is not None and resolve_command(old, workdir) == new)


def _swiss_changes(old: TournamentConfig, new: TournamentConfig) -> list[str]:
    """A Swiss pairs every round from the bots and results before it: new bots or deals
    would change the pairings of rounds already played. Only more rounds can be added."""
    changes = []
    added = [name for name in new.bots if name not in old.bots]
    if added:
        changes.append(f"bots: {', '.join(added)} added (a Swiss cannot take new bots)")
    if new.deals != old.deals:
        changes.append(f"deals: {old.deals} -> {new.deals} (a Swiss pairs rounds by them)")
    for entry in old.games:
        before = old.rounds or default_swiss_rounds(len(old.bots), entry.players)
        after = new.rounds or default_swiss_rounds(len(new.bots), entry.players)
        if after < before:
            changes.append(f"rounds: {before} -> {after} (fewer)")
            break
    return changes


def _fields(prefix: str, old: msgspec.Struct, new: msgspec.Struct) -> list[str]:
    """The fields in which two structs of one type differ, as ``prefix.field: a -> b``."""
    before: dict[str, Any] = msgspec.to_builtins(old)
    after: dict[str, Any] = msgspec.to_builtins(new)
    return [
        f"{prefix}.{field}: {before.get(field)!r} -> {after.get(field)!r}"
        for field in sorted(set(before) | set(after))
        if before.get(field) != after.get(field)
    ]


def refusal(path: str, tournament: str, changes: list[str]) -> str:
    """The message refusing a change, naming each changed field and the ways out."""
    # Renaming is a way out only for a changed command: it is no help for a time control.
    renaming = any(change.startswith("bots.") and ": command " in change for change in changes)
    return (
        f"{path} holds games of tournament {tournament!r} that no longer compare with this"
        f" file: {'; '.join(changes)}. Undo the change, or pass --fresh to put this"
        " database aside and start a new one"
        + (
            ", or keep the old bot and add the changed one under a new name, so that both"
            " versions play"
            if renaming
            else ""
        )
    )


def claim_store(store: Store, config: TournamentConfig, *, workdir: Path | None = None) -> None:
    """Bind ``store`` to ``config``: a new store is claimed; one holding games of an
    earlier version of the file is taken over when the file only grew; anything else is
    a :class:`StoreError` naming each incomparable change, and nothing is written."""
    config_json = msgspec.json.encode(config).decode()
    fingerprint = config.fingerprint()
    stored = store.meta("config")
    if stored is not None and store.meta("fingerprint") != fingerprint:
        try:
            old = msgspec.json.decode(stored, type=TournamentConfig)
        except msgspec.DecodeError:
            raise StoreError(
                f"{store.path} holds results of another goatarena version's tournament;"
                " pass --fresh to put it aside and start a new one"
            ) from None
        changes = incomparable_changes(old, config, workdir=workdir)
        if changes:
            raise StoreError(refusal(str(store.path), old.name, changes))
        store.update_claim(fingerprint=fingerprint, config_json=config_json)
    store.claim(tournament=config.name, fingerprint=fingerprint, config_json=config_json)
