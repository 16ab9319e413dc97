"""How much narrower deal-adjusted intervals can be: the bound at two seats, and more seats.

The calibration's deal model (``benchmarks/calibration.py``): eight bots of known
strength ``θ`` (ln γ), each deal between two random bots played in both seat orders, a
deal luck ``δ ~ N(0, σ²)`` favouring seat 0 in both. Bot ``i`` wins the game in which
it holds seat 0 with chance ``σ(Δ + δ)`` and the other with ``σ(Δ − δ)``, ``Δ = θ_i −
θ_j``. What the standings estimate is the *effective truth* ``β``: the Bradley–Terry
ratings that match the expected scores ``m_ij = E σ(Δ + δ)`` (luck flattens them).

:func:`two_seat_bound` computes, exactly (Gauss–Hermite quadrature, no simulation), per
bot and relative to the standard error the plain fit reports (``H⁻¹``, every game
independent):

- *ideal*: the true standard error of the standings' estimate, ``H⁻¹ B H⁻¹`` with ``B``
  the variance of a deal's score — the narrowest interval around today's estimate that
  still covers 95 %; the deal-adjusted interval estimates it;
- *bound*: the Cramér–Rao bound of any unbiased estimator of ``β`` from the deals,
  ``G J⁻¹ Gᵀ``, ``J`` the Fisher information of a deal's outcome under this model (its
  pair sum, 0, 1 or 2 wins: which of a split deal's games was won says nothing of the
  strengths, by the symmetry of ``δ``) with ``θ`` and ``σ`` unknown, ``G`` the Jacobian
  of ``β(θ, σ)``; and the same with ``σ`` known.

Per deal all are ``1/deals`` times a matrix, so the ratios hold at any number of deals
(asymptotically). :func:`rotation_event` simulates deals of ``k`` seats played in all
``k`` rotations with a luck ``N(0, σ_s²)`` per seat and deal, for the deal-adjusted
intervals' coverage and width at tables larger than two.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from goatarena.ratings.clusters import DealScores, deal_adjusted
from goatarena.ratings.fit import ELO_PER_NATURAL_LOG, fit

THETA = tuple(elo / ELO_PER_NATURAL_LOG for elo in (-210, -150, -90, -30, 30, 90, 150, 210))
"""The calibration's eight true strengths, ln γ."""
LOGISTIC_VARIANCE = math.pi**2 / 3
"""The latent variance of one pairwise result (the logistic's)."""
_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(60)
_WEIGHTS = _WEIGHTS / _WEIGHTS.sum()


def pair_luck(share: float) -> float:
    """The spread ``σ`` of a pair's luck at which the deal explains ``share`` of a
    result's latent variance: ``σ² / (σ² + π²/3) = share``."""
    return math.sqrt(share / (1.0 - share) * LOGISTIC_VARIANCE)


@dataclass(frozen=True)
class _Outcomes:
    """A deal's pair-sum chances (0, 1, 2 wins of the first bot) and their slopes."""

    chance: np.ndarray
    by_delta: np.ndarray
    by_sigma: np.ndarray


def _outcomes(delta: float, sigma: float) -> _Outcomes:
    seat0 = expit(delta + sigma * _NODES)  # the first bot's win as seat 0
    seat1 = expit(delta - sigma * _NODES)  # ... as seat 1
    slope0, slope1 = seat0 * (1 - seat0), seat1 * (1 - seat1)
    both = _WEIGHTS @ (seat0 * seat1)
    neither = _WEIGHTS @ ((1 - seat0) * (1 - seat1))
    both_delta = _WEIGHTS @ (slope0 * seat1 + seat0 * slope1)
    neither_delta = -(_WEIGHTS @ (slope0 * (1 - seat1) + (1 - seat0) * slope1))
    both_sigma = _WEIGHTS @ (_NODES * (slope0 * seat1 - seat0 * slope1))
    neither_sigma = _WEIGHTS @ (_NODES * (-slope0 * (1 - seat1) + (1 - seat0) * slope1))
    return _Outcomes(
        np.array([neither, 1 - neither - both, both]),
        np.array([neither_delta, -neither_delta - both_delta, both_delta]),
        np.array([neither_sigma, -neither_sigma - both_sigma, both_sigma]),
    )


def effective_truth(theta: Sequence[float], sigma: float) -> np.ndarray:
    """``β``: the Bradley–Terry ratings (ln γ, mean 0) of the expected scores of every
    pair, equally often met, under a pair luck of spread ``sigma`` (Newton's method)."""
    n = len(theta)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    expected = [(_outcomes(theta[i] - theta[j], sigma).chance @ [0, 0.5, 1]) for i, j in pairs]
    beta = np.array(theta, dtype=float)
    for _ in range(100):
        gradient, hessian = np.zeros(n), np.zeros((n, n))
        for (i, j), m in zip(pairs, expected, strict=True):
            p = float(expit(beta[i] - beta[j]))
            v = _direction(n, i, j)
            gradient += (m - p) * v
            hessian += p * (1 - p) * np.outer(v, v)
        step = np.linalg.pinv(hessian) @ gradient
        beta += step
        if np.abs(step).max() < 1e-13:
            break
    return beta - beta.mean()


@dataclass(frozen=True)
class TwoSeatBound:
    """Per bot, standard errors relative to the plain fit's (see the module docstring)."""

    ideal: tuple[float, ...]
    bound: tuple[float, ...]
    bound_sigma_known: tuple[float, ...]

    @property
    def mean_ideal(self) -> float:
        """The ideal ratio, averaged over the bots."""
        return statistics.fmean(self.ideal)

    @property
    def mean_bound(self) -> float:
        """The Cramér–Rao ratio (σ unknown), averaged over the bots."""
        return statistics.fmean(self.bound)

    @property
    def mean_bound_sigma_known(self) -> float:
        """The Cramér–Rao ratio with σ known, averaged over the bots."""
        return statistics.fmean(self.bound_sigma_known)


def two_seat_bound(theta: Sequence[float] = THETA, sigma: float = 0.0) -> TwoSeatBound:
    """The ideal and the Cramér–Rao standard errors of the calibration's two-seat deal
    model, over the plain fit's, per bot (exact; see the module docstring)."""
    n = len(theta)
    beta = effective_truth(theta, sigma)
    size = n + 1  # θ, then σ
    plain = np.zeros((n, n))  # per deal, averaged over the pairs
    meat = np.zeros((n, n))
    information = np.zeros((size, size))
    rating_slope = np.zeros((n, n))  # ∂F/∂θ of the moment equation of β
    luck_slope = np.zeros(n)  # ∂F/∂σ
    curvature = np.zeros((n, n))  # −∂F/∂β
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    for i, j in pairs:
        v = _direction(n, i, j)
        outer = np.outer(v, v)
        found = _outcomes(theta[i] - theta[j], sigma)
        p = float(expit(beta[i] - beta[j]))
        plain += 2 * p * (1 - p) * outer / len(pairs)
        sums = np.array([0.0, 1.0, 2.0])
        mean = found.chance @ sums
        meat += (found.chance @ (sums - mean) ** 2) * outer / len(pairs)
        for chance, by_delta, by_sigma in zip(
            found.chance, found.by_delta, found.by_sigma, strict=True
        ):
            gradient = np.append(by_delta * v, by_sigma)
            information += np.outer(gradient, gradient) / chance / len(pairs)
        rating_slope += (found.by_delta @ [0, 0.5, 1]) * outer
        luck_slope += (found.by_sigma @ [0, 0.5, 1]) * v
        curvature += p * (1 - p) * outer
    plain_cov = np.linalg.pinv(plain)
    ideal_cov = plain_cov @ meat @ plain_cov
    jacobian = np.linalg.pinv(curvature) @ np.column_stack([rating_slope, luck_slope])
    # without luck σ's direction carries no information (an odd function of the luck):
    # the pseudo-inverse leaves it out, and the bound is the σ-known one
    bound_cov = jacobian @ np.linalg.pinv(information) @ jacobian.T
    known_cov = _known_sigma(jacobian, information, n)
    base = np.sqrt(np.diag(plain_cov))
    return TwoSeatBound(
        ideal=tuple(np.sqrt(np.diag(ideal_cov)) / base),
        bound=tuple(np.sqrt(np.diag(bound_cov)) / base),
        bound_sigma_known=tuple(np.sqrt(np.diag(known_cov)) / base),
    )


def _known_sigma(jacobian: np.ndarray, information: np.ndarray, n: int) -> np.ndarray:
    ratings = jacobian[:, :n]
    return ratings @ np.linalg.pinv(information[:n, :n]) @ ratings.T


def _direction(n: int, i: int, j: int) -> np.ndarray:
    v = np.zeros(n)
    v[i], v[j] = 1.0, -1.0
    return v


def two_seat_deal(
    rng: random.Random, sigma: float, theta: Sequence[float] = THETA
) -> list[dict[str, int]]:
    """Both seat orders of one deal between two random bots, a luck ``N(0, sigma²)``
    favouring seat 0 in both (the calibration's deal model)."""
    a, b = rng.sample(range(len(theta)), 2)
    luck = rng.gauss(0.0, sigma)
    games = []
    for first, second in ((a, b), (b, a)):
        wins = rng.random() < expit(theta[first] - theta[second] + luck)
        games.append({f"b{first}": 1 if wins else 2, f"b{second}": 2 if wins else 1})
    return games


def seat_luck(share: float) -> float:
    """The spread of each seat's luck at a table of any size at which the deal explains
    ``share`` of a pairwise result's latent variance (a pair's luck is the difference
    of two seats', so twice the variance of one)."""
    return pair_luck(share) / math.sqrt(2.0)


def rotated_luck_deal(
    rng: random.Random, k: int, luck: float, theta: Sequence[float] = THETA
) -> list[dict[str, int]]:
    """One deal of ``k`` random bots in all ``k`` seat rotations, each seat's luck
    ``N(0, luck²)`` drawn once for the deal; Plackett–Luce finishes, bots in seat order."""
    table = rng.sample(range(len(theta)), k)
    shift = [rng.gauss(0.0, luck) for _ in range(k)]
    games = []
    for turn in range(k):
        seated = table[turn:] + table[:turn]
        weight = [math.exp(theta[b] + shift[s]) for s, b in enumerate(seated)]
        remaining, rank = list(range(k)), [0] * k
        for place in range(1, k + 1):
            pick = rng.random() * sum(weight[s] for s in remaining)
            for s in remaining:
                pick -= weight[s]
                if pick <= 0.0:
                    break
            rank[s] = place
            remaining.remove(s)
        games.append({f"b{seated[s]}": rank[s] for s in range(k)})
    return games


@dataclass(frozen=True)
class RotationRow:
    """Deals of ``seats`` in all rotations: coverage of the plain and the deal-adjusted
    intervals, the deal-adjusted interval's width over the plain one's (Student's t
    quantile included), and the root mean squared
    error of the estimates over the plain standard error (the width an interval that
    knew the estimate's true spread would have, relative to the plain one)."""

    seats: int
    deals: int
    plain_coverage: float
    adjusted_coverage: float
    width: float
    spread: float


def rotation_event(seats: int, deals: int, share: float, events: int, seed: int) -> RotationRow:
    """``events`` simulated events of ``deals`` deals each (:func:`rotated_luck_deal`,
    the deal explaining ``share`` of the variance), fitted with seat terms as the
    standings are."""
    rng = random.Random(seed)
    luck = seat_luck(share) if share else 0.0
    truth = effective_truth(THETA, math.sqrt(2.0) * luck)
    names = [f"b{b}" for b in range(len(THETA))]
    errors: dict[str, list[float]] = {name: [] for name in names}
    plain_se: dict[str, list[float]] = {name: [] for name in names}
    plain_width: dict[str, list[float]] = {name: [] for name in names}
    adjusted_width: dict[str, list[float]] = {name: [] for name in names}
    plain_hits = adjusted_hits = 0
    for _ in range(events):
        played = [rotated_luck_deal(rng, seats, luck) for _ in range(deals)]
        games = [game for deal in played for game in deal]
        plain = fit(games, seat_keys=["g"] * len(games))
        scores = DealScores(plain)
        for number, deal in enumerate(played):
            for game in deal:
                scores.add(f"d{number}", list(game), list(game.values()), "g")
        adjusted = deal_adjusted(scores)
        for b, name in enumerate(names):
            true_elo = 1500.0 + ELO_PER_NATURAL_LOG * truth[b]
            p, a = plain.ratings[name], adjusted.ratings[name]
            errors[name].append(p.elo - true_elo)
            plain_se[name].append(p.stderr)
            plain_width[name].append(p.hi - p.lo)
            adjusted_width[name].append(a.hi - a.lo)
            plain_hits += p.lo <= true_elo <= p.hi
            adjusted_hits += a.lo <= true_elo <= a.hi
    total = events * len(names)
    return RotationRow(
        seats=seats,
        deals=deals,
        plain_coverage=plain_hits / total,
        adjusted_coverage=adjusted_hits / total,
        width=statistics.fmean(
            statistics.fmean(adjusted_width[n]) / statistics.fmean(plain_width[n]) for n in names
        ),
        spread=statistics.fmean(
            math.sqrt(statistics.fmean(e * e for e in errors[n])) / statistics.fmean(plain_se[n])
            for n in names
        ),
    )
