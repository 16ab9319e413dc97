"""The Swiss simulation behind ``goatarena bench --swiss``: its parts, on small fields."""

from __future__ import annotations

import math
import random
import statistics
from collections import Counter

from goatarena.bench.swiss import min_rematches
from goatarena.bench.swiss_sim import (
    accuracy,
    kendall_tau,
    new_event,
    plackett_luce,
    run_random,
    run_swiss,
    tau,
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
