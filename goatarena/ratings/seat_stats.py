"""Per-bot results of many games, counted seat by seat in columns: games, wins, average rank,
average score, violations and latencies, per game type and over all.

Each seat of each game is a few numbers appended to plain lists (bot number, game
type, rank, score, median and worst latency); every :data:`FLUSH_EVERY` seats they are
folded into NumPy: ranks and wins into per-(type, bot) counts, which stay the size of
the field, while scores and median latencies are kept in compact arrays (16 bytes a
seat) because an exactly rounded mean and a median need every value. Violations, rare,
are counted by cause as they come.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

Column = npt.NDArray[Any]

FLUSH_EVERY = 1 << 16
"""Seats buffered in lists before they are folded into arrays."""


class Timed(Protocol):
    """A seat's measured decision times (a record's ``Latency``, a summary's)."""

    @property
    def median_ms(self) -> float: ...

    @property
    def max_ms(self) -> float: ...


SeatLatency = Timed | None
"""A seat's decision times, or None where none was measured."""


@dataclass(frozen=True)
class BotStats:
    """One bot's results in one table."""

    games: int
    wins: int
    avg_rank: float
    avg_score: float
    violations: dict[str, int]
    latency_median_ms: float | None
    latency_max_ms: float | None


class SeatStats:
    """The seats of games added one game at a time; bots and game types are numbers."""

    def __init__(self) -> None:
        self._bot: list[int] = []
        self._kind: list[int] = []
        self._rank: list[int] = []
        self._score: list[float] = []
        self._median: list[float] = []
        self._worst: list[float] = []
        self._chunks: list[tuple[Column, Column, Column, Column]] = []
        self._sorted = False
        self._counts = np.zeros((3, 0, 0), dtype=np.int64)  # games, wins, ranks per (kind, bot)
        self._maxima = np.zeros((0, 0))
        self._violations: dict[tuple[int, int], Counter[str]] = {}

    def add(
        self,
        kind: int,
        bots: Sequence[int],
        ranks: Sequence[int],
        scores: Sequence[float],
        violations: Sequence[Sequence[str]],
        latency: Sequence[SeatLatency],
    ) -> None:
        """Count one game of type ``kind``: per seat its bot, rank, score, violation causes
        and latency."""
        self._bot.extend(bots)
        self._kind.extend([kind] * len(bots))
        self._rank.extend(ranks)
        self._score.extend(scores)
        for seat, seat_latency in enumerate(latency):
            if seat_latency is None:
                self._median.append(math.nan)
                self._worst.append(-math.inf)
            else:
                self._median.append(seat_latency.median_ms)
                self._worst.append(seat_latency.max_ms)
            causes = violations[seat]
            if causes:
                counter = self._violations.setdefault((kind, bots[seat]), Counter())
                counter.update(causes)
        if len(self._bot) >= FLUSH_EVERY:
            self._flush()

    def absorb(
        self, other: SeatStats, kinds: npt.NDArray[np.int64], bots: npt.NDArray[np.int64]
    ) -> None:
        """Add the seats counted by ``other`` (of other games), whose game types and bots
        are numbered ``kinds`` and ``bots`` here."""
        other._flush()
        self._flush()
        _, other_kinds, other_bots = other._counts.shape
        kind_of, bot_of = kinds[:other_kinds, None], bots[None, :other_bots]
        self._grow(int(kinds.max(initial=-1)) + 1, int(bots.max(initial=-1)) + 1)
        for row in range(3):
            np.add.at(self._counts[row], (kind_of, bot_of), other._counts[row])
        np.maximum.at(self._maxima, (kind_of, bot_of), other._maxima)
        for seat_bots, seat_kinds, scores, medians in other._chunks:
            self._chunks.append(
                (bots[seat_bots].astype(np.int32), kinds[seat_kinds].astype(np.int16), scores,
                 medians)
            )  # fmt: skip
        self._sorted = False
        for (kind, bot), causes in other._violations.items():
            self._violations.setdefault((int(kinds[kind]), int(bots[bot])), Counter()).update(
                causes
            )

    def table(self, kinds: int, bots: int, kind: int | None) -> dict[int, BotStats]:
        """Every bot's results in the games of type ``kind`` (all games when None), of
        ``kinds`` types and ``bots`` bots in all."""
        self._flush()
        self._grow(kinds, bots)
        chosen = list(range(kinds)) if kind is None else [kind]
        counts = self._counts[:, chosen].sum(axis=1).T  # per bot: games, wins, ranks
        worst = self._maxima[chosen].max(axis=0) if chosen else np.full(bots, -math.inf)
        bot, kind_of, scores, medians = self._columns()
        starts = np.searchsorted(bot, np.arange(bots + 1))
        stats = {}
        for number in range(bots):
            games = int(counts[number, 0])
            if not games:
                continue
            start, end = int(starts[number]), int(starts[number + 1])
            if kind is not None:  # the bot's seats are sorted by game type too
                first, last = np.searchsorted(kind_of[start:end], (kind, kind + 1))
                start, end = start + int(first), start + int(last)
            measured = medians[start:end]
            measured = measured[~np.isnan(measured)]
            violations: Counter[str] = Counter()
            for k in chosen:
                violations.update(self._violations.get((k, number), {}))
            stats[number] = BotStats(
                games=games,
                wins=int(counts[number, 1]),
                avg_rank=int(counts[number, 2]) / games,
                avg_score=math.fsum(scores[start:end].tolist()) / games,
                violations=dict(sorted(violations.items())),
                latency_median_ms=float(np.median(measured)) if len(measured) else None,
                latency_max_ms=None if worst[number] == -math.inf else float(worst[number]),
            )
        return stats

    def _columns(self) -> tuple[Column, Column, Column, Column]:
        """The seats' bot, game type, score and median latency, sorted by bot and then
        game type (one sort, kept: each table's seats of a bot are then adjacent)."""
        if not self._chunks:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, np.zeros(0), np.zeros(0)
        if len(self._chunks) > 1 or not self._sorted:
            bots, kinds, scores, medians = (np.concatenate(c) for c in zip(*self._chunks))
            order = np.lexsort((kinds, bots))
            self._chunks = [(bots[order], kinds[order], scores[order], medians[order])]
            self._sorted = True
        return self._chunks[0]

    def _grow(self, kinds: int, bots: int) -> None:
        _, old_kinds, old_bots = self._counts.shape
        if kinds <= old_kinds and bots <= old_bots:
            return
        kinds, bots = max(kinds, old_kinds), max(bots, old_bots)
        counts = np.zeros((3, kinds, bots), dtype=np.int64)
        counts[:, :old_kinds, :old_bots] = self._counts
        maxima = np.full((kinds, bots), -math.inf)
        maxima[:old_kinds, :old_bots] = self._maxima
        self._counts, self._maxima = counts, maxima

    def _flush(self) -> None:
        if not self._bot:
            return
        bot = np.asarray(self._bot, dtype=np.int64)
        kind = np.asarray(self._kind, dtype=np.int64)
        rank = np.asarray(self._rank, dtype=np.float64)
        score = np.asarray(self._score, dtype=np.float64)
        median = np.asarray(self._median, dtype=np.float64)
        worst = np.asarray(self._worst, dtype=np.float64)
        self._grow(int(kind.max()) + 1, int(bot.max()) + 1)
        kinds, bots = self._maxima.shape
        flat = kind * bots + bot
        for row, weights in enumerate((np.ones(len(bot)), (rank == 1) * 1.0, rank)):
            added = np.bincount(flat, weights, kinds * bots).reshape(kinds, bots)
            self._counts[row] += added.astype(np.int64)  # exact: integers far below 2**53
        np.maximum.at(self._maxima.reshape(-1), flat, worst)
        self._chunks.append((bot.astype(np.int32), kind.astype(np.int16), score, median))
        self._sorted = False
        for column in (self._bot, self._kind, self._rank, self._score, self._median):
            column.clear()
        self._worst.clear()
