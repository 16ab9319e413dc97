"""The ladder's deal adjustment (goatarena.formats.ladder.deal_spread): about 1 where the
games of a deal are independent, below 1 where a deal's luck cancels over its rotations,
and the interval the board shows follows it."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from goatarena.formats.ladder.deal_spread import DealSpread
from goatarena.formats.ladder.estimate import QuickRatings

STRENGTH = [-1.2, -0.8, -0.4, 0.0, 0.0, 0.4, 0.8, 1.2]
"""ln γ of eight bots."""
LUCK = math.sqrt(math.pi**2 / 6)
"""The deal-luck spread at which the deal explains a third of a game's latent variance."""


def design_effects(luck: float, seed: int, seats: int = 2, deals: int = 600) -> list[float]:
    """Each bot's design effect after ``deals`` deals at random tables, every deal in all
    its rotations, a luck ``N(0, luck²)`` of seat 0 shared by them (Plackett–Luce)."""
    rng = random.Random(seed)
    ratings, spread = QuickRatings(), DealSpread()
    for number in range(deals):
        table = rng.sample(range(len(STRENGTH)), seats)
        shift = rng.gauss(0.0, luck)
        for turn in range(seats):
            seated = table[turn:] + table[:turn]
            weight = [
                math.exp(STRENGTH[b] + (shift if s == 0 else 0.0)) for s, b in enumerate(seated)
            ]
            order, left = [], list(range(seats))
            while left:
                pick = rng.random() * sum(weight[s] for s in left)
                for s in left:
                    pick -= weight[s]
                    if pick <= 0.0:
                        break
                order.append(s)
                left.remove(s)
            ranks = {f"b{seated[s]}": order.index(s) + 1 for s in range(seats)}
            spread.add(f"d{number}", ranks, ratings)  # as the ladder does: before counting it
            ratings.add_game(ranks)
            ratings.refresh(sweeps=1)
    effects = [spread.design_effect(f"b{b}") for b in range(len(STRENGTH))]
    assert all(effect is not None for effect in effects)
    return [effect for effect in effects if effect is not None]


@pytest.mark.parametrize("seats", [2, 4])
def test_without_deal_luck_the_deal_adjusted_interval_is_the_raw_one(seats):
    effects = [e for seed in range(3) for e in design_effects(0.0, 40 + seed, seats)]
    assert 0.85 <= statistics.fmean(effects) <= 1.15, effects


def test_with_strong_deal_luck_the_rotations_cancel_it_and_the_interval_narrows():
    effects = [e for seed in range(3) for e in design_effects(LUCK, 50 + seed)]
    # a third of the variance in the deal: the pair score's variance is about 0.8 of
    # the independent games' (the calibration's ideal at two rotations)
    assert statistics.fmean(effects) < 0.9, effects


def test_the_board_s_deal_adjusted_error_is_the_raw_one_times_the_root_of_the_effect():
    ratings, spread = QuickRatings(), DealSpread()
    ranks = {"a": 1, "b": 2}
    spread.add("d0", ranks, ratings)
    assert spread.stderr("a", ratings) is None  # the deal is not complete yet
    ratings.add_game(ranks)
    spread.add("d0", {"b": 2, "a": 1}, ratings)
    ratings.add_game({"b": 2, "a": 1})
    ratings.refresh()
    effect = spread.design_effect("a")
    assert effect is not None and spread.deals["a"] == 1
    assert spread.stderr("a", ratings) == pytest.approx(ratings.stderr("a") * math.sqrt(effect))
