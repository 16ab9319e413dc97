"""The NumPy fit gives the answers of the pure-Python fit it replaced (tests/reference_fit.py):
ratings, intervals, seat advantages and covariances to 1e-6 Elo, on this suite's fixtures
and on random events of every table size, with ties, seat keys and without the prior.
The old fit's intervals ignored ties, so they are compared with ``tie_aware=False``; it
fitted tables of every size pairwise, so it is compared with ``exact=False`` (the exact
fit of tables of 3–6 is tests/test_plackett_luce.py's)."""

from __future__ import annotations

import random

import pytest

from goatarena.ratings.fit import fit
from goatarena.ratings.points import fitted_elo
from tests import reference_fit
from tests.test_ratings import tournament

TOLERANCE = 1e-6


def shortfall(games, keys, prior) -> float:
    """How far (Elo) the old fit stopped short of its optimum: one more Newton step from
    where it stopped. Its line search, comparing objectives that differ by less than their
    rounding error near the optimum, now and then gave up a step early (by up to ~1e-5
    Elo); the new fit takes that last step, so the answers agree within this distance."""
    r = reference_fit
    names = r._names(games)
    families = r._families(games, keys)
    offsets, blocks, start = {}, [(0, len(names))], len(names)
    for family in families:
        offsets[family] = start
        blocks.append((start, family[1]))
        start += family[1]
    pairs = r._pairs(r._tally(games, names, keys, offsets))
    theta, _ = r._maximise(start, pairs, prior, blocks)
    grad, hess = r._derivatives(theta, pairs, prior, blocks)
    step = r.solve(r.cholesky(hess), [-g for g in grad])
    return r.ELO_PER_NATURAL_LOG * max(abs(value) for value in step)


def random_event(rng: random.Random, bots: int, games: int, sizes: list[int], ties: float):
    """Games of random strengths at random tables, some ranks tied."""
    elos = {f"b{number:02d}": rng.uniform(-300, 300) for number in range(bots)}
    played = tournament(rng, elos, sizes, games)
    for game in played:
        if rng.random() < ties:
            first, second = rng.sample(list(game), 2)
            game[second] = game[first]
    return played


def assert_same(new, old, slack=0.0):
    """Ratings, intervals, seat terms within TOLERANCE (plus ``slack`` Elo; twice that for
    the interval ends, which move with the estimate); covariances to 1e-9 of their size."""
    assert new.names == old.names
    assert new.groups == old.groups
    for name in old.names:
        a, b = new.ratings[name], old.ratings[name]
        assert a.games == b.games
        for field in ("elo", "lo", "hi", "stderr"):
            assert getattr(a, field) == pytest.approx(getattr(b, field), abs=TOLERANCE + 2 * slack)
    assert len(new.seat_advantage) == len(old.seat_advantage)
    for a, b in zip(new.seat_advantage, old.seat_advantage, strict=True):
        assert (a.key, a.players, a.seat) == (b.key, b.players, b.seat)
        for field in ("elo", "lo", "hi", "stderr"):
            assert getattr(a, field) == pytest.approx(getattr(b, field), abs=TOLERANCE + 2 * slack)
    if slack:
        return
    for r, row in enumerate(old.covariance):  # Elo², so relative: 1e-9 of 250² is 6e-5
        for c, value in enumerate(row):
            assert new.covariance[r, c] == pytest.approx(value, rel=1e-9, abs=TOLERANCE)


FIXTURES = {
    "two bots": [{"a": 1, "b": 2}, {"a": 2, "b": 1}, {"a": 1, "b": 2}],
    "a tie and a table of three": [{"a": 1, "b": 1}, {"b": 1, "c": 2, "a": 3}, {"c": 1, "a": 2}],
    "a chain": [{"a": 1, "b": 2}, {"b": 1, "c": 2}, {"c": 1, "d": 2}, {"d": 1, "a": 2}],
    "two groups": [{"a": 1, "b": 2}, {"b": 1, "a": 2}, {"c": 1, "d": 2}],
    "a perfect score": [{"a": 1, "b": 2}, {"a": 1, "b": 2}, {"a": 1, "c": 2}],
}


@pytest.mark.parametrize("games", list(FIXTURES.values()), ids=list(FIXTURES))
@pytest.mark.parametrize("seats", [False, True], ids=["no seats", "seats"])
def test_the_fixtures_fit_as_before(games, seats):
    keys = ["g"] * len(games) if seats else None
    assert shortfall(games, keys, 1.0) < TOLERANCE / 10
    assert_same(
        fit(games, seat_keys=keys, tie_aware=False, exact=False),
        reference_fit.fit(games, seat_keys=keys),
    )


@pytest.mark.parametrize("seed", range(12))
def test_random_events_fit_as_before(seed):
    rng = random.Random(seed)
    sizes = rng.choice([[2], [4], [2, 3], [3, 5, 6]])
    games = random_event(rng, rng.randint(2, 14), rng.randint(5, 120), sizes, ties=0.2)
    keys = [rng.choice(["x", "y", None]) for _ in games] if seed % 3 else None
    prior = rng.choice([1.0, 0.5, 2.0])
    assert_same(
        fit(games, seat_keys=keys, prior_draws=prior, tie_aware=False, exact=False),
        reference_fit.fit(games, seat_keys=keys, prior_draws=prior),
        slack=shortfall(games, keys, prior),
    )


@pytest.mark.parametrize("seed", range(4))
def test_random_events_without_the_prior_fit_as_before(seed):
    rng = random.Random(100 + seed)
    games = random_event(rng, 6, 400, [2, 3, 4], ties=0.1)  # enough games: the plain MLE exists
    keys = ["x"] * len(games) if seed % 2 else None
    assert_same(
        fit(games, seat_keys=keys, prior_draws=0.0, tie_aware=False, exact=False),
        reference_fit.fit(games, seat_keys=keys, prior_draws=0.0),
        slack=shortfall(games, keys, 0.0),
    )


def test_the_point_estimates_of_a_swiss_round_are_the_full_fits():
    rng = random.Random(7)
    games = random_event(rng, 30, 300, [2, 4], ties=0.1)
    full = fit(games)
    for name, elo in fitted_elo(games).items():
        assert elo == pytest.approx(full.ratings[name].elo, abs=TOLERANCE)
    two_seat = [game for game in games if len(game) == 2]
    old = reference_fit.fit(two_seat)
    slack = shortfall(two_seat, None, 1.0)
    for name, elo in fitted_elo(two_seat).items():
        assert elo == pytest.approx(old.ratings[name].elo, abs=TOLERANCE + slack)


def test_a_large_field_solved_by_conjugate_gradients_fits_as_the_dense_solve(monkeypatch):
    from goatarena.ratings import _newton

    rng = random.Random(11)
    games = random_event(rng, 60, 600, [2, 4], ties=0.1)
    keys = ["x"] * len(games)
    dense = fit(games, seat_keys=keys)
    monkeypatch.setattr(_newton, "DENSE_LIMIT", 10)
    sparse = fit(games, seat_keys=keys)
    for name in dense.names:
        assert sparse.ratings[name].elo == pytest.approx(dense.ratings[name].elo, abs=TOLERANCE)
        assert sparse.ratings[name].lo == pytest.approx(dense.ratings[name].lo, abs=TOLERANCE)
