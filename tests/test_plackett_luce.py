"""The exact Plackett–Luce fit (the default for tables of 3–6 bots) against a brute-force
maximisation of the explicit likelihood (a product of choice probabilities, written out
here; a tie the mean of the log-likelihoods of the orders it allows), and against the
pairwise fit at two seats, where the two models are the same."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest
from scipy.optimize import minimize

from goatarena.ratings import _orders
from goatarena.ratings.fit import ELO_PER_NATURAL_LOG, fit
from tests.test_ratings import tournament


def orders_allowed(ranks):
    """Every strict order (seat numbers, best first) that the ranks allow."""
    groups = [[f for f, r in enumerate(ranks) if r == rank] for rank in sorted(set(ranks))]
    for choice in itertools.product(*(itertools.permutations(group) for group in groups)):
        yield [f for part in choice for f in part]


def order_minus_log_likelihood(utilities, order):
    """The Plackett–Luce negative log-likelihood of one strict order."""
    total = 0.0
    for t, f in enumerate(order):
        total -= utilities[f] - math.log(sum(math.exp(utilities[g]) for g in order[t:]))
    return total


def game_minus_log_likelihood(utilities, ranks):
    """A game's: the mean over the orders its ties allow."""
    orders = list(orders_allowed(ranks))
    return sum(order_minus_log_likelihood(utilities, o) for o in orders) / len(orders)


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
            utilities = [strength(x, game, key, seat, name)
                         for seat, name in enumerate(game)]  # fmt: skip
            total += game_minus_log_likelihood(utilities, list(game.values()))
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


@pytest.mark.parametrize("seed", range(5))
def test_the_exact_fit_is_the_brute_force_maximum(seed):
    rng = random.Random(300 + seed)
    sizes = [[3], [4], [3, 5], [6], [2, 4]][seed]
    games = random_games(rng, sizes, 30, ties=[0.0, 0.3, 0.0, 0.3, 0.3][seed])
    keys = ["g" if seed >= 2 else None] * len(games)
    exact = fit(games, seat_keys=keys, prior_draws=1.0)
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
    exact = fit(games, prior_draws=1.0)
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
        utilities = [x[names.index(name)] for name in game]
        total += game_minus_log_likelihood(utilities, list(game.values()))
    return total + 0.5 * sum(math.log1p(math.exp(-v)) + math.log1p(math.exp(v)) for v in x)


def test_at_two_seats_the_exact_fit_is_the_pairwise_fit():
    rng = random.Random(11)
    games = random_games(rng, [2], 60)
    keys = ["g"] * len(games)
    exact = fit(games, seat_keys=keys)
    pairwise = fit(games, seat_keys=keys, exact=False)
    for name in pairwise.names:
        for field in ("elo", "lo", "hi", "stderr"):
            assert getattr(exact.ratings[name], field) == pytest.approx(
                getattr(pairwise.ratings[name], field), abs=1e-6
            )
    for a, b in zip(exact.seat_advantage, pairwise.seat_advantage, strict=True):
        assert a.elo == pytest.approx(b.elo, abs=1e-6)
        assert a.stderr == pytest.approx(b.stderr, abs=1e-6)


def test_the_fit_of_mixed_table_sizes_and_ties_is_the_brute_force_maximum():
    rng = random.Random(91)
    games = random_games(rng, [2, 3, 6], 40, ties=0.5)
    for game in games[::3]:  # three-way ties too
        if len(game) >= 3:
            first, second, third = list(game)[:3]
            game[second] = game[third] = game[first]
    keys = ["g"] * len(games)
    exact = fit(games, seat_keys=keys, prior_draws=1.0)
    names, x, _ = brute_force(games, keys, 1.0)
    elos = ELO_PER_NATURAL_LOG * (x[: len(names)] - np.mean(x[: len(names)])) + 1500
    for name, elo in zip(names, elos):
        assert exact.ratings[name].elo == pytest.approx(elo, abs=1e-3)


@pytest.mark.parametrize("ranks", [(1, 2, 3, 4), (2, 1, 2, 4, 4), (1, 1, 1), (3, 1, 3, 1, 3, 6)])
def test_a_games_terms_are_those_of_the_mean_over_its_orders(ranks):
    """The gradient and Hessian of a pattern are the numeric ones of the averaged
    likelihood, and its tie spread is the covariance of the orders' gradients."""
    rng = random.Random(sum(ranks))
    u = np.array([rng.uniform(-1.5, 1.5) for _ in ranks])
    competition = _orders.competition_ranks(ranks)
    grad, hess = _orders.game_terms(u, competition)
    step = 1e-5

    def value(v):
        return game_minus_log_likelihood(list(v), list(ranks))

    eye = np.eye(len(u))
    numeric = [(value(u + step * e) - value(u - step * e)) / (2 * step) for e in eye]
    assert grad == pytest.approx(numeric, abs=1e-7)
    for f in range(len(u)):
        column = [(value(u + step * (eye[f] + e)) - value(u + step * (eye[f] - e))
                   - value(u - step * (eye[f] - e)) + value(u - step * (eye[f] + e)))
                  / (4 * step**2) for e in eye]  # fmt: skip
        assert hess[f] == pytest.approx(column, abs=1e-4)
    gradients = []
    for order in orders_allowed(ranks):
        gradients.append(
            [(order_minus_log_likelihood(list(u + step * e), order)
              - order_minus_log_likelihood(list(u - step * e), order)) / (2 * step) for e in eye]
        )  # fmt: skip
    expected = np.cov(np.array(gradients).T, bias=True) if len(gradients) > 1 else None
    group = _orders.OrderGroup(
        _orders.structure(competition),
        np.arange(len(u))[None, :],
        np.full((1, len(u)), -1),
        np.ones(1),
    )
    spread = _orders.tie_spread(u, group)
    if expected is None:
        assert spread is None
    else:
        assert spread is not None
        assert spread[0] == pytest.approx(expected, abs=1e-7)


@pytest.mark.slow
def test_two_hundred_shuffles_fit_exactly_alike():
    """The exact fit sums its patterns in an order of their own: any order of the games
    (and, without seat terms, of a table's bots) gives the same bits."""
    rng = random.Random(17)
    games = random_games(rng, [2, 3, 4, 6], 100, ties=0.3)
    keys = [rng.choice(["g", None]) for _ in games]
    reference = fit(games, seat_keys=keys)
    for seed in range(200):
        order = list(range(len(games)))
        random.Random(seed).shuffle(order)
        shuffled = [
            games[n] if keys[n] else dict(random.Random(seed + n).sample(list(games[n].items()),
                                                                          len(games[n])))
            for n in order
        ]  # fmt: skip
        assert fit(shuffled, seat_keys=[keys[n] for n in order]) == reference


def test_a_long_history_is_pairwise_before_its_last_point(monkeypatch):
    """The report's rating history of many finishes: the points before the last are the
    pairwise fit of their games, the last the standings' exact one."""
    from goatarena.ratings.standings import compute_standings
    from goatarena.report import data
    from tests.test_report import stored_games

    results = [game.result for game in stored_games(per_game=4, players=4)]
    monkeypatch.setattr(data, "EXACT_HISTORY", 0)
    history = data.rating_history(results, checkpoints=2)
    rows = {row.bot: row for row in compute_standings("t", results).standings["overall"]}
    half = results[: round(len(results) / 2)]
    early = fit(list(_as_games(half)), seat_keys=[r.game for r in half], exact=False)
    for bot, points in history.items():
        assert points[-1][1:] == (rows[bot].elo, rows[bot].lo, rows[bot].hi)
        if bot in early.ratings:
            assert points[0][1] == round(early.ratings[bot].elo, 1)


def _as_games(results):
    for result in results:
        yield dict(zip(result.players, result.ranks, strict=True))
