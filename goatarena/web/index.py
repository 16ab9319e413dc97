"""The site's index of the stored games, kept in memory and grown as games arrive.

A games page filtered by bot, game type or violation, at any depth, must not scan the
store: the index keeps, per filter, the numbers of the games that pass it (a typed
array, 4 bytes a game and filter), so a page is a bisection and a slice, and SQLite is
asked only for the page's own summaries; two filters or more at once are the smallest
list looked up in the others, so they cost what that list costs. Beside them it keeps
every game's seats as columns (a bot's number, 4 bytes, and its rank, 1 byte, a seat)
and counts a bot's results per game type. A bot's results per opponent are counted
from its own games' seats when asked (and kept for the bots asked last, to be brought up
to date with the games stored since), so nothing is kept per pair of bots: memory
grows with the games and the bots. A million games of four seats among 1,000 bots take
50 MB of arrays, 74 MB of the process's memory (``benchmarks/web_index.py``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import overload

import numpy as np

from goatarena.store.summary import GameSummary

Counts = list[float]
"""Games, wins, points and meetings (see :class:`~goatarena.web.answers.Tally`), as a
list: a million games update some four million of them, and a list is quicker than an
object's attributes."""
PLAYED, WINS, POINTS, MEETINGS = range(4)

GAMES_A_PASS = 50_000
"""How many of a bot's games :meth:`GameIndex.versus` counts at once: the memory it
takes while counting, some 16 MB, whatever the store's size (head to head of the 40
top bots of a million games among 256 bots, counted at once, took 153 MB)."""
KEEP_COUNTED = 64
"""The bots whose counts per opponent are kept (three numbers per bot each): the 40 of
head to head and those whose pages were looked at last."""
GROWTH = 1.125
"""How much a full :class:`Numbers` grows by (as Python's own lists do): at most an
eighth of it is ever unused."""


class Numbers(Sequence[int]):
    """Whole numbers appended one at a time into a typed numpy array that grows in
    place. What was appended never changes, so a :meth:`view` taken (under the index's
    lock) stays true without the lock while more is appended."""

    __slots__ = ("_data", "_size")

    def __init__(self, dtype: type[np.integer] = np.int32) -> None:
        self._data: np.ndarray = np.empty(8, dtype=dtype)
        self._size = 0

    def append(self, value: int) -> None:
        """Add ``value`` at the end."""
        if self._size == len(self._data):
            grown = np.empty(int(len(self._data) * GROWTH) + 8, dtype=self._data.dtype)
            grown[: self._size] = self._data
            self._data = grown  # a view of the old array keeps that array alive
        self._data[self._size] = value
        self._size += 1

    def extend(self, values: Sequence[int]) -> None:
        """Add ``values`` at the end, in their order."""
        size = self._size + len(values)
        if size > len(self._data):
            grown = np.empty(max(size, int(len(self._data) * GROWTH) + 8), dtype=self._data.dtype)
            grown[: self._size] = self._data[: self._size]
            self._data = grown
        self._data[self._size : size] = values
        self._size = size

    def view(self) -> np.ndarray:
        """The numbers so far, read-only, without a copy."""
        found = self._data[: self._size]
        found.flags.writeable = False
        return found

    @property
    def nbytes(self) -> int:
        """The bytes the numbers take, with the room kept for more."""
        return self._data.nbytes

    def __len__(self) -> int:
        return self._size

    @overload
    def __getitem__(self, where: int) -> int: ...

    @overload
    def __getitem__(self, where: slice) -> list[int]: ...

    def __getitem__(self, where: int | slice) -> int | list[int]:
        if isinstance(where, slice):
            return self.view()[where].tolist()  # Python's ints: SQLite takes no numpy ints
        return int(self.view()[where])

    def __iter__(self) -> Iterator[int]:
        return iter(self.view().tolist())


@dataclass(frozen=True)
class Filters:
    """What a games list is narrowed to; None or False lets everything pass."""

    bot: str | None = None
    game: str | None = None
    violation: bool = False


@dataclass
class GameIndex:
    """The numbers of the stored games by filter, every game's seats, and each bot's
    counts per game type; fed each game once, in finishing order, by one thread while
    others read it under :attr:`lock`."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    newest: int = 0
    everything: Numbers = field(default_factory=Numbers)
    by_bot: dict[str, Numbers] = field(default_factory=dict)
    by_game: dict[str, Numbers] = field(default_factory=dict)
    with_violations: Numbers = field(default_factory=Numbers)
    per_game: dict[str, dict[str, Counts]] = field(default_factory=dict)
    """Bot -> game type -> its counts there."""
    bot_ids: dict[str, int] = field(default_factory=dict)
    """Bot -> its number in :attr:`seat_bots` (in the order bots first played)."""
    bot_names: list[str] = field(default_factory=list)
    """Each bot's name, at its number (only ever appended to)."""
    seat_starts: Numbers = field(default_factory=Numbers)
    """Per game, in the order of :attr:`everything`: where its seats begin in the columns."""
    seat_bots: Numbers = field(default_factory=Numbers)
    """Per seat: its bot's number."""
    seat_ranks: Numbers = field(default_factory=lambda: Numbers(np.int8))
    """Per seat: its rank."""
    _counted: OrderedDict[str, tuple[int, np.ndarray, np.ndarray, np.ndarray]] = field(
        default_factory=OrderedDict
    )
    """Bot -> the games of it counted so far, and its meetings, wins and points then."""

    def add(self, number: int, summary: GameSummary) -> None:
        """Count game ``number`` (called with the lock held, numbers rising)."""
        self.add_all([(number, summary)])

    def add_all(self, games: Sequence[tuple[int, GameSummary]]) -> None:
        """Count ``games`` (number, summary), numbers rising past :attr:`newest`; called
        with the lock held. The columns grow once a batch, not once a game."""
        if not games:
            return
        everything: list[int] = []
        by_game: dict[str, list[int]] = {}
        by_bot: dict[str, list[int]] = {}
        violations: list[int] = []
        starts: list[int] = []
        seat_bots: list[int] = []
        seat_ranks: list[int] = []
        seats = len(self.seat_bots)
        for number, summary in games:
            everything.append(number)
            by_game.setdefault(summary.game, []).append(number)
            if any(summary.violations):
                violations.append(number)
            starts.append(seats)
            players, ranks, game = summary.players, summary.ranks, summary.game
            seats += len(players)
            opponents = len(players) - 1
            for seat, bot in enumerate(players):
                ident = self.bot_ids.get(bot)
                if ident is None:
                    ident = self.bot_ids[bot] = len(self.bot_names)
                    self.bot_names.append(bot)
                    self.by_bot[bot] = Numbers()
                if bot not in players[:seat]:  # a bot in two seats is listed once
                    by_bot.setdefault(bot, []).append(number)
                seat_bots.append(ident)
                mine = ranks[seat]
                seat_ranks.append(mine)
                points = sum(1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
                             for other, theirs in enumerate(ranks) if other != seat)  # fmt: skip
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
        self.everything.extend(everything)
        for game, numbers in by_game.items():
            self.by_game.setdefault(game, Numbers()).extend(numbers)
        for bot, numbers in by_bot.items():
            self.by_bot[bot].extend(numbers)
        self.with_violations.extend(violations)
        self.seat_starts.extend(starts)
        self.seat_bots.extend(seat_bots)
        self.seat_ranks.extend(seat_ranks)
        self.newest = everything[-1]

    def nbytes(self) -> int:
        """The bytes the index's arrays take (its lists of numbers and seat columns)."""
        with self.lock:
            lists = [self.everything, self.with_violations, self.seat_starts, self.seat_bots,
                     self.seat_ranks, *self.by_bot.values(), *self.by_game.values()]  # fmt: skip
            return sum(numbers.nbytes for numbers in lists)

    def numbers(self, filters: Filters) -> np.ndarray:
        """The numbers of the games that pass ``filters``, rising (read-only). Several
        filters at once: each number of the shortest list looked up in the others, so
        the cost is that list's, whatever the store's size."""
        with self.lock:
            chosen = []
            if filters.bot is not None:
                chosen.append(self.by_bot.get(filters.bot, Numbers()).view())
            if filters.game is not None:
                chosen.append(self.by_game.get(filters.game, Numbers()).view())
            if filters.violation:
                chosen.append(self.with_violations.view())
            if not chosen:
                return self.everything.view()
        chosen.sort(key=len)
        common = chosen[0]
        for other in chosen[1:]:
            common = intersect_sorted(common, other)
        return common

    def page(
        self, filters: Filters, *, after: int | None, page: int | None, limit: int
    ) -> tuple[list[int], int, int | None]:
        """One page of game numbers: after number ``after`` (keyset) or the ``page``-th
        (from 0); with the total that pass and the ``after`` of the next page."""
        numbers = self.numbers(filters)
        total = len(numbers)
        if after is not None:
            start = int(np.searchsorted(numbers, after, side="right"))
        else:
            start = (page or 0) * limit
        chosen: list[int] = numbers[start : start + limit].tolist()
        following = chosen[-1] if chosen and start + limit < total else None
        return chosen, total, following

    def latest(self, filters: Filters, count: int) -> list[int]:
        """The numbers of the last ``count`` games that pass ``filters``, rising."""
        numbers = self.numbers(filters)
        return numbers[max(0, len(numbers) - count) :].tolist()

    def passing_up_to(self, filters: Filters, number: int) -> int:
        """How many games up to number ``number`` pass ``filters``."""
        return int(np.searchsorted(self.numbers(filters), number, side="right"))

    def opponents(self, bot: str) -> list[tuple[str, Counts]]:
        """``bot``'s counts against each opponent it met (itself too, where it sat in two
        seats of a game), counted from its games' seats (:meth:`versus`)."""
        found = self.versus(bot)
        if found is None:
            return []
        meetings, wins, points = found
        names = self.bot_names  # only ever appended to: a bot's number stays its own
        return [(names[rival], [float(meetings[rival]), float(wins[rival]),
                                float(points[rival]), float(meetings[rival])])
                for rival in np.flatnonzero(meetings).tolist()]  # fmt: skip

    def head_to_head(self, bots: Sequence[str]) -> dict[tuple[str, str], tuple[float, int]]:
        """Each ordered pair of ``bots`` that met (two bots, not one with itself): the
        first's points against the second and their meetings (:meth:`versus`)."""
        with self.lock:
            ids = {bot: self.bot_ids[bot] for bot in bots if bot in self.bot_ids}
        columns = list(ids.values())
        cells: dict[tuple[str, str], tuple[float, int]] = {}
        for a in ids:
            found = self.versus(a)
            assert found is not None  # a bot with a number has played
            meetings, points = found[0][columns].tolist(), found[2][columns].tolist()
            for column, b in enumerate(ids):
                if a != b and meetings[column]:
                    cells[a, b] = (points[column], meetings[column])
        return cells

    def versus(self, bot: str) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """``bot``'s meetings, wins and points against every bot, by the bots' numbers
        (None when it never played; not to be changed). Counted from its games' seats,
        :data:`GAMES_A_PASS` games at a time (so the memory counting takes is bounded),
        and kept for the last :data:`KEEP_COUNTED` bots asked: asked again, only the
        games stored since are counted. The columns are read under the lock, counted
        without it (what was appended never changes)."""
        with self.lock:
            ident = self.bot_ids.get(bot)
            if ident is None:
                return None
            everything, starts = self.everything.view(), self.seat_starts.view()
            seats, ranks = self.seat_bots.view(), self.seat_ranks.view()
            numbers = self.by_bot[bot].view()
            count = len(self.bot_names)
            kept = self._counted.get(bot)
        counted = 0 if kept is None else kept[0]
        totals = [np.zeros(count, dtype=np.int64), np.zeros(count, dtype=np.int64),
                  np.zeros(count)]  # fmt: skip
        if kept is not None:  # bots that first played since are counted from nothing
            for total, values in zip(totals, kept[1:], strict=True):
                total[: len(values)] = values
        for start in range(counted, len(numbers), GAMES_A_PASS):
            positions = np.searchsorted(everything, numbers[start : start + GAMES_A_PASS])
            found = meetings_of(np.array([ident]), np.zeros(len(positions), dtype=np.int64),
                                positions, starts, seats, ranks, count)  # fmt: skip
            for total, values in zip(totals, found, strict=True):
                total += values[0]
        meetings, wins, points = totals
        with self.lock:  # new arrays each time: one handed out earlier never changes
            self._counted[bot] = (len(numbers), meetings, wins, points)
            self._counted.move_to_end(bot)
            while len(self._counted) > KEEP_COUNTED:
                self._counted.popitem(last=False)
        return meetings, wins, points


def intersect_sorted(smaller: np.ndarray, larger: np.ndarray) -> np.ndarray:
    """The numbers in both rising arrays, each of ``smaller`` looked up in ``larger`` by
    bisection: the cost of the smaller, times the logarithm of the larger."""
    if not len(smaller) or not len(larger):
        return smaller[:0]
    places = np.searchsorted(larger, smaller)
    places[places == len(larger)] = 0  # past the end: compared with a number that differs
    return smaller[larger[places] == smaller]


def meetings_of(
    idents: np.ndarray,
    asker: np.ndarray,
    positions: np.ndarray,
    starts: np.ndarray,
    seats: np.ndarray,
    ranks: np.ndarray,
    bots: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The meetings, wins (finished ahead) and points (1 ahead, ½ tied) of the bots
    ``idents`` (rows) against every bot (``bots`` columns), from the games at
    ``positions`` of the seat columns (``starts`` per game; ``seats`` and ``ranks`` per
    seat), each game counted for the bot ``idents[asker]``."""
    cells = len(idents) * bots
    meetings = np.zeros(cells, dtype=np.int64)
    wins = np.zeros(cells, dtype=np.int64)
    points = np.zeros(cells, dtype=np.float64)
    shape = (len(idents), bots)
    if not len(positions):
        return meetings.reshape(shape), wins.reshape(shape), points.reshape(shape)
    first = starts[positions].astype(np.int64)
    following = np.minimum(positions + 1, len(starts) - 1)
    last = np.where(positions + 1 < len(starts), starts[following], len(seats)).astype(np.int64)
    lengths = last - first
    offsets = np.cumsum(lengths) - lengths  # where each game begins among the gathered seats
    game = np.repeat(np.arange(len(positions)), lengths)
    local = np.arange(int(lengths.sum())) - offsets[game]  # a seat's place in its game
    gathered = first[game] + local
    who, rank = seats[gathered], ranks[gathered]
    mine = np.flatnonzero(who == idents[asker[game]])
    row = asker[game[mine]] * bots
    for step in range(1, int(lengths.max())):  # each other seat of the game in turn
        further = lengths[game[mine]] > step
        chosen, of_game = mine[further], game[mine[further]]
        other = offsets[of_game] + (local[chosen] + step) % lengths[of_game]
        cell = row[further] + who[other]
        mine_rank, their_rank = rank[chosen], rank[other]
        ahead = mine_rank < their_rank
        meetings += np.bincount(cell, minlength=cells)
        wins += np.bincount(cell, weights=ahead, minlength=cells).astype(np.int64)
        points += np.bincount(cell, weights=ahead + 0.5 * (mine_rank == their_rank),
                              minlength=cells)  # fmt: skip
    return meetings.reshape(shape), wins.reshape(shape), points.reshape(shape)
