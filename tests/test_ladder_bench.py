"""The ladder benchmark's report: every goal printed beside its measured values."""

from __future__ import annotations

import re

import pytest

from goatarena.bench import ladder as ladder_bench

pytestmark = pytest.mark.slow


def test_the_ladder_bench_prints_the_table_and_a_verdict_for_every_goal():
    sizes = ladder_bench.Sizes(trials=2, late_trials=1, cost_bots=40, cost_games=400)
    said: list[str] = []
    table, goals = ladder_bench.run_ladder_bench(sizes, said.append)
    assert table.count("\n") == 1 + 2 * 2 * 5  # header, columns, 5 rules per seats x budget
    for rule in ("ladder", "uniform", "psyleague", "halite", "uniform ×3 (120)"):
        assert rule in table
    lines = goals.splitlines()[1:]
    assert len(lines) == 2 * 2 * 4 + 3 + 2
    verdict = re.compile(
        r": (met|NOT MET)( only within noise| within noise)?|" + re.escape(ladder_bench.FIGURE)
    )
    assert all(verdict.search(line) for line in lines), lines
    assert "Kendall τ" in table and table.count(" ± ") == 2 * 2 * 2 * 5  # top-3 and τ
    assert any("late entry" in line for line in lines) and any("cost" in line for line in lines)
    assert said  # progress went to the caller
