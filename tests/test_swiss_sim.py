"""The Swiss simulation behind ``goatarena bench --swiss``: its parts, on small fields."""

from __future__ import annotations

import math
import random
import statistics
from collections import Counter

from goatarena.bench.swiss import min_rematches
from goatarena.bench.swiss_sim import (
    accuracy,
    finds_top,
    fitted,
    kendall_tau,
    new_event,
    plackett_luce,
    run_random,
    run_swiss,
    tau,
    top_set,
)
from goatarena.formats.grouping import split_cost
from goatarena.formats.pairing import swiss_table_sizes
from tests.test_grouping import all_splits


def test_kendall_tau_counts_agreeing_pairs() -> None:
    truth = {"a": 3.0, "b": 2.0, "c": 1.0}
    assert kendall_tau(truth, {"a": 30.0, "b": 20.0, "c": 10.0}) == 1.0
    assert kendall_tau(truth, {"a": 1.0, "b": 2.0, "c": 3.0}) == -1.0
    assert kendall_tau(truth, {"a": 3.0, "b": 1.0, "c": 2.0}) == 1 / 3


def test_plackett_luce_favours_the_stronger_as_the_model_says() -> None:
    rng = random.Random(1)
    wins = sum(plackett_luce(rng, [200.0, 0.0])[0] == 1 for _ in range(4000))
    assert abs(wins / 4000 - 1 / (1 + 10 ** (-0.5))) < 0.025  # 0.76 expected


def test_swiss_and_random_events_play_the_same_games() -> None:
    swiss = run_swiss(12, 3, 4, seed=2)
    baseline = run_random(12, 3, 4, seed=2)
    assert swiss.truth == baseline.truth
    assert len(swiss.games) == len(baseline.games) == 16
    assert Counter(len(g) for g in swiss.games) == Counter(len(g) for g in baseline.games)


def test_min_rematches_agrees_with_the_oracle() -> None:
    for seed in range(6):
        event = run_random(9, 3, 3, seed)
        seated = sorted(event.names)
        sizes = swiss_table_sizes(9, 3)
        clash = [[int(event.met[a].get(b, 0) > 0) for b in seated] for a in seated]
        best = min(split_cost(clash, s) for s in all_splits(list(range(9)), Counter(sizes)))
        assert min_rematches(event, sizes, seated, upper=10**6) == best
        assert min_rematches(event, sizes, seated, upper=best) == best


def test_new_events_draw_their_truth_from_the_seed() -> None:
    assert new_event(8, 2, 5).truth == new_event(8, 2, 5).truth
    assert new_event(8, 2, 5).truth != new_event(8, 2, 6).truth
    assert len(new_event(8, 2, 5).names) == 8


def test_accuracy_reports_the_paired_gain_and_its_standard_error() -> None:
    result = accuracy(10, 2, 3, events=4, seed=7)
    gains = [tau(run_swiss(10, 2, 3, s)) - tau(run_random(10, 2, 3, s)) for s in range(7, 11)]
    assert math.isclose(result.gain, statistics.fmean(gains), abs_tol=1e-12)
    assert math.isclose(result.gain_stderr, statistics.stdev(gains) / 2, abs_tol=1e-12)


def test_the_top_is_found_only_when_the_fitted_top_set_is_the_true_one() -> None:
    truth = {"a": 300.0, "b": 200.0, "c": 100.0, "d": 0.0}
    assert finds_top(truth, {"a": 9.0, "b": 8.0, "c": 7.0, "d": 1.0}, 1)
    assert finds_top(truth, {"c": 9.0, "b": 8.0, "a": 7.0, "d": 1.0}, 3)  # a set: order aside
    assert not finds_top(truth, {"c": 9.0, "b": 8.0, "a": 7.0, "d": 1.0}, 1)
    assert not finds_top(truth, {"a": 9.0, "b": 8.0, "d": 7.0, "c": 1.0}, 3)
    assert top_set({"x": 1.0, "y": 1.0}, 1) == {"x"}  # a tie at the cut: the first name


def test_accuracy_counts_the_events_that_find_the_top() -> None:
    result = accuracy(10, 2, 3, events=4, seed=7)
    for kind, run in (("swiss", run_swiss), ("random", run_random)):
        events = [run(10, 2, 3, s) for s in range(7, 11)]
        best = sum(finds_top(e.truth, fitted(e), 1) for e in events) / 4
        top3 = sum(finds_top(e.truth, fitted(e), 3) for e in events) / 4
        assert getattr(result, f"{kind}_best") == best
        assert getattr(result, f"{kind}_top3") == top3


def test_a_long_swiss_finds_the_best_of_a_spread_field_more_often_than_not() -> None:
    result = accuracy(8, 2, 12, events=6, seed=1)
    assert result.swiss_best >= 0.5 and result.random_best >= 0.5
