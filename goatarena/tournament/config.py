"""Tournament files: TOML decoded and validated into a :class:`TournamentConfig`.

An error names the file, the field and the problem, and nothing runs.
"""

from __future__ import annotations

import hashlib
import os
import tomllib
from pathlib import Path
from typing import Any, Literal

import msgspec

from goatarena.errors import ConfigError, GoatArenaError
from goatarena.games import find_game
from goatarena.referee.bot import BotLimits
from goatarena.referee.clock import TimeControl
from goatarena.referee.policy import ViolationPolicy


class GameEntry(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One game of the tournament: its name, the table size and rule options."""

    name: str
    players: int = 2
    options: dict[str, Any] = {}


class TournamentConfig(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A whole tournament: bots, games, format, clock, concurrency and master seed.

    ``deals`` is, for round-robin, the number of deals each table-set plays (each deal
    once per seat rotation, all rotations on the same seed); for Swiss, the games each
    table plays per round. ``rounds`` (Swiss only) defaults to 2·ceil(log_k N) + 2.
    ``memory_mb`` limits each bot process's memory; ``policy`` says what each kind of
    violation costs.
    """

    name: str
    bots: dict[str, str]
    games: list[GameEntry]
    format: Literal["round-robin", "swiss"] = "round-robin"
    deals: int = 1
    rounds: int = 0
    seed: int = 0
    concurrency: int = 0
    memory_mb: int = 1024
    time: TimeControl = TimeControl()
    policy: ViolationPolicy = ViolationPolicy()

    @property
    def limits(self) -> BotLimits:
        """The resource limits of every bot process."""
        return BotLimits(memory_bytes=self.memory_mb << 20)

    @property
    def workers(self) -> int:
        """Games played at once: ``concurrency``, or the number of CPUs when it is 0."""
        return self.concurrency or os.cpu_count() or 1

    def fingerprint(self) -> str:
        """A hash of everything that decides which games are played and how.

        Concurrency is left out: running the same tournament with more or fewer games at
        once is still the same tournament.
        """
        canonical = msgspec.json.encode(msgspec.structs.replace(self, concurrency=0))
        return hashlib.sha256(canonical).hexdigest()[:16]


def load_config(path: Path) -> TournamentConfig:
    """Read and validate a tournament file; raise :class:`ConfigError` naming the problem."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such tournament file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read: {error}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    try:
        config = msgspec.convert(data, TournamentConfig)
    except msgspec.ValidationError as error:
        raise ConfigError(f"{path}: {_readable(str(error))}") from None
    try:
        check_config(config)
    except GoatArenaError as error:
        raise ConfigError(f"{path}: {error}") from None
    return config


def _readable(message: str) -> str:
    # msgspec says "... - at `$.games[0].players`"; name the field first, TOML-style.
    if " - at `$." in message:
        problem, where = message.rsplit(" - at `$.", 1)
        return f"{where.rstrip('`')}: {problem}"
    return message


def check_config(config: TournamentConfig) -> None:
    """Check what the schema cannot: known games, table sizes, enough bots, sane numbers."""
    if not config.name.strip() or "/" in config.name:
        raise ConfigError("name: must be a non-empty name without '/'")
    if len(config.bots) < 2:
        raise ConfigError("bots: a tournament needs at least two bots")
    if not config.games:
        raise ConfigError("games: list at least one game")
    for field, value, least in (
        ("deals", config.deals, 1),
        ("rounds", config.rounds, 0),
        ("concurrency", config.concurrency, 0),
        ("memory_mb", config.memory_mb, 16),
    ):
        if value < least:
            raise ConfigError(f"{field}: must be at least {least}, not {value}")
    for index, entry in enumerate(config.games):
        info = find_game(entry.name)
        try:
            info.check_options(entry.players, entry.options)
        except ConfigError as error:
            raise ConfigError(f"games[{index}]: {error}") from None
        if entry.players > len(config.bots):
            raise ConfigError(
                f"games[{index}]: tables of {entry.players} need at least"
                f" {entry.players} bots, there are {len(config.bots)}"
            )
    for name, command in config.bots.items():
        if not command.strip():
            raise ConfigError(f"bots.{name}: empty command")
