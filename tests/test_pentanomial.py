"""Pentanomial head-to-head Elo (goatarena.ratings.pentanomial): fastchess's numbers on its
own test vectors, the pairing of a deal's rotations, and incomplete pairs."""

from __future__ import annotations

import math
import random

import pytest

from goatarena.ratings import pentanomial
from goatarena.ratings.pair_stats import pair_score
from goatarena.ratings.pentanomial import PentanomialTally, pentanomial_score

# fastchess app/tests/elo_test.cpp, "EloPentanomial 1–3": Stats(LL, LD, WL, DD, WD, WW)
# with its expected Elo difference, error (the +/-), LOS in per cent and score, printed
# to two decimals (three for the score).
FASTCHESS = [
    ((34, 54, 31, 32, 64, 75), 55.58, 27.65, 100.00, 0.579),
    ((332, 433, 457, 41, 333, 334), -8.64, 10.33, 5.05, 0.488),
    ((7895, 8757, 5485, 200, 568, 9999), -21.04, 2.95, 0.00, 0.470),
]


@pytest.mark.parametrize(("stats", "elo", "error", "los", "score"), FASTCHESS)
def test_the_pentanomial_elo_is_fastchesss_on_its_own_test_vectors(stats, elo, error, los, score):
    ll, ld, wl, dd, wd, ww = stats
    found = pentanomial_score([ll, ld, wl + dd, wd, ww])  # a win-loss pair and a draw pair are 1
    assert found.elo == pytest.approx(elo, abs=0.005)
    assert found.elo_margin == pytest.approx(error, abs=0.005)
    assert 100 * found.los == pytest.approx(los, abs=0.005)
    assert found.score == pytest.approx(score, abs=0.0005)
    assert found.pairs == sum(stats)


def test_a_hand_computed_pentanomial():
    # 2 pairs of 0 points, 4 of 1, 4 of 2: s = (0 + 4·½ + 4·1)/10 = 0.6 per game,
    # v = (2·0.36 + 4·0.01 + 4·0.16)/10 = 0.14 per pair, stderr sqrt(0.014)
    found = pentanomial_score([2, 0, 4, 0, 4])
    assert found.score == pytest.approx(0.6)
    assert found.stderr == pytest.approx(math.sqrt(0.014))
    low, high = 0.6 - 1.959964 * math.sqrt(0.014), 0.6 + 1.959964 * math.sqrt(0.014)
    assert found.elo == pytest.approx(-400 * math.log10(1 / 0.6 - 1))
    assert found.elo_lo == pytest.approx(-400 * math.log10(1 / low - 1), abs=1e-4)
    assert found.elo_hi == pytest.approx(-400 * math.log10(1 / high - 1), abs=1e-4)
    assert found.elo_margin == pytest.approx((found.elo_hi - found.elo_lo) / 2)


def test_pairs_of_independent_games_give_the_game_by_game_interval_on_average():
    # Without deal luck the two games of a pair are independent: the pentanomial's
    # variance is the trinomial's (per game, halved per pair), up to sampling noise.
    rng = random.Random(7)
    counts = [0] * 5
    wins = draws = losses = 0
    for _ in range(20_000):
        points = 0.0
        for _ in range(2):
            roll = rng.random()
            game = 1.0 if roll < 0.45 else 0.5 if roll < 0.65 else 0.0
            wins, draws, losses = wins + (game == 1.0), draws + (game == 0.5), losses + (game == 0)
            points += game
        counts[round(2 * points)] += 1
    paired, games = pentanomial_score(counts), pair_score(wins, draws, losses)
    assert paired.score == pytest.approx(games.score)
    assert paired.stderr == pytest.approx(games.stderr, rel=0.03)


def test_negatively_correlated_games_narrow_the_interval_below_the_game_by_game_one():
    # every deal goes to whoever holds seat 0: each pair splits 1–1, the score is exactly ½
    found = pentanomial_score([0, 0, 50, 0, 0])
    assert found.score == 0.5 and found.stderr == 0.0 and found.elo_margin == 0.0
    assert pair_score(50, 0, 50).stderr > 0.04


def test_perfect_and_empty_scores():
    perfect = pentanomial_score([0, 0, 0, 0, 3])
    assert perfect.elo == math.inf and perfect.elo_margin == math.inf and perfect.los == 1.0
    assert pentanomial_score([3, 0, 0, 0, 0]).elo == -math.inf
    with pytest.raises(ValueError, match="no pairs"):
        pentanomial_score([0, 0, 0, 0, 0])
    with pytest.raises(ValueError, match="five counts"):
        pentanomial_score([1, 2, 3])
    with pytest.raises(ValueError, match="negative"):
        pentanomial_score([1, -1, 0, 0, 0])


def test_the_tally_pairs_the_rotations_of_a_deal_in_any_order():
    tally = PentanomialTally()
    tally.add("mg/a+b/d0/r0", ["a", "b"], [1, 2])  # a wins as seat 0
    tally.add("mg/a+b/d1/r1", ["b", "a"], [1, 1])  # the other deal first: a tie
    tally.add("mg/a+b/d0/r1", ["b", "a"], [2, 1])  # a wins as seat 1: 2 points
    tally.add("mg/a+b/d1/r0", ["a", "b"], [2, 1])  # a loses: ½ point over the deal
    record = tally.pairs()[("a", "b")]
    assert record.counts == [0, 1, 0, 0, 1] and record.unpaired == 0
    stats = record.stats()
    assert stats is not None and stats.score == pytest.approx(0.625)


def test_the_first_bot_is_the_first_by_name_whoever_sits_first():
    tally = PentanomialTally()
    tally.add("g/t000001/zed+amy/r0", ["zed", "amy"], [1, 2])
    tally.add("g/t000001/zed+amy/r1", ["amy", "zed"], [2, 1])
    assert tally.pairs()[("amy", "zed")].counts == [1, 0, 0, 0, 0]


def test_incomplete_pairs_are_unpaired_games_never_in_the_pentanomial():
    tally = PentanomialTally()
    tally.add("mg/a+b/d0/r0", ["a", "b"], [1, 2])
    tally.add("mg/a+b/d0/r1", ["b", "a"], [1, 2])
    tally.add("mg/a+b/d1/r0", ["a", "b"], [1, 2])  # its other rotation never came
    tally.add("sw/s1/a+b/d0", ["a", "b"], [1, 2])  # a Swiss deal: played once
    record = tally.pairs()[("a", "b")]
    assert record.counts == [0, 0, 1, 0, 0] and record.unpaired == 2
    # the waiting deal is still open: its second game completes it later
    tally.add("mg/a+b/d1/r1", ["b", "a"], [2, 1])
    assert tally.pairs()[("a", "b")].counts == [0, 0, 1, 0, 1]
    assert tally.pairs()[("a", "b")].unpaired == 1
    only = PentanomialTally()
    only.add("mg/a+c/d0/r0", ["a", "c"], [1, 2])
    assert only.pairs()[("a", "c")].stats() is None


def test_other_table_sizes_are_not_counted_and_a_changed_pair_is_not_a_pair():
    tally = PentanomialTally()
    tally.add("x/a+b+c/d0/r0", ["a", "b", "c"], [1, 2, 3])
    assert tally.pairs() == {}
    tally.add("mg/d0/r0", ["a", "b"], [1, 2])
    tally.add("mg/d0/r1", ["c", "a"], [1, 2])  # same deal key, other bots
    pairs = tally.pairs()
    assert pairs[("a", "b")].unpaired == 1 and pairs[("a", "c")].unpaired == 1
    assert sum(pairs[("a", "b")].counts) == 0


def test_memory_is_bounded_the_oldest_waiting_deal_counting_as_unpaired(monkeypatch):
    monkeypatch.setattr(pentanomial, "MAX_WAITING", 3)
    tally = PentanomialTally()
    for deal in range(5):
        tally.add(f"mg/a+b/d{deal}/r0", ["a", "b"], [1, 2])
    assert len(tally._waiting) == 3
    tally.add("mg/a+b/d0/r1", ["b", "a"], [1, 2])  # d0 was given up: no pair now
    tally.add("mg/a+b/d4/r1", ["b", "a"], [1, 2])
    record = tally.pairs()[("a", "b")]
    assert record.counts == [0, 0, 1, 0, 0]
    # given up: d0, d1, then d2 for d0's late game; waiting: d3 and that late game
    assert record.unpaired == 5
