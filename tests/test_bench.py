"""The benchmark: every measurement present and sane, with tiny sizes (no timing limits)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from goatarena import bench, protocol
from goatarena.bench import split as bench_split
from goatarena.bench import table as bench_table
from goatarena.bench.decisions import table_size
from goatarena.bench.floor import sample_decide
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
    line = sample_decide(GAMES[game], table_size(GAMES[game]))
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    message = protocol.parse_referee_message(line)
    assert isinstance(message, protocol.Decide)
    assert message.actions and message.observation["to_act"] is not None


def test_a_ratio_is_shown_against_its_target():
    assert bench_table._against(1.95, 2.0) == "1.95 × floor (within 2.0×)"
    assert bench_table._against(3.04, 3.0) == "3.04 × floor (over 3.0×)"


def test_bench_quick_json_reports_every_measurement(monkeypatch):
    monkeypatch.setattr(bench, "QUICK", TINY)  # what the command runs
    monkeypatch.setattr(bench.referee, "QUICK", TINY)  # what the report calls "quick"
    cpus = os.sched_getaffinity(0)
    result = CliRunner().invoke(main, ["bench", "--quick", "--json"])
    assert result.exit_code == 0, result.output
    assert os.sched_getaffinity(0) == cpus  # pinned to one CPU only while measuring
    report = json.loads(result.output.strip().splitlines()[-1])
    assert "× floor" in result.output  # the table comes first
    for target in (
        bench_table.MINIMAL_BOT_TARGET,
        bench_table.RANDOM_BOT_TARGET,
    ):  # each ratio's target
        assert f"within {target:.1f}×" in result.output or f"over {target:.1f}×" in result.output
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
        for key in ("decision_us", "decision_overhead_ratio", "playouts_per_s", "decisions_per_s"):
            assert _positive(game[key]), (name, key)
        for key in ("engine_us", "encoding_us", "cpu_us", "pipe_us", "bot_us"):
            assert _positive(game[key]), (name, key)  # Linux tells every process's CPU time
        shares = sum(game[key] for key in ("engine_us", "encoding_us", "pipe_us", "bot_us"))
        assert shares + game["other_us"] == pytest.approx(game["cpu_us"], abs=0.3), name
        assert game["cpu_overhead_ratio"] == pytest.approx(
            game["cpu_us"] / report["floor_cpu_us"], rel=0.01, abs=0.006
        )
    assert "engine" in result.output and "encoding" in result.output  # the split table
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


WORKER = """
import sys
for line in sys.stdin:
    sum(range(int(line)))
    print("done", flush=True)
"""


def test_cpu_time_is_read_for_other_processes_and_grows_with_their_work():
    # A process waiting for input has its CPU time fully accounted (a running one lags).
    with subprocess.Popen(
        [sys.executable, "-c", WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    ) as worker:
        assert worker.stdin is not None and worker.stdout is not None
        used = []
        for count in (10, 3_000_000):
            worker.stdin.write(f"{count}\n".encode())
            worker.stdin.flush()
            assert worker.stdout.readline() == b"done\n"
            time.sleep(0.05)  # back in its read, descheduled
            used.append(bench_split.cpu_ns(worker.pid))
        worker.stdin.close()
    assert used[0] is not None and used[1] is not None
    assert used[1] - used[0] > 5_000_000  # summing three million numbers takes > 5 ms
    assert bench_split.cpu_ns(2**22 + 1) is None  # beyond any pid_max: no such process
    assert bench_split.total_cpu_ns([worker.pid, 2**22 + 1]) is None


@pytest.mark.parametrize("game", sorted(GAMES))
def test_engine_and_encoding_shares_are_measured_for_every_game(game):
    engine, encoding = bench_split.engine_and_encoding_s(GAMES[game], 2, 1000, time_ms=1000)
    assert engine > 0 and encoding > 0
