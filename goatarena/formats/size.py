"""How many games a tournament file asks for, counted without building its schedule.

A file can ask for more games than any machine could list, let alone play (``deals =
1000000000``, or 200 bots at tables of four: 64 million tables). Such a file is refused
when it is loaded, in one line that says how many games it asks for, before a database
is made or a bot is started: building that schedule would only exhaust the memory.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from goatarena.errors import ConfigError
from goatarena.formats.pairing import default_swiss_rounds

if TYPE_CHECKING:
    from goatarena.formats.config import TournamentConfig

MAX_GAMES = 1_000_000
"""The most games one tournament file may schedule (a million games of even 10 ms each
take days on one machine; building their schedule alone takes seconds and gigabytes)."""


def count_games(config: TournamentConfig) -> int:
    """The games the tournament plays: every round-robin or gauntlet game, or a Swiss's
    games as it pairs them (byes aside). An SPRT may stop sooner."""
    return sum(entry_games(config, index) for index in range(len(config.games)))


def entry_games(config: TournamentConfig, index: int) -> int:
    """The games of one ``[[games]]`` entry of the tournament."""
    bots = len(config.bots)
    size = config.games[index].players
    if config.format == "ladder":
        return 0  # a ladder chooses its tables as it goes, until it is stopped
    if config.format == "swiss":
        tables = bots // 2 if size == 2 else math.ceil(bots / size)
        return swiss_rounds(config, size) * tables * config.deals
    tables = math.comb(bots, size)
    if config.format == "gauntlet":
        # The tables that seat no challenger are not played.
        tables -= math.comb(bots - len(set(config.challengers)), size)
    return tables * config.deals * size  # every deal in every seat rotation


def swiss_rounds(config: TournamentConfig, table_size: int) -> int:
    """The Swiss rounds played at tables of ``table_size``: the file's, else the default."""
    return config.rounds or default_swiss_rounds(len(config.bots), table_size)


def check_size(config: TournamentConfig) -> None:
    """Refuse a tournament of more than :data:`MAX_GAMES` games, saying how many it has."""
    total = count_games(config)
    if total > MAX_GAMES:
        raise ConfigError(
            f"asks for {total:,} games, more than the {MAX_GAMES:,} one tournament may"
            " have: use fewer bots, deals or rounds (or a Swiss, which pairs far fewer"
            " tables than a round-robin)"
        )
