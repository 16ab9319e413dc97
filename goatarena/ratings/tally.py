"""The pairwise results of many games, counted one game at a time in memory bounded by pairs.

A rating fit needs no game itself, only how often each pair of bots finished each way
round, in which seats and at which table size (:mod:`goatarena.ratings.fit`). A
:class:`PairTally` is fed games one at a time (``add``) and keeps those integer counts:
new games wait in a small buffer of bot numbers and ranks, and every
:data:`FLUSH_EVERY` pairwise results the buffer is folded into sorted NumPy arrays of
cells with ``np.unique``. Its memory grows with the cells there are (bot pairs × seats ×
table sizes), never with the games; the counts are integers, so the tally of a set of
games does not depend on their order.

A cell is (bot i, bot j, table size k, seat family, seat of i, seat of j) with i < j in
the order the bots were first seen; the fit renumbers the bots by name.

Games of 3–6 bots, which the exact Plackett–Luce fit takes whole, are also counted as
*patterns*: (bots in seat order, seat family, ranks) with how often each occurred, three
int64 numbers a pattern. Their memory grows with the distinct patterns (at most the
tables × finishing orders that occur), not with the games: a pattern met again costs
nothing. Buffered patterns are folded in as the cells are; the folded chunks are merged
whenever the newer ones outgrow the oldest, so each pattern is sorted O(log games) times.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from goatarena.ratings._orders import EXACT_SEATS

FLUSH_EVERY = 1 << 18
"""Pairwise results buffered before they are folded into the counts."""

# A cell's code packs its six numbers into 59 bits of one int64.
_BITS_BOT = 18
_BITS_K = 4
_BITS_FAMILY = 11
_BITS_SEAT = 4
_MAX_BOTS = 1 << _BITS_BOT
_MAX_FAMILIES = (1 << _BITS_FAMILY) - 1
NO_FAMILY = -1
"""The family of a game without seat terms."""

IntArray = npt.NDArray[np.int64]

_BOTS_PER_WORD = 3
_BITS_RANK = 3


@dataclass(frozen=True)
class Patterns:
    """The distinct finishing patterns of the games of one table size ``k``: per pattern
    its bots in seat order (numbers of :attr:`PairTally.names`, shape (patterns, k)),
    seat ``family`` (:data:`NO_FAMILY` for none), competition ranks in seat order
    (``ranks``, shape (patterns, k)) and ``count``."""

    k: int
    bots: IntArray
    family: IntArray
    ranks: IntArray
    count: IntArray


@dataclass(frozen=True)
class Cells:
    """The counts of a tally as arrays, one entry per cell: bots ``i < j`` (numbers of
    :attr:`PairTally.names`), table size ``k``, seat ``family`` (:data:`NO_FAMILY` for
    none), the seats ``seat_i`` and ``seat_j``, and how often i finished ahead, tied and
    behind (``counts``, shape (cells, 3))."""

    i: IntArray
    j: IntArray
    k: IntArray
    family: IntArray
    seat_i: IntArray
    seat_j: IntArray
    counts: IntArray


class PairTally:
    """The pairwise results of games added one at a time (in any order)."""

    def __init__(self, *, patterns: bool = True) -> None:
        self.keeps_patterns = patterns
        """Whether the games of 3–6 bots are also counted as patterns (without, only the
        pairwise fit can be made of the tally)."""
        self.names: list[str] = []
        """Every bot seen, in the order first seen."""
        self.families: list[tuple[str, int]] = []
        """Every (seat key, table size) seen, in the order first seen."""
        self.games = 0
        self._numbers: dict[str, int] = {}
        self._family_numbers: dict[tuple[str, int], int] = {}
        self._pending: dict[int, tuple[list[int], list[int], list[int]]] = {}
        self._pending_pairs = 0
        self._codes: IntArray = np.zeros(0, dtype=np.int64)
        self._counts: IntArray = np.zeros((0, 3), dtype=np.int64)
        self._played: IntArray = np.zeros((1, 0), dtype=np.int64)
        """Games per (seat family + 1, bot): row 0 counts games without seat terms."""
        self._patterns: dict[int, list[tuple[IntArray, IntArray]]] = {}
        """Per table size, folded chunks of (packed patterns, counts), the oldest first."""

    def add(
        self,
        players: Sequence[str],
        ranks: Sequence[int],
        seat_key: str | None = None,
        *,
        checked: bool = True,
    ) -> list[int]:
        """Count one game: its bots in seat order, their finishing ranks (1 is best) and
        the key of its seat terms (None: the game adds none). Returns the bots' numbers
        (their places in :attr:`names`). Without ``checked`` the ranks are taken to be
        ints (a decoded summary's, typed by its decoder, are)."""
        k = len(players)
        if k < 2:
            raise ValueError(f"a game needs at least two bots, got {list(players)!r}")
        if len(ranks) != k:
            raise ValueError(f"{len(ranks)} ranks for {k} bots")
        if len(set(players)) != k:
            raise ValueError(f"a bot sits twice at one table: {list(players)!r}")
        if k >= 1 << _BITS_K:
            raise ValueError(f"tables of {k} bots are more than a tally counts")
        for name, rank in zip(players, ranks, strict=True) if checked else ():
            if not isinstance(rank, int) or isinstance(rank, bool):
                raise ValueError(f"rank of {name!r} must be an int, got {rank!r}")
        numbers = [self._number(name) for name in players]
        family = NO_FAMILY if seat_key is None else self._family(seat_key, k)
        seats, rank_list, families = self._pending.setdefault(k, ([], [], []))
        seats.extend(numbers)
        rank_list.extend(ranks)
        families.append(family)
        self.games += 1
        self._pending_pairs += k * (k - 1) // 2
        if self._pending_pairs >= FLUSH_EVERY:
            self._flush()
        return numbers

    def absorb(self, other: PairTally) -> IntArray:
        """Add the counts of ``other``, a tally of other games, as if its games had been
        added here (numbered anew: the counts, and so the fits, are the same). Returns
        the numbers here of ``other``'s bots, in its order."""
        if other.keeps_patterns != self.keeps_patterns:
            raise ValueError("a tally without patterns cannot absorb one with, nor the reverse")
        self._flush()
        cells, played = other.cells(), other._played
        bots = np.array([self._number(name) for name in other.names], dtype=np.int64)
        families = [self._family(key, k) for key, k in other.families]
        family_of = np.array([*families, NO_FAMILY], dtype=np.int64)  # NO_FAMILY (-1): last
        i, j = bots[cells.i], bots[cells.j]
        swap = i > j
        counts = np.where(swap[:, None], cells.counts[:, ::-1], cells.counts)
        code = _code(
            np.where(swap, j, i), np.where(swap, i, j), cells.k, family_of[cells.family],
            np.where(swap, cells.seat_j, cells.seat_i), np.where(swap, cells.seat_i, cells.seat_j),
        )  # fmt: skip
        order = np.argsort(code)
        self._codes, self._counts = _summed_cells(
            np.concatenate([self._codes, code[order]]),
            np.concatenate([self._counts, counts[order]]),
        )
        grown = np.zeros((len(self.families) + 1, len(self.names)), dtype=np.int64)
        grown[: self._played.shape[0], : self._played.shape[1]] = self._played
        rows = np.array([0, *(f + 1 for f in families)], dtype=np.int64)[: played.shape[0]]
        np.add.at(grown, (rows[:, None], bots[None, : played.shape[1]]), played)
        self._played = grown
        for patterns in other.patterns():
            self._fold_patterns(
                patterns.k, bots[patterns.bots], patterns.ranks, family_of[patterns.family],
                patterns.count,
            )  # fmt: skip
        self.games += other.games
        return bots

    def played(self, *, families: Sequence[int] | None = None) -> dict[str, int]:
        """Games played per bot (only in the given seat families, numbers of
        :attr:`families`, when given)."""
        self._flush()
        rows = self._played if families is None else self._played[[f + 1 for f in families]]
        totals = rows.sum(axis=0)
        return {name: int(count) for name, count in zip(self.names, totals, strict=True)}

    def snapshot(self) -> PairTally:
        """A copy of the tally as it is, which the games added to this one later leave
        unchanged (to fit in another thread while counting goes on): it shares the
        counts' arrays, which a fold replaces rather than changes."""
        self._flush()
        copy = PairTally(patterns=self.keeps_patterns)
        copy.names, copy.families, copy.games = list(self.names), list(self.families), self.games
        copy._numbers, copy._family_numbers = dict(self._numbers), dict(self._family_numbers)
        copy._codes, copy._counts, copy._played = self._codes, self._counts, self._played
        copy._patterns = {k: list(chunks) for k, chunks in self._patterns.items()}
        return copy

    def cells(self) -> Cells:
        """Every cell's counts (see :class:`Cells`)."""
        self._flush()
        codes = self._codes
        seat_j = codes & ((1 << _BITS_SEAT) - 1)
        codes = codes >> _BITS_SEAT
        seat_i = codes & ((1 << _BITS_SEAT) - 1)
        codes = codes >> _BITS_SEAT
        family = (codes & ((1 << _BITS_FAMILY) - 1)) - 1
        codes = codes >> _BITS_FAMILY
        k = codes & ((1 << _BITS_K) - 1)
        codes = codes >> _BITS_K
        j = codes & (_MAX_BOTS - 1)
        i = codes >> _BITS_BOT
        return Cells(i, j, k, family, seat_i, seat_j, self._counts)

    def patterns(self) -> list[Patterns]:
        """The finishing patterns of the games of 3–6 bots, by table size."""
        self._flush()
        found = []
        for k in sorted(self._patterns):
            packed, count = self._merged(k)
            words = packed[:, :2]
            bots = np.stack(
                [(words[:, f // _BOTS_PER_WORD] >> (_BITS_BOT * (f % _BOTS_PER_WORD)))
                 & (_MAX_BOTS - 1) for f in range(k)],
                axis=1,
            )  # fmt: skip
            tail = packed[:, 2]
            ranks = np.stack([1 + ((tail >> (_BITS_RANK * f)) & 7) for f in range(k)], axis=1)
            family = (tail >> (_BITS_RANK * 6)) - 1
            found.append(Patterns(k, bots, family, ranks, count))
        return found

    def _merged(self, k: int) -> tuple[IntArray, IntArray]:
        chunks = self._patterns[k]
        if len(chunks) > 1:
            chunks[:] = [_unique_rows(np.concatenate([c[0] for c in chunks]),
                                      np.concatenate([c[1] for c in chunks]))]  # fmt: skip
        return chunks[0]

    def _number(self, name: str) -> int:
        number = self._numbers.get(name)
        if number is None:
            if len(self.names) >= _MAX_BOTS:
                raise ValueError(f"more than {_MAX_BOTS} bots are more than a tally counts")
            number = self._numbers[name] = len(self.names)
            self.names.append(name)
        return number

    def _family(self, key: str, k: int) -> int:
        number = self._family_numbers.get((key, k))
        if number is None:
            if len(self.families) >= _MAX_FAMILIES:
                raise ValueError(
                    f"more than {_MAX_FAMILIES} seat keys are more than a tally counts"
                )
            number = self._family_numbers[key, k] = len(self.families)
            self.families.append((key, k))
        return number

    def _flush(self) -> None:
        """Fold the buffered games into the sorted cell counts."""
        if not self._pending:
            return
        codes = [self._codes]
        outcomes = [self._counts]
        played = np.zeros((len(self.families) + 1, len(self.names)), dtype=np.int64)
        played[: self._played.shape[0], : self._played.shape[1]] = self._played
        for k, (seats, ranks, families) in sorted(self._pending.items()):
            table = np.asarray(seats, dtype=np.int64).reshape(-1, k)
            order = np.asarray(ranks, dtype=np.int64).reshape(-1, k)
            family = np.asarray(families, dtype=np.int64)
            np.add.at(played, (np.repeat(family + 1, k), table.ravel()), 1)
            if k in EXACT_SEATS and self.keeps_patterns:
                self._fold_patterns(k, table, order, family)
            for a in range(k):
                for b in range(a + 1, k):
                    code, outcome = _pair_codes(table, order, family, k, a, b)
                    codes.append(code)
                    outcomes.append(outcome)
        self._pending.clear()
        self._pending_pairs = 0
        self._played = played
        self._codes, self._counts = _summed_cells(np.concatenate(codes), np.concatenate(outcomes))

    def _fold_patterns(
        self,
        k: int,
        table: IntArray,
        order: IntArray,
        family: IntArray,
        count: IntArray | None = None,
    ) -> None:
        """Count games of size k (each ``count`` times, once when None) as patterns (see
        the module docstring)."""
        ahead = (order[:, None, :] < order[:, :, None]).sum(axis=2)  # competition rank − 1
        packed = np.zeros((len(table), 3), dtype=np.int64)
        for f in range(k):
            packed[:, f // _BOTS_PER_WORD] |= table[:, f] << (_BITS_BOT * (f % _BOTS_PER_WORD))
            packed[:, 2] |= ahead[:, f] << (_BITS_RANK * f)
        packed[:, 2] |= (family + 1) << (_BITS_RANK * 6)
        chunks = self._patterns.setdefault(k, [])
        weights = np.ones(len(packed), dtype=np.int64) if count is None else count
        chunks.append(_unique_rows(packed, weights))
        if sum(len(c[1]) for c in chunks[1:]) >= len(chunks[0][1]):
            self._merged(k)


def _summed_cells(codes: IntArray, counts: IntArray) -> tuple[IntArray, IntArray]:
    """The distinct cell codes, sorted, with the counts of each summed."""
    unique, inverse = np.unique(codes, return_inverse=True)
    summed = np.empty((len(unique), 3), dtype=np.int64)
    for column in range(3):  # float weights hold these integers exactly (< 2**53)
        summed[:, column] = np.bincount(inverse, weights=counts[:, column], minlength=len(unique))
    return unique, summed


def _code(
    i: IntArray, j: IntArray, k: IntArray | int, family: IntArray, seat_i: IntArray,
    seat_j: IntArray,
) -> IntArray:  # fmt: skip
    """The codes of cells (see the module docstring): six numbers in one int64 each."""
    code = (i << _BITS_BOT) | j
    code = (code << _BITS_K) | k
    code = (code << _BITS_FAMILY) | (family + 1)
    code = (code << _BITS_SEAT) | seat_i
    return (code << _BITS_SEAT) | seat_j


def _unique_rows(rows: IntArray, counts: IntArray) -> tuple[IntArray, IntArray]:
    """The distinct rows of a (n, 3) int64 array, in a fixed order, with summed counts."""
    rows = np.ascontiguousarray(rows)
    keys = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    unique, inverse = np.unique(keys, return_inverse=True)
    summed = np.bincount(inverse.ravel(), weights=counts, minlength=len(unique))
    return unique.view(np.int64).reshape(-1, rows.shape[1]), summed.astype(np.int64)


def _pair_codes(
    table: IntArray, order: IntArray, family: IntArray, k: int, a: int, b: int
) -> tuple[IntArray, IntArray]:
    """The cell codes and outcome rows (one-hot ahead/tie/behind) of seats a and b of
    every buffered game of size k, the lower bot number first."""
    first, second = table[:, a], table[:, b]
    rank_first, rank_second = order[:, a], order[:, b]
    swap = first > second
    i = np.where(swap, second, first)
    j = np.where(swap, first, second)
    rank_i = np.where(swap, rank_second, rank_first)
    rank_j = np.where(swap, rank_first, rank_second)
    seated = family != NO_FAMILY  # without seat terms the seats are not told apart
    seat_i = np.where(seated, np.where(swap, b, a), 0)
    seat_j = np.where(seated, np.where(swap, a, b), 0)
    code = _code(i, j, k, family, seat_i, seat_j)
    outcome = np.zeros((len(i), 3), dtype=np.int64)
    outcome[np.arange(len(i)), np.where(rank_i < rank_j, 0, np.where(rank_i == rank_j, 1, 2))] = 1
    return code, outcome
