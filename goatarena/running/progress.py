"""Progress of a running tournament: a bar on a terminal, a plain line every few seconds
otherwise; with a :class:`~goatarena.running.leaderboard.Leaderboard`, interim
standings too (in place under the bar on a terminal, a summary line now and then in a
pipe), refitted on a timer rather than per game."""

from __future__ import annotations

import io
import sys
import time
from typing import TextIO

from goatarena.referee.records import MatchResult
from goatarena.render.style import can_redraw, terminal_columns
from goatarena.running.leaderboard import Leaderboard, board_lines, board_summary

PLAIN_INTERVAL_S = 5.0
REDRAW_INTERVAL_S = 0.1
"""The bar is redrawn at most this often: drawn after every game, it would cost a
hundred games a second a hundred redraws, on the driver's loop that feeds the games."""
BAR_WIDTH = 30
BOARD_INTERVAL_S = 3.0
"""How often the standings under the bar are refitted (and the next table shown)."""
PLAIN_BOARD_INTERVAL_S = 30.0
"""How often a pipe gets a line of interim standings."""
BOARD_ROWS = 8
"""Bots shown per table under the bar."""
FIT_SHARE = 0.01
"""The most of the run's time the interim fits may take: after a fit that took t
seconds the next waits at least t / FIT_SHARE (tens of thousands of games take ~0.1 s)."""


def duration(seconds: float) -> str:
    """A time left in the two largest units that matter: ``42s``, ``12m 05s``,
    ``3h 20m``, ``2d 04h``."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole}s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes}m {secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    if hours < 24:
        return f"{hours}h {minutes:02d}m"
    days, hours = divmod(hours, 24)
    return f"{days}d {hours:02d}h"


class _Nowhere(io.TextIOBase):
    """Where progress goes when the process has no standard error (closed at start)."""

    def write(self, text: str) -> int:
        """Discard ``text``."""
        return len(text)


class Progress:
    """Counts finished games and reports rate and ETA to ``stream``."""

    def __init__(self, total: int, *, done: int = 0, stream: TextIO | None = None) -> None:
        self.stream: TextIO = stream or sys.stderr or _Nowhere()  # type: ignore[assignment]
        self.total = total
        self.done = done
        self._resumed = done
        self._started = time.monotonic()
        self._playing = False
        self.slots = 1
        """Games played at once: the rate is a guess until that many have finished."""
        self._last_report = 0.0
        # A dumb terminal (TERM=dumb) cannot move the cursor: it gets the plain lines.
        self.is_terminal = can_redraw(self.stream)
        self.enabled = True
        self.leaderboard: Leaderboard | None = None
        """Interim standings to show, if set; fed by :meth:`advance` with each result."""
        self._board: list[str] = []
        self._board_fitted = -float("inf")
        self._board_wait = BOARD_INTERVAL_S
        self._board_next = 0
        self._board_games = -1
        self._drawn = 0
        self.note = ""
        """Said after the counts (an SPRT's LLR and bounds, say)."""

    def start(self) -> None:
        """The first game is being handed out: the rate is measured from now, not from
        when the run began loading, scheduling and starting its referees (which once
        made the first ETA of a long run read days). Later calls change nothing."""
        if not self._playing:
            self._playing = True
            self._started = time.monotonic()

    def advance(
        self, games: int = 1, *, result: MatchResult | None = None, key: str | None = None
    ) -> None:
        """Count finished games (and ``result``, whose schedule key is ``key``, into the
        leaderboard); report if it is time."""
        self.done += games
        if result is not None and self.leaderboard is not None:
            self.leaderboard.add(result, key)
        now = time.monotonic()
        wait = REDRAW_INTERVAL_S if self.is_terminal else PLAIN_INTERVAL_S
        # A ladder has no total (0): its last game is never in sight, and every game
        # would be reported as the last one.
        if now - self._last_report >= wait or 0 < self.total <= self.done:
            self._last_report = now
            self.report()

    def line(self) -> str:
        """The current progress as text: games done/total, games per second, ETA."""
        elapsed = max(time.monotonic() - self._started, 1e-9)
        played = self.done - self._resumed
        rate = played / elapsed
        left = max(self.total - self.done, 0)
        # Until every slot has finished a game, the games still running are not counted
        # in the rate and the ETA would read as many times too long as there are slots.
        eta = duration(left / rate) if rate > 0 and played >= self.slots else "?"
        line = f"{self.done}/{self.total} games  {rate:.1f} games/s  ETA {eta}"
        return f"{line}  {self.note}" if self.note else line

    def report(self, *, refit: bool = False) -> None:
        """Write the progress now (``refit``: the standings too, whatever the timer says).

        A stream that cannot be written (a full disk, a terminal that went away) turns
        the progress off: the games go on and are stored all the same.
        """
        if not self.enabled:
            return
        try:
            self._write_report(refit)
        except OSError:
            self.enabled = False

    def _write_report(self, refit: bool) -> None:
        if self.is_terminal:
            filled = BAR_WIDTH * self.done // max(self.total, 1)
            bar = "#" * filled + "-" * (BAR_WIDTH - filled)
            # Each line cut to the terminal's width: a line that wrapped would take two
            # rows, and moving up over the block drawn last would miss its first rows.
            columns = self._columns()
            block = [
                line[: columns - 1]
                for line in (f"[{bar}] {self.line()}  ", *self._terminal_board(refit))
            ]
            # Back to the start of the block drawn last time, clear it, draw anew.
            up = f"\x1b[{self._drawn - 1}A" if self._drawn > 1 else ""
            clear = "\x1b[J" if self._drawn > 1 or len(block) > 1 else ""
            self.stream.write(f"\r{up}{clear}" + "\n".join(block))
            self._drawn = len(block)
        else:
            self.stream.write(self.line() + "\n")
            summary = self._plain_board(refit)
            if summary:
                self.stream.write(summary + "\n")
        self.stream.flush()

    def _columns(self) -> int:
        """The width of the terminal drawn on (its own, else ``COLUMNS``, else 80), at
        least 20."""
        return max(terminal_columns(self.stream), 20)

    def _terminal_board(self, refit: bool) -> list[str]:
        board = self.leaderboard
        now = time.monotonic()
        if board is None or not board.games:
            return []
        if refit or now - self._board_fitted >= self._board_wait:
            names = board.names()
            # With several games, show the overall table and each game's in turn.
            table = names[self._board_next % len(names)]
            self._board_next += 1
            started = time.perf_counter()
            self._board = board_lines(table, board.rows(table), BOARD_ROWS)
            took = time.perf_counter() - started
            self._board_fitted = time.monotonic()
            self._board_wait = max(BOARD_INTERVAL_S, took / FIT_SHARE)
        return self._board

    def _plain_board(self, refit: bool) -> str:
        board = self.leaderboard
        now = time.monotonic()
        if board is None or not board.games or board.games == self._board_games:
            return ""
        if not refit and now - self._board_fitted < PLAIN_BOARD_INTERVAL_S:
            return ""
        self._board_fitted = now
        self._board_games = board.games
        return board_summary("standings", board.rows())

    def finish(self) -> None:
        """End the progress display (a newline after a bar)."""
        if self.enabled and self.is_terminal:
            self.report()
            try:
                self.stream.write("\n")
                self.stream.flush()
            except OSError:
                self.enabled = False
