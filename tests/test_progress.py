"""Progress lines: a bar on a terminal, plain lines every few seconds otherwise."""

from __future__ import annotations

import io

import pytest

from goatarena.running import progress as progress_module
from goatarena.running.progress import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_a_bar_redrawn_in_place_with_rate_and_eta():
    stream = Terminal()
    progress = Progress(10, done=2, stream=stream)
    progress.advance()
    progress.advance()
    progress.finish()
    frames = stream.getvalue().split("\r")[1:]
    assert len(frames) == 3
    assert frames[-1].startswith("[" + "#" * 12 + "-" * 18 + "]")
    assert "4/10 games" in frames[-1] and "games/s" in frames[-1] and "ETA" in frames[-1]
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
    fits = []
    real_fit = board_module.fit_ratings
    monkeypatch.setattr(
        board_module, "fit_ratings", lambda games: fits.append(1) or real_fit(games)
    )
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
    real_fit = board_module.fit_ratings

    def slow_fit(games):
        fits.append(clock[0])
        clock[0] += fit_s
        return real_fit(games)

    monkeypatch.setattr(board_module, "fit_ratings", slow_fit)
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
