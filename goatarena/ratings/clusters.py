"""Deal-adjusted intervals: the games of one deal counted as one unit of evidence.

The seat rotations of a deal share its cards or board, so their results are not
independent: a deal that favours one bot favours it in every rotation in which the bot
holds the lucky seat, and a deal that is simply good for seat 0 evens out over the
rotations. The fit's own intervals (:mod:`goatarena.ratings.fit`) treat every game as
independent; the cluster-robust ("sandwich") covariance ``Σ B Σ`` here treats every deal
as one independent draw instead: ``Σ`` is the fit's inverse Hessian and
``B = Σ_d u_d u_dᵀ``, ``u_d`` the deal's score — the sum over its games and their pairs
of ``w·(y − p)·v`` at the fitted parameters (``y`` the pair's result, 1, ½ or 0, ``p``
its fitted chance, ``w`` the pair weight, ``v = e_i − e_j (+ e_a − e_b)``). Residuals
at fitted parameters are smaller than at the true ones, the more so the more a deal
pulls the fit its way; each deal's score is divided by ``I − H_d Σ``, ``H_d`` its own
curvature (the "CR3" correction, close to a jackknife over deals; a solve of the deal's
few parameters). A table of 3–6 bots fitted by the exact model adds its own score
instead, the gradient of its finishing order's log-likelihood, and its Hessian as its
curvature (:func:`goatarena.ratings._orders.game_terms`). A uniform factor
``G/(G − q)`` was tried and dropped: with 15 deals of four seats it widened the
intervals to 98.6 % coverage. The interval is ± Student's t quantile of ``deals − 1``
degrees of freedom times the standard error, not 1.96: with few deals ``B`` is itself
uncertain (1.99 at 75 deals, 2.14 at 15, 2.45 at 7).

This is a second pass over the games (or their summaries) after the fit, at the fitted
ratings: :class:`DealScores` is fed the games one at a time and keeps, per deal, the few
numbers of its bots and seats; ``B`` is a dense matrix of the fit's parameters. Memory:
the matrix (8 bytes × parameters²) plus a few numbers per deal still open; a deal is
folded into ``B`` as soon as a game of another deal follows it, so games read in
schedule order (rotations together) keep one deal open at a time.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from scipy.special import expit, stdtrit

from goatarena.ratings import _newton, _orders
from goatarena.ratings.fit import ELO_PER_NATURAL_LOG, Rating, RatingFit

__all__ = ["DealScores", "RotationResult", "deal_adjusted", "deal_quantile", "rotation_deal"]

RotationResult = tuple[Sequence[str], Sequence[int], str | None]
"""One game of a deal as :meth:`DealScores.add_deal` reads it: bots, ranks, seat key."""

_ROTATION = re.compile(r"/r[0-9]+$")


def rotation_deal(key: str) -> str | None:
    """The deal a game's schedule key belongs to — the key without its seat rotation
    (``…/d3/r1`` → ``…/d3``) — or None for a game played in one seating only (a Swiss
    deal's key names no rotation)."""
    deal, found = _ROTATION.subn("", key)
    return deal if found else None


class DealScores:
    """The scores ``u_d`` of the deals of a fitted event, summed into ``B``.

    ``fit`` must keep its problem (a fit with intervals); games of bots it does not know
    are an error, games of a seat key it has no terms for count without seat terms.
    """

    def __init__(self, fit: RatingFit) -> None:
        if fit._problem is None or fit._theta is None:
            raise ValueError("deal-adjusted intervals need a fit with intervals")
        self.fit = fit
        self.deals: float = 0
        """The deals counted (weighted, where :meth:`add_deal` was given a weight)."""
        self._theta = fit._theta
        size = fit._problem.size
        self.meat = np.zeros((size, size))
        self._index = {name: number for number, name in enumerate(fit.names)}
        self._seat_start = {
            family: start
            for family, (start, _) in zip(fit._families, fit._problem.blocks[1:], strict=True)
        }
        self._exact = fit._problem.exact
        self._open: dict[str, dict[int, float]] = {}
        self._alike = 1.0
        self._curvature: dict[str, dict[tuple[int, int], float]] = {}
        problem, theta = fit._problem, fit._theta
        _, curvature = _newton.gradient(theta, problem)
        factor = _newton._cholesky(_newton.dense_hessian(theta, problem, curvature))
        upper = np.triu(_newton._inverse(factor))
        self.sigma = upper + np.triu(upper, 1).T
        """The fit's inverse Hessian ``Σ``."""

    def add(
        self, deal: str, players: Sequence[str], ranks: Sequence[int], seat_key: str | None = None
    ) -> None:
        """Count one game of the deal named ``deal``: its bots in seat order, their ranks
        and its seat key (as given to the tally)."""
        if deal not in self._open:
            self._close_all()
            self._open[deal] = {}
            self._curvature[deal] = {}
        score = self._open[deal]
        curvature = self._curvature[deal]
        k = len(players)
        weight = 3.0 / (k + 1)
        numbers = [self._index[name] for name in players]
        start = None if seat_key is None else self._seat_start.get((seat_key, k))
        theta = self._theta
        if self._exact and k in _orders.EXACT_SEATS:
            self._add_order(score, curvature, numbers, start, ranks)
            return
        for a in range(k):
            for b in range(a + 1, k):
                ends = [(numbers[a], 1.0), (numbers[b], -1.0)]
                if start is not None:
                    ends += [(start + a, 1.0), (start + b, -1.0)]
                d = sum(sign * theta[index] for index, sign in ends)
                y = 1.0 if ranks[a] < ranks[b] else 0.5 if ranks[a] == ranks[b] else 0.0
                p = float(expit(d))
                residual = weight * (y - p)
                for index, sign in ends:
                    score[index] = score.get(index, 0.0) + sign * residual
                    for other, other_sign in ends:
                        cell = (index, other)
                        value = sign * other_sign * weight * p * (1.0 - p)
                        curvature[cell] = curvature.get(cell, 0.0) + value

    def _add_order(
        self,
        score: dict[int, float],
        curvature: dict[tuple[int, int], float],
        numbers: Sequence[int],
        start: int | None,
        ranks: Sequence[int],
    ) -> None:
        """One table of the exact model: its score ``−∇`` and curvature in the
        parameters of its bots and seats."""
        theta = self._theta
        ends = [[number] if start is None else [number, start + seat]
                for seat, number in enumerate(numbers)]  # fmt: skip
        u = [sum(float(theta[index]) for index in end) for end in ends]
        grad, hess = _orders.game_terms(u, _orders.competition_ranks(ranks))
        for f, end in enumerate(ends):
            for index in end:
                score[index] = score.get(index, 0.0) - float(grad[f])
                for g, other_end in enumerate(ends):
                    for other in other_end:
                        cell = (index, other)
                        curvature[cell] = curvature.get(cell, 0.0) + float(hess[f, g])

    def add_deal(self, games: Sequence[RotationResult], alike: float = 1.0) -> None:
        """Count ``alike`` deals of these games (bots in seat order, ranks, seat key): a
        deal summarised by its pattern — the same bots in the same seats finishing the
        same way — counted once per deal that played it (a fractional weight: a sample
        of the deals standing for more)."""
        self._close_all()
        for players, ranks, seat_key in games:
            self.add("", players, ranks, seat_key)
        self._alike = alike
        self._close_all()

    def finish(self) -> np.ndarray:
        """``B``, every deal folded in."""
        self._close_all()
        return self.meat

    def _close_all(self) -> None:
        for deal, score in self._open.items():
            indices = np.fromiter(score, dtype=np.int64)
            values = np.fromiter(score.values(), dtype=np.float64)
            position = {index: number for number, index in enumerate(score)}
            hessian = np.zeros((len(indices), len(indices)))
            for (a, b), value in self._curvature[deal].items():
                hessian[position[a], position[b]] += value
            # the residuals at the fitted parameters are shrunk by the deal's own pull on
            # the fit (its leverage H_d Σ); undo it, as the jackknife would (CR3)
            leverage = hessian @ self.sigma[np.ix_(indices, indices)]
            values = np.asarray(
                np.linalg.solve(np.eye(len(indices)) - leverage, values), dtype=np.float64
            )
            self.meat[np.ix_(indices, indices)] += self._alike * np.outer(values, values)
            self.deals += self._alike
        self._alike = 1.0
        self._open.clear()
        self._curvature.clear()


def deal_quantile(deals: int) -> float:
    """The 97.5 % quantile of Student's t with ``deals − 1`` degrees of freedom: ``B`` is
    estimated from that many deals, and with few of them the normal 1.96 undercovers
    (measured at six seats, 7 deals of 8 bots, the deal a third of the variance: 90.7 %
    with 1.96, 95.3 % with t)."""
    # scipy.special's inverse of t's distribution function: scipy.stats takes 0.4 s to import
    return float(stdtrit(max(deals - 1, 1), 0.975))


def deal_adjusted(scores: DealScores) -> RatingFit:
    """The fit of ``scores`` with every interval (and the covariance) from the deal
    clusters: ``Σ B Σ``, centred like the fit's own; the intervals are ± the
    :func:`deal_quantile` of the deals counted times the standard error."""
    fit = scores.fit
    problem, theta = fit._problem, fit._theta
    assert problem is not None and theta is not None
    sigma = scores.sigma
    covariance = sigma @ scores.finish() @ sigma
    spread = _newton.centred(covariance, problem, whole_ratings_block=True)
    quantile = deal_quantile(round(scores.deals))
    variances = ELO_PER_NATURAL_LOG**2 * spread.diagonals[0]
    ratings = {}
    for index, name in enumerate(fit.names):
        old = fit.ratings[name]
        stderr = math.sqrt(max(float(variances[index]), 0.0))
        ratings[name] = Rating(
            old.elo, old.elo - quantile * stderr, old.elo + quantile * stderr, stderr, old.games
        )
    seats = []
    for term in fit.seat_advantage:
        number = fit._families.index((term.key, term.players)) + 1
        variance = ELO_PER_NATURAL_LOG**2 * float(spread.diagonals[number][term.seat])
        stderr = math.sqrt(max(variance, 0.0))
        seats.append(
            replace(
                term,
                lo=term.elo - quantile * stderr,
                hi=term.elo + quantile * stderr,
                stderr=stderr,
            )
        )
    assert spread.ratings_block is not None
    return replace(
        fit,
        ratings=ratings,
        seat_advantage=tuple(seats),
        _covariance=ELO_PER_NATURAL_LOG**2 * spread.ratings_block,
    )
