"""The exact Plackett–Luce fit against a brute-force maximisation of the explicit
likelihood (a product of choice probabilities, written out here), and against the
pairwise fit at two seats, where the two models are the same."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from scipy.optimize import minimize

from goatarena.ratings.fit import ELO_PER_NATURAL_LOG, fit
from goatarena.ratings.plackett_luce import fit_plackett_luce
from tests.test_ratings import tournament


def brute_force(games, keys, prior):
    """θ (bots by name, then each (key, size)'s seats) maximising the likelihood times the
    prior (which fixes every block's mean), found by scipy from the explicit formula."""
    names = sorted({name for game in games for name in game})
    families = sorted({(key, len(game)) for game, key in zip(games, keys) if key})
    start = {family: len(names) + sum(f[1] for f in families[:n])
             for n, family in enumerate(families)}  # fmt: skip
    size = len(names) + sum(f[1] for f in families)

    def strength(x, game, key, seat, name):
        u = x[names.index(name)]
        if key:
            u += x[start[key, len(game)] + seat]
        return u

    def minus_log_likelihood(x):
        total = 0.0
        for game, key in zip(games, keys):
            entries = [(rank, strength(x, game, key, seat, name))
                       for seat, (name, rank) in enumerate(game.items())]  # fmt: skip
            for rank, u in entries:
                left = [v for r, v in entries if r >= rank]
                total -= u - math.log(sum(math.exp(v) for v in left))
        if prior:
            total -= (
                0.5 * prior * sum(-math.log1p(math.exp(-v)) - math.log1p(math.exp(v)) for v in x)
            )
        return total

    result = minimize(minus_log_likelihood, np.zeros(size), method="BFGS", options={"gtol": 1e-9})
    return names, result.x, start


def random_games(rng, sizes, count, ties=0.0):
    elos = {f"b{n}": rng.uniform(-250, 250) for n in range(6)}
    games = tournament(rng, elos, sizes, count)
    for game in games:
        if rng.random() < ties:
            first, second = rng.sample(list(game), 2)
            game[second] = game[first]
    return games


@pytest.mark.parametrize("seed", range(4))
def test_the_exact_fit_is_the_brute_force_maximum(seed):
    rng = random.Random(300 + seed)
    games = random_games(rng, [[3], [4], [3, 5], [6]][seed], 30, ties=0.2 * (seed % 2))
    keys = ["g" if seed >= 2 else None] * len(games)
    exact = fit_plackett_luce(games, seat_keys=keys, prior_draws=1.0)
    names, x, starts = brute_force(games, keys, 1.0)
    elos = ELO_PER_NATURAL_LOG * (x[: len(names)] - np.mean(x[: len(names)])) + 1500
    for name, elo in zip(names, elos):
        assert exact.ratings[name].elo == pytest.approx(elo, abs=1e-3)
    for term in exact.seat_advantage:
        start = starts[term.key, term.players]
        offsets = x[start : start + term.players]
        truth = ELO_PER_NATURAL_LOG * (offsets[term.seat] - np.mean(offsets))
        assert term.elo == pytest.approx(truth, abs=1e-3)


def test_the_intervals_are_the_inverse_of_the_likelihoods_curvature():
    rng = random.Random(7)
    games = random_games(rng, [4], 40)
    keys = [None] * len(games)
    exact = fit_plackett_luce(games, prior_draws=1.0)
    names, x, _ = brute_force(games, keys, 1.0)

    def objective(y):
        return minimize_target(games, names, y)

    step = 1e-4
    size = len(names)
    hess = np.zeros((size, size))
    for a in range(size):
        for b in range(size):
            e_a, e_b = np.eye(size)[a] * step, np.eye(size)[b] * step
            hess[a, b] = (objective(x + e_a + e_b) - objective(x + e_a - e_b)
                          - objective(x - e_a + e_b) + objective(x - e_a - e_b)) / (4 * step**2)  # fmt: skip
    centre = np.eye(size) - 1.0 / size  # the intervals are of the mean-centred ratings
    covariance = centre @ np.linalg.inv(hess) @ centre * ELO_PER_NATURAL_LOG**2
    for number, name in enumerate(names):
        assert exact.ratings[name].stderr == pytest.approx(
            math.sqrt(covariance[number, number]), rel=1e-3
        )


def minimize_target(games, names, x):
    """The negative log-likelihood plus the prior of one draw (no seat terms)."""
    total = 0.0
    for game in games:
        entries = [(rank, x[names.index(name)]) for name, rank in game.items()]
        for rank, u in entries:
            total -= u - math.log(sum(math.exp(v) for r, v in entries if r >= rank))
    return total + 0.5 * sum(math.log1p(math.exp(-v)) + math.log1p(math.exp(v)) for v in x)


def test_at_two_seats_the_exact_fit_is_the_pairwise_fit():
    rng = random.Random(11)
    games = random_games(rng, [2], 60)
    keys = ["g"] * len(games)
    exact = fit_plackett_luce(games, seat_keys=keys)
    pairwise = fit(games, seat_keys=keys)
    for name in pairwise.names:
        for field in ("elo", "lo", "hi", "stderr"):
            assert getattr(exact.ratings[name], field) == pytest.approx(
                getattr(pairwise.ratings[name], field), abs=1e-6
            )
    for a, b in zip(exact.seat_advantage, pairwise.seat_advantage, strict=True):
        assert a.elo == pytest.approx(b.elo, abs=1e-6)
        assert a.stderr == pytest.approx(b.stderr, abs=1e-6)
