"""Progress of a running tournament: a bar on a terminal, a plain line every few seconds
otherwise."""

from __future__ import annotations

import sys
import time
from typing import TextIO

PLAIN_INTERVAL_S = 5.0
BAR_WIDTH = 30


class Progress:
    """Counts finished games and reports rate and ETA to ``stream``."""

    def __init__(self, total: int, *, done: int = 0, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.total = total
        self.done = done
        self._resumed = done
        self._started = time.monotonic()
        self._last_report = 0.0
        self.is_terminal = self.stream.isatty()
        self.enabled = True
        self.note = ""
        """Said after the counts (an SPRT's LLR and bounds, say)."""

    def advance(self, games: int = 1) -> None:
        """Count finished games and report if it is time to."""
        self.done += games
        now = time.monotonic()
        if self.is_terminal or now - self._last_report >= PLAIN_INTERVAL_S:
            self._last_report = now
            self.report()

    def line(self) -> str:
        """The current progress as text: games done/total, games per second, ETA."""
        elapsed = max(time.monotonic() - self._started, 1e-9)
        rate = (self.done - self._resumed) / elapsed
        left = max(self.total - self.done, 0)
        eta = f"{left / rate:.0f}s" if rate > 0 else "?"
        line = f"{self.done}/{self.total} games  {rate:.1f} games/s  ETA {eta}"
        return f"{line}  {self.note}" if self.note else line

    def report(self) -> None:
        """Write the progress now."""
        if not self.enabled:
            return
        if self.is_terminal:
            filled = BAR_WIDTH * self.done // max(self.total, 1)
            bar = "#" * filled + "-" * (BAR_WIDTH - filled)
            self.stream.write(f"\r[{bar}] {self.line()}  ")
        else:
            self.stream.write(self.line() + "\n")
        self.stream.flush()

    def finish(self) -> None:
        """End the progress display (a newline after a bar)."""
        if self.enabled and self.is_terminal:
            self.report()
            self.stream.write("\n")
            self.stream.flush()
