"""The benchmark: every measurement present and sane, with tiny sizes (no timing limits)."""

from __future__ import annotations

import json
import math
import os

import pytest
from click.testing import CliRunner

from goatarena import bench, protocol
from goatarena.cli import main
from goatarena.games import GAMES

TINY = bench.Sizes(
    rounds=1,
    floor_trips=20,
    decisions=10,
    playout_s=0.01,
    spawn_samples=2,
    deadline_samples=2,
    deadline_ms=20,
    tournament_bots=2,
    tournament_deals=2,
)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_sample_decide_is_a_decide_line_the_sdk_reads(game):
    line = bench.sample_decide(GAMES[game], bench.table_size(GAMES[game]))
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    message = protocol.parse_referee_message(line)
    assert isinstance(message, protocol.Decide)
    assert message.actions and message.observation["to_act"] is not None


def test_bench_quick_json_reports_every_measurement(monkeypatch):
    monkeypatch.setattr(bench, "QUICK", TINY)
    cpus = os.sched_getaffinity(0)
    result = CliRunner().invoke(main, ["bench", "--quick", "--json"])
    assert result.exit_code == 0, result.output
    assert os.sched_getaffinity(0) == cpus  # pinned to one CPU only while measuring
    report = json.loads(result.output.strip().splitlines()[-1])
    assert "× floor" in result.output  # the table comes first
    assert "scaling, concurrency 2 ÷ 1" in result.output

    for key in ("floor_us", "floor_stream_us", "decision_us", "decision_minimal_bot_us"):
        assert _positive(report[key]), key
    assert report["decision_overhead_ratio"] == pytest.approx(
        report["decision_us"] / report["floor_us"], rel=0.01, abs=0.006
    )
    assert set(report["games"]) == set(GAMES) == set(report["playouts_per_s"])
    for name, game in report["games"].items():
        assert game["players"] in GAMES[name].player_counts
        assert game["decisions_per_game"] >= 1
        for key in ("decision_us", "decision_overhead_ratio", "playouts_per_s"):
            assert _positive(game[key]), (name, key)
    assert set(report["games_per_s"]) == {"1", "2"}
    assert all(_positive(rate) for rate in report["games_per_s"].values())
    assert all(_positive(rate) for rate in report["games_per_s_with_startup"].values())
    assert _positive(report["spawn_ms"])
    overshoot = report["deadline_overshoot_ms"]
    # The cut-off comes at or after the deadline; a reading before it would be a bug.
    assert -1.0 < overshoot["median"] <= overshoot["max"]
    assert report["sizes"] == "quick" and report["rounds"] == TINY.rounds
    assert report["pinned_cpu"] in cpus


def _positive(value: float) -> bool:
    return isinstance(value, int | float) and math.isfinite(value) and value > 0
