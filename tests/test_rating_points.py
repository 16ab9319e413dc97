"""The quick point-estimate fit used to pair Swiss rounds agrees with the full fit."""

from __future__ import annotations

import random

import pytest

from goatarena.bench.swiss_sim import run_random
from goatarena.ratings.fit import fit_ratings
from goatarena.ratings.points import fitted_elo


@pytest.mark.parametrize(("bots", "seats", "rounds", "seed"),
                         [(16, 2, 6, 1), (20, 3, 4, 2), (24, 4, 3, 3), (30, 6, 3, 4)])  # fmt: skip
def test_fitted_elo_is_the_full_fits_point_estimate(
    bots: int, seats: int, rounds: int, seed: int
) -> None:
    games = run_random(bots, seats, rounds, seed).games
    full = fit_ratings(games)
    quick = fitted_elo(games)
    assert list(quick) == list(full)
    assert max(abs(quick[name] - full[name].elo) for name in full) < 1e-6


def test_fitted_elo_handles_ties_sweeps_and_disconnected_groups() -> None:
    rng = random.Random(5)
    games = [{"a": 1, "b": 2}] * 4 + [{"b": 1, "c": 1, "d": 3}] * 3  # a wins all; a tie
    games += [{"x": rng.randint(1, 2), "y": rng.randint(1, 2)} for _ in range(5)]  # apart
    full = fit_ratings(games)
    quick = fitted_elo(games)
    assert max(abs(quick[name] - full[name].elo) for name in full) < 1e-6
    assert max(quick, key=quick.__getitem__) == "a"


def test_fitted_elo_needs_a_prior() -> None:
    assert fitted_elo([]) == {}
    with pytest.raises(ValueError, match="prior_draws"):
        fitted_elo([{"a": 1, "b": 2}], prior_draws=0.0)
