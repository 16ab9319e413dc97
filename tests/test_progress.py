"""Progress lines: a bar on a terminal, plain lines every few seconds otherwise."""

from __future__ import annotations

import io

import pytest

from goatarena.running import progress as progress_module
from goatarena.running.progress import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_a_bar_redrawn_in_place_with_rate_and_eta(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: clock[0])
    stream = Terminal()
    progress = Progress(10, done=2, stream=stream)
    progress.advance()
    clock[0] += progress_module.REDRAW_INTERVAL_S / 2
    progress.advance()  # too soon to redraw
    clock[0] += progress_module.REDRAW_INTERVAL_S
    progress.advance()
    progress.finish()
    frames = stream.getvalue().split("\r")[1:]
    assert len(frames) == 3
    assert frames[-1].startswith("[" + "#" * 15 + "-" * 15 + "]")
    assert "5/10 games" in frames[-1] and "games/s" in frames[-1] and "ETA" in frames[-1]
    assert stream.getvalue().endswith("\n")


def test_a_pipe_gets_plain_lines_at_most_every_few_seconds(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: clock[0])
    stream = io.StringIO()
    progress = Progress(5, stream=stream)
    progress.advance()  # the first report comes at once
    clock[0] += 1
    progress.advance()  # too soon for another line
    clock[0] += progress_module.PLAIN_INTERVAL_S
    progress.advance()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2 and "\r" not in stream.getvalue()
    assert lines[0].startswith("1/5 games") and lines[1].startswith("3/5 games")


def test_a_disabled_progress_prints_nothing():
    stream = Terminal()
    progress = Progress(3, stream=stream)
    progress.enabled = False
    progress.advance()
    progress.finish()
    assert stream.getvalue() == ""


def result(players, ranks, game="mountain-goats", violations=None):
    from goatarena.referee.records import MatchResult, Violation

    bad = [
        None
        if not violations or not violations[seat]
        else Violation(cause="timeout", decision=0, detail="late")
        for seat in range(len(players))
    ]
    return MatchResult(
        game=game,
        seed=1,
        players=players,
        scores=[0.0] * len(players),
        ranks=ranks,
        violations=bad,
        decisions=[],
    )


def test_the_leaderboard_counts_games_and_violations_per_table():
    from goatarena.running.leaderboard import Leaderboard

    board = Leaderboard([result(["a", "b"], [1, 2]), result(["a", "c"], [1, 2], violations=[0, 1])])
    board.add(result(["b", "c", "a"], [1, 2, 3], game="goat-lords"))
    assert board.games == 3 and board.names() == ["overall", "goat-lords", "mountain-goats"]
    overall = {row.bot: row for row in board.rows()}
    assert overall["a"].games == 3 and overall["c"].violations == 1
    assert overall["a"].lo < overall["a"].elo < overall["a"].hi
    lords = board.rows("goat-lords")
    assert [row.bot for row in lords] == ["b", "c", "a"] and lords[0].games == 1


def test_a_terminal_shows_standings_under_the_bar_refitted_on_a_timer(monkeypatch):
    from goatarena.running import leaderboard as board_module
    from goatarena.running.leaderboard import Leaderboard

    clock = [100.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: clock[0])
    # The fits take no time on this clock (a slow fit is waited for longer: tested below).
    monkeypatch.setattr(progress_module.time, "perf_counter", lambda: clock[0])
    fits = []
    real_fit = board_module.fit_tally
    monkeypatch.setattr(board_module, "fit_tally", lambda games: fits.append(1) or real_fit(games))
    stream = Terminal()
    progress = Progress(10, stream=stream)
    progress.leaderboard = Leaderboard()
    progress.advance(result=result(["alpha", "beta"], [1, 2]))
    for _ in range(4):  # games finishing faster than the timer do not refit
        clock[0] += 0.1
        progress.advance(result=result(["alpha", "beta"], [1, 2]))
    assert len(fits) == 1
    clock[0] += progress_module.BOARD_INTERVAL_S
    progress.advance(result=result(["alpha", "beta"], [1, 2], game="goat-lords"))
    progress.finish()
    assert len(fits) == 2  # the timer brings the next table in turn: overall, then a game
    out = stream.getvalue()
    assert "overall:" in out and "goat-lords:" in out and "alpha" in out
    assert "\x1b[3A\x1b[J" in out  # redrawn in place: up over the last block, cleared
    last = out.rsplit("\r", 1)[-1]
    assert "6/10 games" in last and last.endswith("\n")


def test_a_pipe_gets_a_standings_line_now_and_then(monkeypatch):
    from goatarena.running.leaderboard import Leaderboard

    clock = [100.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: clock[0])
    stream = io.StringIO()
    progress = Progress(100, stream=stream)
    progress.leaderboard = Leaderboard()
    for _ in range(20):
        clock[0] += progress_module.PLAIN_INTERVAL_S
        progress.advance(result=result(["alpha", "beta"], [1, 2]))
    lines = stream.getvalue().splitlines()
    standings = [line for line in lines if "standings:" in line]
    assert len([line for line in lines if "games/s" in line]) == 20
    assert (
        2 <= len(standings) <= 4 and "1. alpha" in standings[0] and "\x1b" not in stream.getvalue()
    )


def test_a_slow_fit_is_done_less_often_so_it_never_costs_the_run_much(monkeypatch):
    from goatarena.running import leaderboard as board_module
    from goatarena.running.leaderboard import Leaderboard

    clock = [100.0]
    fit_s = 0.1  # ten times the share allowed at a 3 s interval
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(progress_module.time, "perf_counter", lambda: clock[0])
    fits = []
    real_fit = board_module.fit_tally

    def slow_fit(games):
        fits.append(clock[0])
        clock[0] += fit_s
        return real_fit(games)

    monkeypatch.setattr(board_module, "fit_tally", slow_fit)
    progress = Progress(1000, stream=Terminal())
    progress.leaderboard = Leaderboard()
    for _ in range(40):  # a game every half second for 20 s
        progress.advance(result=result(["alpha", "beta"], [1, 2]))
        clock[0] += 0.5
    wait = fit_s / progress_module.FIT_SHARE
    gaps = [later - earlier for earlier, later in zip(fits, fits[1:])]
    assert len(fits) == 2 and all(gap >= wait for gap in gaps)


def test_a_narrow_terminal_gets_lines_cut_to_its_width_so_the_redraw_stays_in_place(
    monkeypatch,
):
    from goatarena.running.leaderboard import Leaderboard

    monkeypatch.setenv("COLUMNS", "40")  # a StringIO has no terminal to ask
    stream = Terminal()
    progress = Progress(1000, stream=stream)
    progress.leaderboard = Leaderboard()
    for _ in range(3):
        progress.advance(result=result(["a-bot-with-a-long-name", "beta"], [1, 2]))
    progress.finish()
    drawn = stream.getvalue().replace("\x1b[J", "").split("\r")
    rows = [row.split("A", 1)[-1] if row.startswith("\x1b[") else row for row in drawn]
    lines = [line for row in rows for line in row.split("\n")]
    assert max(len(line) for line in lines) == 39
    assert any("a-bot-with" in line for line in lines)


def test_a_dumb_terminal_gets_plain_lines_without_escapes(monkeypatch):
    monkeypatch.setenv("TERM", "dumb")  # an editor's shell: no cursor movement
    stream = Terminal()
    progress = Progress(10, stream=stream)
    progress.advance()
    progress.finish()
    assert "\x1b" not in stream.getvalue() and "\r" not in stream.getvalue()
    assert stream.getvalue().startswith("1/10 games")


@pytest.mark.parametrize("columns", ["0", "", "junk"])
def test_a_terminal_that_reports_no_width_gets_eighty_columns_not_twenty(monkeypatch, columns):
    import os

    # A pseudo-terminal that was never sized reports 0 columns; so does COLUMNS=0.
    monkeypatch.setenv("COLUMNS", columns)
    monkeypatch.setattr(os, "get_terminal_size", lambda fd=0: os.terminal_size((0, 0)))

    class SizedTerminal(Terminal):
        def fileno(self) -> int:
            return 1

    stream = SizedTerminal()
    progress = Progress(1000, stream=stream)
    progress.advance(result=result(["alpha", "beta"], [1, 2]))
    assert progress._columns() == 80
    first = stream.getvalue().lstrip("\r").split("\n")[0]
    assert first.startswith("[") and len(first) > 40  # the bar and its counts, not 18 chars


def test_a_terminal_width_it_reports_wins_over_columns(monkeypatch):
    import os

    monkeypatch.setenv("COLUMNS", "0")
    monkeypatch.setattr(os, "get_terminal_size", lambda fd=0: os.terminal_size((132, 40)))

    class SizedTerminal(Terminal):
        def fileno(self) -> int:
            return 1

    assert Progress(10, stream=SizedTerminal())._columns() == 132


def test_the_rate_is_measured_from_the_first_game_handed_out(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: clock[0])
    progress = Progress(100_000, stream=io.StringIO())
    progress.slots = 2
    clock[0] += 9.0  # loading, scheduling and starting the referees
    progress.start()
    clock[0] += 0.5
    progress.advance()
    assert progress.line().endswith("ETA ?")  # one slot still has its first game out
    progress.advance()
    # 2 games in 0.5 s: 99,998 left at 4 games/s.
    assert "4.0 games/s" in progress.line() and progress.line().endswith("ETA 6h 56m")
    progress.start()  # a second round of a Swiss: the clock is not reset
    assert "4.0 games/s" in progress.line()


def test_times_left_read_in_their_two_largest_units():
    assert [progress_module.duration(s) for s in (0.4, 42, 725, 12_000, 849_933)] == [
        "0s",
        "42s",
        "12m 05s",
        "3h 20m",
        "9d 20h",
    ]


def test_the_leaderboard_of_a_resumed_run_reads_the_summaries_as_the_records_would(tmp_path):
    from goatarena.bench.synthetic import build_store
    from goatarena.running.leaderboard import Leaderboard
    from goatarena.store.opening import open_store

    build_store(tmp_path / "t.sqlite", 60, bots=5, players=3)
    store = open_store(tmp_path / "t.sqlite", create=False)
    try:
        from_records = Leaderboard(game.result for game in store.games())
        from_summaries = Leaderboard()
        for summary in store.summaries():
            from_summaries.add_summary(summary)
    finally:
        store.close()
    assert from_summaries.games == from_records.games == 60
    assert from_summaries.names() == from_records.names()
    for table in from_records.names():
        assert from_summaries.rows(table) == from_records.rows(table)
    assert sum(row.violations for row in from_records.rows()) > 0  # the counts were compared
