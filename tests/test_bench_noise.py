"""Benchmark figures carry their standard errors; a goal within the noise says so."""

from __future__ import annotations

import math

import pytest

from goatarena.bench import ladder as ladder_bench
from goatarena.bench import ladder_sim as sim
from goatarena.bench.noise import (
    mean_and_stderr,
    paired_difference,
    range_verdict,
    ratio_stderr,
    verdict,
)


def test_mean_and_stderr_of_known_values():
    mean, error = mean_and_stderr([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5 and error == pytest.approx(math.sqrt(5 / 3) / 2)
    assert mean_and_stderr([1.0])[1] == math.inf


def test_pairing_removes_what_two_rows_share():
    shared = [0.1, 0.9, 0.4, 0.7, 0.2, 0.8]
    first = [x + 0.05 for x in shared]
    gap, error = paired_difference(first, shared)
    assert gap == pytest.approx(0.05) and error == pytest.approx(0.0, abs=1e-12)


def test_ratio_stderr_is_zero_for_proportional_events_and_grows_with_scatter():
    assert ratio_stderr([2.0, 4.0, 6.0], [1.0, 2.0, 3.0]) == pytest.approx(0.0, abs=1e-12)
    assert ratio_stderr([2.0, 5.0, 6.0], [1.0, 2.0, 3.0]) > 0.05


@pytest.mark.parametrize(
    ("margin", "error", "said"),
    [
        (0.10, 0.02, "met"),
        (0.032, 0.018, "met only within noise (+1.8 s.e.)"),
        (-0.007, 0.004, "NOT MET, within noise (-1.8 s.e.)"),
        (-0.10, 0.02, "NOT MET"),
        (0.01, math.inf, "met"),  # no error known: the bare comparison
    ],
)
def test_a_verdict_says_when_a_margin_is_within_two_standard_errors(margin, error, said):
    assert verdict(margin, error) == said


def test_a_coverage_at_the_edge_of_its_range_is_within_noise():
    # 93.1 % against a 93-97 % goal with 0.6 points of error: inside, but only just.
    assert range_verdict(0.931, 0.006, 0.93, 0.97) == "met only within noise (+0.2 s.e.)"
    assert range_verdict(0.95, 0.005, 0.93, 0.97) == "met"


def accuracy(top: list[bool], taus: list[float]) -> sim.Accuracy:
    return sim.Accuracy(
        rule="r", players=4, budget=20, trials=len(top),
        top_right=sum(top) / len(top), tau=sum(taus) / len(taus), min_share=0.6,
        outcomes=tuple(top), taus=tuple(taus),
    )  # fmt: skip


def test_the_ladder_goals_print_each_margin_with_its_error_and_the_noise_verdict():
    # The ladder ahead of uniform ×3 by 1 trial in 8 (noise); far ahead of the baselines;
    # its τ 0.006 below uniform's, with the 0.02 allowance: met beyond the noise.
    ladder = accuracy([True, True, False, True, False, True, True, False], [0.80] * 8)
    triple = accuracy([True, False, False, True, False, True, True, False], [0.85] * 8)
    baseline = accuracy([False] * 8, [0.806, 0.80, 0.81, 0.80, 0.81, 0.80, 0.81, 0.81])
    result = {"ladder": ladder, "uniform": baseline, "psyleague": baseline, "halite": baseline}
    first, best, tau, fewest = ladder_bench.accuracy_goals("4 seats, 20/bot", result, triple)
    assert "difference +0.125 ± 0.125 over 8 paired trials" in first
    assert first.endswith("met only within noise (+1.0 s.e.)")
    assert "(best, uniform, 0.000; difference +0.625 ± 0.183)" in best and best.endswith(": met")
    assert "difference -0.0058 ± 0.0018" in tau and tau.endswith(": met")
    assert fewest.endswith(": met")
    assert ladder.tau_stderr == 0.0 and baseline.tau_stderr > 0
