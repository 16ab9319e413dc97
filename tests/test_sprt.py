"""The SPRT: pentanomial pairs, the log-likelihood ratio, its error rates, and a gauntlet
that stops as soon as the test decides."""

from __future__ import annotations

import json
import math
import random

import pytest
from click.testing import CliRunner

from goatarena.cli import main
from goatarena.formats.config import SprtSettings
from goatarena.formats.sprt import (
    SprtTally,
    bounds,
    elo_to_score,
    llr,
    llr_course,
    pair_points,
)
from goatarena.referee.records import MatchResult
from tests.helpers import ROOT


def result(players, ranks) -> MatchResult:
    return MatchResult(
        game="goat-lords",
        seed=1,
        players=list(players),
        scores=[0.0] * len(players),
        ranks=list(ranks),
        violations=[None] * len(players),
        decisions=[],
    )


def test_bounds_are_walds():
    lower, upper = bounds(0.05, 0.05)
    assert lower == pytest.approx(math.log(0.05 / 0.95))
    assert upper == pytest.approx(math.log(0.95 / 0.05))


def test_a_pair_scores_each_game_from_the_challengers_side():
    won_both = [result(("new", "old"), (1, 2)), result(("old", "new"), (2, 1))]
    split = [result(("new", "old"), (1, 2)), result(("old", "new"), (1, 2))]
    tie_and_loss = [result(("new", "old"), (1, 1)), result(("old", "new"), (1, 2))]
    assert pair_points("new", won_both) == 2.0
    assert pair_points("new", split) == 1.0
    assert pair_points("new", tie_and_loss) == 0.5


def test_the_llr_favours_the_hypothesis_the_pairs_support():
    even = [10, 20, 40, 20, 10]
    better = [5, 10, 40, 25, 20]
    assert llr(even, 0, 10) < 0 < llr(better, 0, 10)
    # More of the same evidence moves the ratio further, in proportion.
    assert llr([n * 4 for n in better], 0, 10) == pytest.approx(4 * llr(better, 0, 10), rel=0.01)
    # A challenger that loses everything is far below the lower bound.
    assert llr([100, 0, 0, 0, 0], 0, 50) < bounds(0.05, 0.05)[0]


def test_the_tally_counts_a_deal_once_both_its_games_are_in():
    tally = SprtTally(SprtSettings(elo0=0, elo1=50), "new", "old")
    tally.add("0.goat-lords.2p/new+old/d0/r0", result(("new", "old"), (1, 2)))
    assert tally.status().pairs == 0 and tally.status().verdict == "running"
    tally.add("0.goat-lords.2p/new+old/d1/r1", result(("old", "new"), (1, 2)))
    tally.add("0.goat-lords.2p/new+old/d0/r1", result(("old", "new"), (2, 1)))
    status = tally.status()
    assert status.pairs == 1 and status.pentanomial == [0, 0, 0, 0, 1]
    assert status.lower < status.llr < status.upper


def test_the_course_is_the_llr_after_each_completed_pair():
    settings = SprtSettings(elo0=0, elo1=50)
    games = [
        ("0.g/new+old/d0/r0", result(("new", "old"), (1, 2))),
        ("0.g/new+old/d1/r0", result(("new", "old"), (2, 1))),
        ("0.g/new+old/d0/r1", result(("old", "new"), (2, 1))),
        ("0.g/new+old/d1/r1", result(("old", "new"), (2, 1))),
        ("0.g/new+third/d0/r0", result(("new", "third"), (1, 2))),  # not the baseline
    ]
    tally, course = llr_course(settings, ["new", "old"], "new", games)
    assert [pairs for pairs, _ in course] == [1, 2]
    assert course[0][1] == pytest.approx(llr([0, 0, 0, 0, 1], 0, 50), abs=1e-4)
    assert course[-1][1] == tally.status().llr


def _pair_distribution(elo: float, draws: float = 0.2) -> list[float]:
    """Two independent games with this Elo advantage and draw rate, as a pentanomial."""
    win = elo_to_score(elo) - draws / 2
    game = [1.0 - win - draws, draws, win]
    pairs = [0.0] * 5
    for first, p in enumerate(game):
        for second, q in enumerate(game):
            pairs[first + second] += p * q
    return pairs


def _verdict(elo: float, settings: SprtSettings, rng: random.Random) -> str:
    lower, upper = bounds(settings.alpha, settings.beta)
    weights = _pair_distribution(elo)
    counts = [0] * 5
    while True:
        counts[rng.choices(range(5), weights)[0]] += 1
        value = llr(counts, settings.elo0, settings.elo1)
        if value >= upper:
            return "H1"
        if value <= lower:
            return "H0"


@pytest.mark.slow
def test_simulated_error_rates_are_near_alpha_and_beta():
    settings = SprtSettings(elo0=0, elo1=40, alpha=0.1, beta=0.1)
    rng = random.Random(2026)
    runs = 400
    false_h1 = sum(_verdict(0, settings, rng) == "H1" for _ in range(runs)) / runs
    false_h0 = sum(_verdict(40, settings, rng) == "H0" for _ in range(runs)) / runs
    # Wald's bounds keep each error rate at or a little under its nominal value.
    assert 0.05 <= false_h1 <= 0.14, false_h1
    assert 0.05 <= false_h0 <= 0.14, false_h0


@pytest.mark.slow
def test_greedy_against_random_stops_early_with_h1(tmp_path):
    db = tmp_path / "sprt.sqlite"
    # The shipped demo, with a wider H1 so that the test stops sooner.
    demo = (ROOT / "tournaments" / "sprt-demo.toml").read_text()
    file = tmp_path / "sprt.toml"
    file.write_text(demo.replace("elo1 = 50", "elo1 = 100").replace("../bots", str(ROOT / "bots")))
    ran = CliRunner().invoke(main, ["run", str(file), "--db", str(db), "--quiet"])
    assert ran.exit_code == 0, ran.output
    assert "H1 accepted: greedy is stronger than random" in ran.output
    data = json.loads(
        CliRunner().invoke(main, ["standings", "--db", str(db), "--format", "json"]).output
    )
    sprt = data["sprt"]
    assert sprt["verdict"] == "H1" and sprt["llr"] >= sprt["upper"]
    assert set(sprt) >= {"llr", "lower", "upper", "verdict"}
    # Stopped long before the 200 deals (400 games) the file allows.
    # (A game of a later deal may have finished before the deciding one.)
    assert 2 * sprt["pairs"] <= data["games"] <= 2 * sprt["pairs"] + 2 < 200
    # Running it again plays nothing: the verdict is already in the database.
    again = CliRunner().invoke(main, ["run", str(file), "--db", str(db), "--quiet"])
    assert again.exit_code == 0
    rerun = json.loads(
        CliRunner().invoke(main, ["standings", "--db", str(db), "--format", "json"]).output
    )
    assert rerun["games"] == data["games"]
    # The report draws the same test's course, ending where the standings' SPRT is.
    out = tmp_path / "r.html"
    assert CliRunner().invoke(main, ["report", "--db", str(db), "-o", str(out)]).exit_code == 0
    section = out.read_text().split('<section id="sprt">', 1)[1].split("</section>", 1)[0]
    assert f"log-likelihood ratio {sprt['llr']:.2f} after {sprt['pairs']} pairs" in section
    assert "accepted H1" in section and f"at {sprt['upper']:.2f}" in section
