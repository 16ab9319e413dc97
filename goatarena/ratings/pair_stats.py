"""Two-bot match statistics as cutechess prints them, and Swiss points from finishing ranks."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

_Z95 = NormalDist().inv_cdf(0.975)


@dataclass(frozen=True)
class PairStats:
    """Two-bot match statistics as cutechess and fastchess print them.

    ``score`` is ``(wins + draws/2) / games`` from the first bot's side, ``score_lo`` and
    ``score_hi`` its 95 % interval, ``stderr`` the standard error of the score. ``elo`` is
    the Elo difference ``−400·log10(1/score − 1)`` and ``elo_margin`` half the width of
    the Elo interval mapped from the score interval (cutechess's ``+/-``); these are
    infinite for a score of 0 or 1. ``los`` is cutechess's likelihood of superiority from
    wins and losses alone, ``draw_ratio`` the share of draws.
    """

    games: int
    wins: int
    draws: int
    losses: int
    score: float
    score_lo: float
    score_hi: float
    stderr: float
    elo: float
    elo_margin: float
    los: float
    draw_ratio: float


def pair_score(wins: int, draws: int, losses: int) -> PairStats:
    """Statistics of a two-bot match from the first bot's wins, draws and losses.

    As cutechess computes them: score ``s = (W + D/2)/n``, per-game variance
    ``w(1−s)² + d(½−s)² + l·s²`` (``w, d, l`` the fractions), score interval
    ``s ± 1.96·sqrt(var/n)``, Elo difference ``−400·log10(1/s − 1)`` with margin half the
    Elo width of the score interval, and LOS ``½ + ½·erf((W − L)/sqrt(2(W + L)))``.
    (The exact normal quantile is used where cutechess approximates it.)
    """
    if min(wins, draws, losses) < 0:
        raise ValueError("wins, draws and losses must not be negative")
    n = wins + draws + losses
    if n == 0:
        raise ValueError("no games: the score is undefined")
    w, d, lo = wins / n, draws / n, losses / n
    score = w + d / 2.0
    variance = w * (1.0 - score) ** 2 + d * (0.5 - score) ** 2 + lo * score**2
    stderr = math.sqrt(variance / n)
    score_lo, score_hi = score - _Z95 * stderr, score + _Z95 * stderr
    decisive = wins + losses
    los = 0.5 if decisive == 0 else 0.5 + 0.5 * math.erf((wins - losses) / math.sqrt(2 * decisive))
    return PairStats(
        games=n,
        wins=wins,
        draws=draws,
        losses=losses,
        score=score,
        score_lo=score_lo,
        score_hi=score_hi,
        stderr=stderr,
        elo=elo_difference(score),
        elo_margin=(elo_difference(score_hi) - elo_difference(score_lo)) / 2.0,
        los=los,
        draw_ratio=d,
    )


def points_from_ranks(ranks: Sequence[int]) -> list[float]:
    """Points by finishing position for ``n`` players: ``n − position``, shared on ties.

    Position 1 earns ``n − 1`` points and the last position 0. Tied players share the
    average of the points of the positions they occupy together: ``[1, 2, 3]`` gives
    ``[2, 1, 0]`` and ``[1, 1, 3]`` gives ``[1.5, 1.5, 0]``. Only the order of the ranks
    matters (lower is better), so dense ranks such as ``[1, 1, 2]`` work too.
    """
    n = len(ranks)
    points = []
    for rank in ranks:
        first = 1 + sum(1 for other in ranks if other < rank)
        tied = sum(1 for other in ranks if other == rank)
        points.append(n - first - (tied - 1) / 2.0)
    return points


def elo_difference(score: float) -> float:
    """The Elo difference of a mean score, ``−400·log10(1/score − 1)``: infinite at (or
    beyond) a score of 0 or 1."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)
