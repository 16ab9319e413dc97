"""Deal-adjusted intervals (goatarena.ratings.clusters): the two rotations of a two-player
deal share its luck, a deal effect ``δ ~ N(0, σ²)`` (ln γ units) that favours whoever
holds seat 0. Counting the deal as one unit, the intervals must still cover the truth
92–98 % of the time, and be narrower where the luck is strong (each bot holds the lucky
seat once per deal, so the luck cancels within the deal). Measured (100 events of 75
deals, 8 bots): without luck coverage 96.1 % (the fit's own 96.3 %), width 1.045 of the
fit's; with the deal explaining a third of the latent variance 95.1 % (97.1 %), width
0.93; with two thirds 95.5 % (99.5 %), width 0.79."""

from __future__ import annotations

import math
import random
import statistics

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit, log_expit

from goatarena.ratings.clusters import DealScores, deal_adjusted
from goatarena.ratings.fit import ELO_PER_NATURAL_LOG, fit

BOTS = 8
THETA = [elo / ELO_PER_NATURAL_LOG for elo in (-210, -150, -90, -30, 30, 90, 150, 210)]
STRONG = math.sqrt(math.pi**2 / 3 / 2)
"""The deal-luck spread at which the deal explains a third of a game's latent variance
(the logistic's is π²/3)."""


def effective_truth(sigma: float) -> dict[str, float]:
    """The Elo a fit of infinitely many such games finds: the Bradley–Terry ratings that
    best match the expected scores ``E σ(Δ + δ)`` (luck averages out of neither)."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(40)
    weights = weights / weights.sum()
    pairs = [(i, j) for i in range(BOTS) for j in range(i + 1, BOTS)]
    expected = [float(weights @ expit(THETA[i] - THETA[j] + sigma * nodes)) for i, j in pairs]

    def loss(theta: np.ndarray) -> float:
        total = 0.0
        for (i, j), p in zip(pairs, expected, strict=True):
            d = theta[i] - theta[j]
            total -= p * log_expit(d) + (1 - p) * log_expit(-d)
        return total

    theta = minimize(loss, np.zeros(BOTS), method="BFGS", options={"gtol": 1e-10}).x
    theta -= theta.mean()
    return {f"b{b}": 1500.0 + ELO_PER_NATURAL_LOG * theta[b] for b in range(BOTS)}


def deal(rng: random.Random, sigma: float) -> list[dict[str, int]]:
    """Both rotations of one deal between two random bots."""
    a, b = rng.sample(range(BOTS), 2)
    luck = rng.gauss(0.0, sigma)
    games = []
    for first, second in ((a, b), (b, a)):
        wins = rng.random() < expit(THETA[first] - THETA[second] + luck)
        games.append({f"b{first}": 1 if wins else 2, f"b{second}": 2 if wins else 1})
    return games


@pytest.mark.slow
@pytest.mark.parametrize("sigma", [0.0, STRONG])
def test_deal_adjusted_intervals_cover_the_truth_and_narrow_with_deal_luck(sigma):
    rng = random.Random(2800 + int(10 * sigma))
    truth = effective_truth(sigma)
    covered = total = 0
    ratios = []
    for _ in range(100):
        deals = [deal(rng, sigma) for _ in range(75)]
        plain = fit([game for pair in deals for game in pair])
        scores = DealScores(plain)
        for number, pair in enumerate(deals):
            for game in pair:
                scores.add(f"d{number}", list(game), list(game.values()))
        adjusted = deal_adjusted(scores)
        assert scores.deals == len(deals)
        for name, rating in adjusted.ratings.items():
            total += 1
            covered += rating.lo <= truth[name] <= rating.hi
            ratios.append(rating.stderr / plain.ratings[name].stderr)
    ratio = statistics.fmean(ratios)
    assert 0.92 <= covered / total <= 0.98, covered / total
    if sigma:
        assert ratio <= 0.95, ratio
    else:
        assert 0.9 <= ratio <= 1.1, ratio


def test_one_game_per_deal_is_the_sandwich_over_games():
    # two bots, A wins 3 of 4: at the MLE (no prior) p = ¾ and every game's score is
    # ±(y − p); Σ (y − p)² = 3·(¼)² + (¾)² = ¾ = H. Each game's leverage is its share of
    # the curvature, ¼, so its residual is divided by 1 − ¼: the variance is the fit's
    # times (4/3)², the standard error times 4/3.
    games = [{"A": 1, "B": 2}] * 3 + [{"B": 1, "A": 2}]
    plain = fit(games, prior_draws=0)
    scores = DealScores(plain)
    for number, game in enumerate(games):
        scores.add(str(number), list(game), list(game.values()))
    adjusted = deal_adjusted(scores)
    assert adjusted.ratings["A"].stderr == pytest.approx(plain.ratings["A"].stderr * 4 / 3)
    assert adjusted.cov("A", "B") == pytest.approx(plain.cov("A", "B") * 16 / 9)


def test_a_deal_whose_rotations_split_evenly_adds_no_spread():
    games = [{"A": 1, "B": 2}, {"B": 1, "A": 2}] * 2
    plain = fit(games, prior_draws=0)  # p = ½; each deal: A won once, lost once
    scores = DealScores(plain)
    for number, game in enumerate(games):
        scores.add(f"d{number // 2}", list(game), list(game.values()))
    adjusted = deal_adjusted(scores)
    assert scores.deals == 2
    assert adjusted.ratings["A"].stderr == pytest.approx(0.0, abs=1e-9)
    assert plain.ratings["A"].stderr > 50


def rotated_deal(rng: random.Random, k: int, seat_elo: list[float]) -> list[dict[str, int]]:
    """All k rotations of one deal of k random bots, with seat advantages and no luck:
    Plackett–Luce finishes, bots listed in seat order."""
    table = rng.sample(range(BOTS), k)
    games = []
    for turn in range(k):
        seated = table[turn:] + table[:turn]
        weight = [math.exp(THETA[b] + seat_elo[s] / ELO_PER_NATURAL_LOG)
                  for s, b in enumerate(seated)]  # fmt: skip
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


@pytest.mark.slow
def test_at_four_seats_with_seat_terms_the_deal_adjusted_intervals_cover_the_truth():
    """Measured: ratings 95.2 % (the fit's own 96.1 %); with 15 deals an event instead of
    40, 93.3 % (a uniform small-sample factor G/(G − q) instead of each deal's leverage
    gave 98.6 % there)."""
    rng = random.Random(2900)
    seat_elo = [45.0, 15.0, -15.0, -45.0]
    truth = {f"b{b}": 1500.0 + ELO_PER_NATURAL_LOG * THETA[b] for b in range(BOTS)}
    covered = total = seat_covered = seat_total = 0
    for _ in range(80):
        deals = [rotated_deal(rng, 4, seat_elo) for _ in range(40)]
        games = [game for one in deals for game in one]
        plain = fit(games, seat_keys=["g"] * len(games))
        scores = DealScores(plain)
        for number, one in enumerate(deals):
            for game in one:
                scores.add(f"d{number}", list(game), list(game.values()), "g")
        adjusted = deal_adjusted(scores)
        for name, rating in adjusted.ratings.items():
            total += 1
            covered += rating.lo <= truth[name] <= rating.hi
        for term in adjusted.seat_advantage:
            seat_total += 1
            seat_covered += term.lo <= seat_elo[term.seat] <= term.hi
    assert 0.92 <= covered / total <= 0.98, covered / total
    assert 0.90 <= seat_covered / seat_total <= 0.99, seat_covered / seat_total
