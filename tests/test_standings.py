"""Standings rows, the head-to-head table and the output formats."""

from __future__ import annotations

import csv
import io
import json

from goatarena.referee.match import Latency, MatchResult, Violation
from goatarena.standings import (
    OVERALL,
    compute_standings,
    cross_table,
    render_csv,
    render_json,
    render_tables,
)
from tests.helpers import STANDINGS_ROW_KEYS


def game(players, ranks, *, name="mountain-goats", scores=None, violations=None):
    return MatchResult(
        game=name,
        seed=1,
        players=list(players),
        scores=scores or [float(10 - r) for r in ranks],
        ranks=list(ranks),
        violations=violations or [None] * len(players),
        decisions=[],
        latency=[
            Latency(decisions=3, median_ms=1.0 + i, max_ms=5.0 + i) for i in range(len(players))
        ],
    )


RESULTS = [
    game(["a", "b"], [1, 2]),
    game(["b", "a"], [2, 1]),
    game(["a", "c"], [1, 1]),
    game(["c", "b"], [1, 2], violations=[None, Violation("timeout", "slow", 4)]),
    game(["a", "b", "c"], [1, 3, 2], name="goat-lords"),
]


def test_rows_count_games_wins_ranks_scores_and_violations():
    standings = compute_standings("t", RESULTS)
    assert standings.games == 5
    assert set(standings.standings) == {OVERALL, "mountain-goats", "goat-lords"}
    overall = {row.bot: row for row in standings.standings[OVERALL]}
    assert overall["a"].games == 4 and overall["a"].wins == 4
    assert overall["b"].wins == 0 and overall["b"].violations == {"timeout": 1}
    assert overall["b"].avg_rank == (2 + 2 + 2 + 3) / 4
    assert [row.bot for row in standings.standings[OVERALL]] == ["a", "c", "b"]
    for row in standings.standings[OVERALL]:
        assert row.lo < row.elo < row.hi
    mountain = {row.bot: row for row in standings.standings["mountain-goats"]}
    assert mountain["c"].games == 2 and mountain["c"].wins == 2  # a tie counts as rank 1


def test_disqualified_bots_are_marked():
    standings = compute_standings("t", RESULTS, disqualified={"b": "failed to start"})
    rows = {row.bot: row for row in standings.standings[OVERALL]}
    assert rows["b"].disqualified == "failed to start" and rows["a"].disqualified is None
    assert "disqualified" in render_tables(standings)


def test_cross_table_counts_points_at_every_table_size():
    bots, cells = cross_table(RESULTS)
    assert bots == ["a", "b", "c"]
    assert cells[("a", "b")] == [3.0, 3.0]
    assert cells[("b", "a")] == [0.0, 3.0]
    assert cells[("a", "c")] == [1.5, 2.0]
    assert cells[("c", "b")] == [2.0, 2.0]


def test_json_and_csv_forms():
    standings = compute_standings("t", RESULTS)
    data = json.loads(render_json(standings))
    assert data["tournament"] == "t" and data["games"] == 5
    first = data["standings"]["overall"][0]
    assert set(first) >= STANDINGS_ROW_KEYS
    rows = list(csv.DictReader(io.StringIO(render_csv(standings))))
    assert len(rows) == 3 + 3 + 3
    assert {row["game"] for row in rows} == {"overall", "mountain-goats", "goat-lords"}
    assert (
        next(r for r in rows if r["game"] == "overall" and r["bot"] == "b")["violations"]
        == "timeout=1"
    )
