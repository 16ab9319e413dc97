"""Standings rows, the head-to-head table and the output formats."""

from __future__ import annotations

import csv
import io
import json

from goatarena.ratings.standings import (
    OVERALL,
    compute_standings,
    cross_table,
    render_csv,
    render_json,
    render_los,
    render_tables,
)
from goatarena.referee.records import Latency, MatchResult, Violation
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


def test_groups_that_never_met_are_flagged_and_bots_without_games_listed():
    results = [game(["a", "b"], [1, 2]), game(["c", "d"], [2, 1]), game(["b", "a"], [1, 2])]
    standings = compute_standings("t", results, bots=["a", "b", "c", "d", "idle"])
    assert standings.connected == {OVERALL: False, "mountain-goats": False}
    assert standings.groups[OVERALL] == [["a", "b"], ["c", "d"]]
    assert standings.no_games == ["idle"]
    text = render_tables(standings)
    assert "warning: 2 groups of bots never met" in text and "a, b | c, d" in text
    assert "no games: idle" in text
    data = json.loads(render_json(standings))
    assert data["connected"]["overall"] is False and data["no_games"] == ["idle"]
    joined = compute_standings("t", [*results, game(["a", "c"], [1, 2])])
    assert joined.connected[OVERALL] and joined.groups == {}


def test_seat_advantage_is_in_the_json_per_game():
    results = [game(["a", "b"], [1, 2]), game(["b", "a"], [1, 2])] * 5 + [game(["a", "b"], [2, 1])]
    data = json.loads(render_json(compute_standings("t", results)))
    seats = data["seat_advantage"]["mountain-goats"]
    assert [(s["game"], s["players"], s["seat"]) for s in seats] == [
        ("mountain-goats", 2, 0),
        ("mountain-goats", 2, 1),
    ]
    assert seats[0]["elo"] > 0 > seats[1]["elo"]  # seat 0 won 10 of 11
    assert seats[0]["lo"] < seats[0]["elo"] < seats[0]["hi"]


def test_los_matrix_is_offered_on_request():
    assert compute_standings("t", RESULTS).los is None
    standings = compute_standings("t", RESULTS, los=True)
    assert standings.los is not None
    matrix = standings.los[OVERALL]
    assert matrix["a"]["b"] > 0.5 and abs(matrix["a"]["b"] + matrix["b"]["a"] - 1) < 1e-3
    assert "likelihood of superiority" in render_los(standings)


def test_swiss_points_and_tie_breaks_sit_beside_elo():
    results = [
        game(["a", "b"], [1, 2]),  # round 1; c has a bye
        game(["c", "a"], [1, 2]),  # round 2; b has a bye
        game(["b", "c"], [1, 1]),  # round 3; a has a bye
    ]
    rounds = [("0.mountain-goats.2p", r) for r in (1, 2, 3)]
    standings = compute_standings("t", results, bots=["a", "b", "c"], swiss_rounds=rounds)
    rows = {row.bot: row for row in standings.standings["mountain-goats"]}
    # points: a 1 + bye 1 = 2; b 0 + 0.5 + bye = 1.5; c 1 + 0.5 + bye = 2.5
    assert {bot: row.swiss_points for bot, row in rows.items()} == {"a": 2, "b": 1.5, "c": 2.5}
    # Buchholz: a met b (1.5) and c (2.5); Sonneborn–Berger: a beat b (1.5)
    assert rows["a"].buchholz == 4.0 and rows["a"].sonneborn_berger == 1.5
    # c beat a (2) and drew b (½ · 1.5)
    assert rows["c"].sonneborn_berger == 2.75
    assert "buchholz" in render_tables(standings)
    assert compute_standings("t", results).standings[OVERALL][0].swiss_points is None
