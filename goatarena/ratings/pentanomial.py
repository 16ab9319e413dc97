"""Head-to-head Elo of two bots from game pairs, counted pentanomially as fastchess does.

A two-player deal is played twice, once in each seat order, on the same cards or board;
the two games form a *pair*, scored from one bot's side 0, ½, 1, 1½ or 2 points (1 a
game for finishing ahead, ½ for a tie). The luck of the deal is shared by its two games
(a good deal for seat 0 helps each bot once), so the pairs, not the games, are the
independent draws. fastchess's pentanomial statistics follow:

- the score ``s = Σ f_k a_k`` (``f_k`` the share of pairs of outcome ``k``, ``a_k`` its
  points over 2: 0, ¼, ½, ¾, 1), the mean score per game;
- the variance of a pair ``v = Σ f_k (a_k − s)²``, so the score's standard error is
  ``sqrt(v / pairs)`` and its 95 % interval ``s ± 1.96·sqrt(v / pairs)``;
- the Elo difference ``−400·log10(1/s − 1)``, its interval the Elo of the score's ends
  (not symmetric), and the margin half its width (fastchess's ``+/-``);
- the likelihood of superiority ``Φ((s − ½) / sqrt(v / pairs))``.

Incomplete pairs: a game whose key names a seat rotation (``…/r0``, ``…/r1``) waits for
the other rotation of its deal; a deal with only one of them stored (a run cut short, a
game that failed) and a game without rotations (a Swiss deal, played once) count as
*unpaired* games: shown beside the pairs, never in the pentanomial, whose variance needs
whole pairs. Memory: five counts and the unpaired count per pair of bots, plus one small
entry per deal still waiting for its second game; at most :data:`MAX_WAITING` wait (in a
store read in finishing order the two rotations of a deal finish close together), the
oldest counting as unpaired once that many are waiting.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from goatarena.ratings.clusters import rotation_deal
from goatarena.ratings.pair_stats import elo_difference

__all__ = [
    "MAX_WAITING",
    "PAIR_POINTS",
    "PairRecord",
    "PentanomialStats",
    "PentanomialTally",
    "pair_rows",
    "pentanomial_score",
    "signed_elo",
]

_Z95 = NormalDist().inv_cdf(0.975)
PAIR_POINTS = (0.0, 0.5, 1.0, 1.5, 2.0)
"""A pair's points from the first bot's side, worst first: the five outcomes."""
MAX_WAITING = 100_000
"""Deals waiting for their second game at most; past that the oldest counts as unpaired."""


@dataclass(frozen=True)
class PentanomialStats:
    """Two bots' game pairs as fastchess prints them (see the module docstring).

    ``counts[k]`` is the pairs in which the first bot scored ``k/2`` points. ``elo`` is
    infinite at a score of 0 or 1, ``elo_lo``/``elo_hi`` where an end of the score's
    interval reaches 0 or 1; ``elo_margin`` is half the Elo interval's width.
    """

    pairs: int
    counts: tuple[int, ...]
    score: float
    stderr: float
    elo: float
    elo_lo: float
    elo_hi: float
    elo_margin: float
    los: float


def pentanomial_score(counts: Sequence[int]) -> PentanomialStats:
    """The pentanomial statistics of five pair counts (0, ½, 1, 1½, 2 points)."""
    if len(counts) != len(PAIR_POINTS):
        raise ValueError("a pentanomial has five counts: pairs of 0, 1/2, 1, 3/2 and 2 points")
    if min(counts) < 0:
        raise ValueError("pair counts must not be negative")
    pairs = sum(counts)
    if pairs == 0:
        raise ValueError("no pairs: the score is undefined")
    shares = [count / pairs for count in counts]
    means = [points / 2.0 for points in PAIR_POINTS]
    score = sum(f * a for f, a in zip(shares, means, strict=True))
    variance = sum(f * (a - score) ** 2 for f, a in zip(shares, means, strict=True))
    stderr = math.sqrt(variance / pairs)
    low, high = score - _Z95 * stderr, score + _Z95 * stderr
    elo_lo, elo_hi = elo_difference(low), elo_difference(high)
    if stderr > 0.0:
        los = NormalDist().cdf((score - 0.5) / stderr)
    else:
        los = 1.0 if score > 0.5 else 0.0 if score < 0.5 else 0.5
    return PentanomialStats(
        pairs=pairs,
        counts=tuple(counts),
        score=score,
        stderr=stderr,
        elo=elo_difference(score),
        elo_lo=elo_lo,
        elo_hi=elo_hi,
        elo_margin=_half_width(elo_lo, elo_hi),
        los=los,
    )


@dataclass
class PairRecord:
    """What two bots' two-player games say, from ``first``'s side (the bots sorted)."""

    first: str
    second: str
    counts: list[int]
    """Pairs of games by ``first``'s points: 0, ½, 1, 1½, 2."""
    unpaired: int = 0
    """Games not in a complete pair (one rotation of a deal stored, or no rotations)."""

    def stats(self) -> PentanomialStats | None:
        """The pentanomial statistics, or None without a complete pair."""
        return pentanomial_score(self.counts) if sum(self.counts) else None


class PentanomialTally:
    """Two-player games counted into pairs, one game at a time (see the module docstring).

    Games at tables of other sizes are ignored: their pairs of bots are not game pairs.
    """

    def __init__(self) -> None:
        self.records: dict[tuple[str, str], PairRecord] = {}
        self._waiting: dict[str, tuple[tuple[str, str], float]] = {}

    def add(self, key: str, players: Sequence[str], ranks: Sequence[int]) -> None:
        """Count one game: its schedule key, its bots in seat order and their ranks."""
        if len(players) != 2 or players[0] == players[1]:
            return
        pair = (min(players), max(players))
        record = self.records.get(pair)
        if record is None:
            record = self.records[pair] = PairRecord(pair[0], pair[1], [0] * len(PAIR_POINTS))
        mine, theirs = ranks[players.index(pair[0])], ranks[players.index(pair[1])]
        points = 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
        deal = rotation_deal(key)
        if deal is None:
            record.unpaired += 1
            return
        waiting = self._waiting.pop(deal, None)
        if waiting is None:
            self._wait(deal, pair, points)
        elif waiting[0] != pair:  # not the same two bots: not one deal's pair
            self.records[waiting[0]].unpaired += 1
            self._wait(deal, pair, points)
        else:
            record.counts[round(2 * (waiting[1] + points))] += 1

    def _wait(self, deal: str, pair: tuple[str, str], points: float) -> None:
        if len(self._waiting) >= MAX_WAITING:
            oldest = next(iter(self._waiting))
            self.records[self._waiting.pop(oldest)[0]].unpaired += 1
        self._waiting[deal] = (pair, points)

    def pairs(self) -> dict[tuple[str, str], PairRecord]:
        """Every pair of bots that met at two seats, the deals still waiting counted as
        unpaired games (the tally itself is unchanged: more games may complete them)."""
        waiting: dict[tuple[str, str], int] = {}
        for pair, _ in self._waiting.values():
            waiting[pair] = waiting.get(pair, 0) + 1
        return {
            pair: PairRecord(
                record.first,
                record.second,
                list(record.counts),
                record.unpaired + waiting.get(pair, 0),
            )
            for pair, record in sorted(self.records.items())
        }


def pair_rows(records: Mapping[tuple[str, str], PairRecord]) -> list[dict[str, object]]:
    """The pairs as plain data (JSON): bots, counts, unpaired games and the statistics
    (``None`` without a complete pair; infinite Elo as ``None``)."""
    rows = []
    for record in records.values():
        stats = record.stats()
        row: dict[str, object] = {
            "bot": record.first,
            "opponent": record.second,
            "pentanomial": list(record.counts),
            "pairs": sum(record.counts),
            "unpaired_games": record.unpaired,
        }
        if stats is not None:
            row.update(
                score=round(stats.score, 4),
                elo=_finite(stats.elo),
                elo_lo=_finite(stats.elo_lo),
                elo_hi=_finite(stats.elo_hi),
                elo_margin=_finite(stats.elo_margin),
                los=round(stats.los, 4),
            )
        rows.append(row)
    return rows


def _half_width(low: float, high: float) -> float:
    """Half the width of ``[low, high]``; infinite where an end is (a perfect score)."""
    if math.isinf(low) or math.isinf(high):
        return math.inf
    return (high - low) / 2.0


def signed_elo(value: float) -> str:
    """An Elo difference with its sign and one decimal (never "-0.0"); ``+inf`` or
    ``-inf`` where infinite."""
    return f"{value + 0.0:+.1f}" if math.isfinite(value) else f"{value:+}"


def _finite(value: float) -> float | None:
    return round(value, 1) + 0.0 if math.isfinite(value) else None
