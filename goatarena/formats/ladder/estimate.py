"""A quick, incremental rating estimate for choosing tables (not for the standings).

The standings come from one full Bradley–Terry fit (:mod:`goatarena.ratings.fit`), whose
dense Hessian costs O(N³): fine for a table shown now and then, too slow to refit before
every table of a ladder with a thousand bots. The matchmaker needs less: each bot's
rating and how uncertain it is. :class:`QuickRatings` keeps the pairwise results as
counts (each pair of a k-seat table weighing ``3/(k+1)``, a tie half a point, as the full
fit does) and refines the same maximum-likelihood ratings by coordinate Newton sweeps,
warm-started from the last ones, at O(pairs met) per sweep. A bot's standard error is
``1/sqrt(information)`` from its own games (the diagonal of the Hessian), which ignores
the covariance the full fit accounts for; with a few opponents each it is close.
A weak prior — ``prior_draws`` virtual draws against a bot of rating 0 — keeps perfect
scores finite, as in the full fit. Everything is in Elo points, centred near 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from goatarena.ratings.fit import ELO_PER_NATURAL_LOG

_Pair = list[float]
"""[weighted games, weighted score] of one bot against one opponent."""


def pair_weight(players: int) -> float:
    """The weight of each pairwise result of a table of ``players`` (1 at two seats)."""
    return 3.0 / (players + 1)


class QuickRatings:
    """Ratings and their uncertainty from pairwise counts, refined a few sweeps at a time."""

    def __init__(self, *, prior_draws: float = 1.0) -> None:
        self.prior_draws = prior_draws
        self._theta: dict[str, float] = {}
        self._info: dict[str, float] = {}
        self._against: dict[str, dict[str, _Pair]] = {}
        self._sorted: list[str] = []
        self.games: dict[str, int] = {}
        """Games each bot played (as recorded)."""

    def add_bot(self, name: str) -> None:
        """Know a bot before its first game (rating 0, the prior's uncertainty)."""
        if name not in self._theta:
            self._theta[name] = 0.0
            self._info[name] = self.prior_draws / 4.0
            self._against[name] = {}
            self.games[name] = 0
            self._sorted = sorted(self._theta)

    def add_game(self, ranks: Mapping[str, int]) -> None:
        """Count one finishing order: bot name -> rank (1 is best, equal ranks tie)."""
        names = list(ranks)
        weight = pair_weight(len(names))
        for name in names:
            self.add_bot(name)
            self.games[name] += 1
        for a_index, a in enumerate(names):
            for b in names[a_index + 1 :]:
                score = 1.0 if ranks[a] < ranks[b] else 0.5 if ranks[a] == ranks[b] else 0.0
                self._count(a, b, weight, weight * score)
                self._count(b, a, weight, weight * (1.0 - score))

    def _count(self, bot: str, opponent: str, games: float, score: float) -> None:
        pair = self._against[bot].setdefault(opponent, [0.0, 0.0])
        pair[0] += games
        pair[1] += score

    def refresh(self, sweeps: int = 2, names: Iterable[str] | None = None) -> None:
        """Refine the ratings by ``sweeps`` coordinate Newton steps over ``names`` (all)."""
        order = self._sorted if names is None else names
        theta = self._theta
        prior = self.prior_draws
        for _ in range(sweeps):
            for name in order:
                own = theta[name]
                p0 = _sigmoid(own)
                gradient = prior * (0.5 - p0)
                information = prior * p0 * (1.0 - p0)
                for opponent, (games, score) in self._against[name].items():
                    p = _sigmoid(own - theta[opponent])
                    gradient += score - games * p
                    information += games * p * (1.0 - p)
                if information > 0.0:
                    # A Newton step, capped: far from the optimum a step can overshoot.
                    theta[name] = own + max(-1.0, min(1.0, gradient / information))
                self._info[name] = information

    def elo(self, name: str) -> float:
        """The bot's current rating estimate, Elo points (0 is the prior's average bot)."""
        return self._theta[name] * ELO_PER_NATURAL_LOG

    def stderr(self, name: str) -> float:
        """The standard error of :meth:`elo`, from the bot's own games (Elo points)."""
        information = self._info[name]
        return ELO_PER_NATURAL_LOG / math.sqrt(information) if information > 0 else math.inf

    def names(self) -> list[str]:
        """Every bot known, sorted (the list is shared: do not change it)."""
        return self._sorted

    def opponents(self, name: str) -> dict[str, float]:
        """The weighted games ``name`` played against each opponent."""
        return {other: pair[0] for other, pair in self._against[name].items()}


def _sigmoid(x: float) -> float:
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)
