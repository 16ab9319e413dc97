"""The limit of deal-adjusted intervals (goatarena.bench.deal_bound): the exact bound at two
seats against its identities and a simulation, and deals of six seats in all rotations."""

from __future__ import annotations

import math
import random
import statistics

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit, log_expit

from goatarena.bench.deal_bound import (
    THETA,
    _outcomes,
    effective_truth,
    pair_luck,
    rotation_event,
    two_seat_bound,
    two_seat_deal,
)
from goatarena.ratings.clusters import deal_quantile
from goatarena.ratings.fit import ELO_PER_NATURAL_LOG, fit


def reference_truth(sigma: float) -> dict[str, float]:
    """The effective truth another way: Monte Carlo expected scores (common random
    numbers), the Bradley–Terry loss minimised by BFGS."""
    luck = np.random.default_rng(5).standard_normal(400_000) * sigma
    pairs = [(i, j) for i in range(len(THETA)) for j in range(i + 1, len(THETA))]
    expected = [float(expit(THETA[i] - THETA[j] + luck).mean()) for i, j in pairs]

    def loss(theta: np.ndarray) -> float:
        total = 0.0
        for (i, j), p in zip(pairs, expected, strict=True):
            total -= p * log_expit(theta[i] - theta[j]) + (1 - p) * log_expit(theta[j] - theta[i])
        return total

    theta = minimize(loss, np.zeros(len(THETA)), method="BFGS", options={"gtol": 1e-10}).x
    theta -= theta.mean()
    return {f"b{b}": 1500.0 + ELO_PER_NATURAL_LOG * theta[b] for b in range(len(THETA))}


def test_without_luck_every_ratio_is_one():
    found = two_seat_bound(sigma=0.0)
    for values in (found.ideal, found.bound, found.bound_sigma_known):
        assert values == pytest.approx([1.0] * len(THETA))


def test_two_even_bots_the_bound_is_the_pair_score_s_own_variance():
    # Two bots: the outcome (0, 1 or 2 wins) has two free chances and the model two
    # parameters, so nothing beats the mean score: bound = ideal = sqrt(Var S / 2p(1-p)).
    sigma = pair_luck(1 / 3)
    found = two_seat_bound((0.0, 0.0), sigma)
    chances = _outcomes(0.0, sigma).chance
    variance = chances @ [0.0, 1.0, 4.0] - (chances @ [0.0, 1.0, 2.0]) ** 2
    assert found.ideal[0] == pytest.approx(math.sqrt(variance / 0.5), rel=1e-9)
    assert found.bound[0] == pytest.approx(found.ideal[0], rel=1e-9)
    uneven = two_seat_bound((-0.6, 0.6), sigma)
    assert uneven.bound[0] == pytest.approx(uneven.ideal[0], rel=1e-9)


def test_at_a_third_of_the_variance_no_estimator_is_15_percent_narrower():
    found = two_seat_bound(sigma=pair_luck(1 / 3))
    for ideal, bound, known in zip(found.ideal, found.bound, found.bound_sigma_known, strict=True):
        assert known <= bound + 1e-12 <= ideal + 2e-12  # knowing more never costs
        assert bound > 0.85  # the goal's limit at two seats with two rotations
    assert two_seat_bound(sigma=pair_luck(2 / 3)).mean_bound < 0.85  # reached with more luck


def test_the_effective_truth_agrees_with_a_monte_carlo_fit_of_the_expected_scores():
    sigma = pair_luck(1 / 3)
    mine = effective_truth(THETA, sigma)
    theirs = reference_truth(sigma)
    for b, value in enumerate(mine):
        assert 1500 + ELO_PER_NATURAL_LOG * value == pytest.approx(theirs[f"b{b}"], abs=0.3)


@pytest.mark.slow
def test_the_ideal_is_the_simulated_spread_of_the_standings_estimate():
    # large events, so that the prior's pull and the small-sample error are negligible
    sigma = pair_luck(1 / 3)
    rng = random.Random(31)
    truth = reference_truth(sigma)
    errors: dict[str, list[float]] = {name: [] for name in truth}
    stderrs: dict[str, list[float]] = {name: [] for name in truth}
    for _ in range(150):
        played = [game for _ in range(600) for game in two_seat_deal(rng, sigma)]
        result = fit(played)
        for name, rating in result.ratings.items():
            errors[name].append(rating.elo - truth[name])
            stderrs[name].append(rating.stderr)
    simulated = statistics.fmean(
        math.sqrt(statistics.fmean(e * e for e in errors[n])) / statistics.fmean(stderrs[n])
        for n in truth
    )
    exact = two_seat_bound(sigma=sigma).mean_ideal
    assert simulated == pytest.approx(exact, abs=0.03), (simulated, exact)


def test_the_deal_quantile_is_student_s():
    assert deal_quantile(75) == pytest.approx(1.9925, abs=1e-4)
    assert deal_quantile(7) == pytest.approx(2.4469, abs=1e-4)
    assert deal_quantile(1) == deal_quantile(2) == pytest.approx(12.706, abs=1e-3)


@pytest.mark.slow
def test_at_six_seats_with_many_deals_the_intervals_are_15_percent_narrower_and_cover():
    row = rotation_event(6, 120, 1 / 3, 60, 4242)
    assert 0.92 <= row.adjusted_coverage <= 0.98, row
    assert row.plain_coverage > 0.975  # the plain intervals are too wide there
    assert row.width <= 0.86, row


@pytest.mark.slow
def test_with_few_deals_the_t_quantile_keeps_the_coverage():
    row = rotation_event(6, 7, 1 / 3, 120, 4343)
    assert 0.92 <= row.adjusted_coverage <= 0.98, row
