"""Progress lines: a bar on a terminal, plain lines every few seconds otherwise."""

from __future__ import annotations

import io

from goatarena.tournament import progress as progress_module
from goatarena.tournament.progress import Progress


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
