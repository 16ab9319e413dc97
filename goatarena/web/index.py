"""The site's index of the stored games, kept in memory and grown as games arrive.

A games page filtered by bot, game type or violation, at any depth, must not scan the
store: the index keeps, per filter, the numbers of the games that pass it (compact
``array('i')``: 4 bytes a game and seat), so a page is a bisection and a slice, and
SQLite is asked only for the page's own summaries. Beside them it counts what a bot's
page shows: its results per game type and per opponent. Memory for a million games of
four seats: some 30 MB.
"""

from __future__ import annotations

import threading
from array import array
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from goatarena.store.summary import GameSummary

Counts = list[float]
"""Games, wins, points and meetings (see :class:`~goatarena.web.answers.Tally`), as a
list: a million games update some twelve million of them, and a list is quicker than
an object's attributes."""
PLAYED, WINS, POINTS, MEETINGS = range(4)


@dataclass(frozen=True)
class Filters:
    """What a games list is narrowed to; None or False lets everything pass."""

    bot: str | None = None
    game: str | None = None
    violation: bool = False


@dataclass
class GameIndex:
    """The numbers of the stored games by filter, and each bot's counts; fed each game
    once, in finishing order, by one thread while others read it under :attr:`lock`."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    newest: int = 0
    everything: array = field(default_factory=lambda: array("i"))
    by_bot: dict[str, array] = field(default_factory=dict)
    by_game: dict[str, array] = field(default_factory=dict)
    with_violations: array = field(default_factory=lambda: array("i"))
    per_game: dict[str, dict[str, Counts]] = field(default_factory=dict)
    """Bot -> game type -> its counts there."""
    versus: dict[str, dict[str, Counts]] = field(default_factory=dict)
    """Bot -> opponent -> its counts against that opponent."""
    _combined: dict[tuple[Filters, int], array] = field(default_factory=dict)

    def add(self, number: int, summary: GameSummary) -> None:
        """Count game ``number`` (called with the lock held, numbers rising)."""
        self.newest = number
        self.everything.append(number)
        by_game = self.by_game.get(summary.game)
        if by_game is None:
            by_game = self.by_game[summary.game] = array("i")
        by_game.append(number)
        if any(summary.violations):
            self.with_violations.append(number)
        players, ranks, game = summary.players, summary.ranks, summary.game
        opponents = len(players) - 1
        for seat, bot in enumerate(players):
            if bot not in players[:seat]:  # a bot in two seats is listed once
                numbers = self.by_bot.get(bot)
                if numbers is None:
                    numbers = self.by_bot[bot] = array("i")
                numbers.append(number)
            rivals = self.versus.get(bot)
            if rivals is None:
                rivals = self.versus[bot] = {}
            mine = ranks[seat]
            points = 0.0
            for other, rival in enumerate(players):
                if other == seat:
                    continue
                theirs = ranks[other]
                share = 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
                points += share
                meeting = rivals.get(rival)
                if meeting is None:
                    rivals[rival] = [1, share == 1.0, share, 1]
                else:
                    meeting[0] += 1
                    meeting[1] += share == 1.0
                    meeting[2] += share
                    meeting[3] += 1
            kinds = self.per_game.get(bot)
            if kinds is None:
                kinds = self.per_game[bot] = {}
            counts = kinds.get(game)
            if counts is None:
                kinds[game] = [1, mine == 1, points, opponents]
            else:
                counts[0] += 1
                counts[1] += mine == 1
                counts[2] += points
                counts[3] += opponents

    def numbers(self, filters: Filters) -> Sequence[int]:
        """The numbers of the games that pass ``filters``, rising (shared: not to be
        changed). Several filters at once are intersected once per store size."""
        with self.lock:
            chosen = [self.everything]
            if filters.bot is not None:
                chosen.append(self.by_bot.get(filters.bot, array("i")))
            if filters.game is not None:
                chosen.append(self.by_game.get(filters.game, array("i")))
            if filters.violation:
                chosen.append(self.with_violations)
            if len(chosen) <= 2:
                return chosen[-1]
            cached = self._combined.get((filters, self.newest))
            if cached is not None:
                return cached
            parts = [np.frombuffer(bytes(part), dtype=np.int32) for part in chosen[1:]]
        common = parts[0]
        for part in parts[1:]:
            common = np.intersect1d(common, part, assume_unique=True)
        found = array("i", common.astype(np.int32).tobytes())
        with self.lock:
            if len(self._combined) > 64:  # a few recent combinations, never unbounded
                self._combined.clear()
            self._combined[filters, self.newest] = found
        return found

    def page(
        self, filters: Filters, *, after: int | None, page: int | None, limit: int
    ) -> tuple[list[int], int, int | None]:
        """One page of game numbers: after number ``after`` (keyset) or the ``page``-th
        (from 0); with the total that pass and the ``after`` of the next page."""
        numbers = self.numbers(filters)
        total = len(numbers)
        start = bisect_right(numbers, after) if after is not None else (page or 0) * limit
        chosen = list(numbers[start : start + limit])
        following = chosen[-1] if chosen and start + limit < total else None
        return chosen, total, following
