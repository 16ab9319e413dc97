"""Where a report reads its games: the summaries of all (read twice, streamed) and the full
records of the few it embeds a replay of.

:class:`StoreSource` reads a results database; :class:`ListSource` a list of stored
games already in memory (tests, benchmarks).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol

from goatarena.store.database import Store, StoredGame
from goatarena.store.summary import GameSummary, summary_of


class GameSource(Protocol):
    """The games a report is made of."""

    def summaries(self) -> Iterator[GameSummary]:
        """Every game's summary, in finishing order (may be called more than once)."""
        ...

    def records(self, keys: set[str]) -> Iterator[StoredGame]:
        """The full records of the games ``keys``, in finishing order."""
        ...


class StoreSource:
    """The games of an open results database."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def summaries(self) -> Iterator[GameSummary]:
        """Every stored game's summary, streamed."""
        return self.store.summaries()

    def records(self, keys: set[str]) -> Iterator[StoredGame]:
        """The full records of ``keys``."""
        return self.store.games_with_keys(keys)


class ListSource:
    """Stored games held in a list."""

    def __init__(self, games: Sequence[StoredGame]) -> None:
        self.games = games

    def summaries(self) -> Iterator[GameSummary]:
        """Each game's summary, derived from its record."""
        for game in self.games:
            yield summary_of(game.key, game.round, game.result, 0.0)

    def records(self, keys: set[str]) -> Iterator[StoredGame]:
        """The games of ``keys``."""
        return (game for game in self.games if game.key in keys)
