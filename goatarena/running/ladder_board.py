"""The running ladder's leaderboard, redrawn in place on a terminal.

Each game of the ladder gets a table: rank, bot, Elo with its 95 % interval — raw
(``±raw``, every game counted as independent) and deal-adjusted (``±deal``, a deal's
seat rotations counted as one unit: :mod:`goatarena.formats.ladder.deal_spread`) —,
games, the trend over the bot's last games, and how long ago its last game ended. The
numbers are the matchmaker's quick estimates (:mod:`goatarena.formats.ladder.estimate`),
cheap enough to redraw every second; ``goatarena standings`` shows the full fit. In a pipe
the rhythm is a round-robin's: a progress line every 5 seconds, the top of the board
every 30, and a line as soon as a bot is put out (with the reason) or retired.
"""

from __future__ import annotations

import time
from statistics import fmean
from typing import TextIO

from goatarena.formats.ladder.deal_spread import DealSpread
from goatarena.formats.ladder.state import Matchmaker
from goatarena.ratings.fit import BASE_ELO
from goatarena.running.ladder import LadderRun, Runner
from goatarena.running.progress import PLAIN_BOARD_INTERVAL_S, Progress

Z95 = 1.96
ROWS = 12
"""Bots shown per game on a terminal."""


def _age(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds < 120:
        return f"{seconds:.0f}s ago"
    if seconds < 7200:
        return f"{seconds / 60:.0f}m ago"
    return f"{seconds / 3600:.0f}h ago"


def board_rows(
    ladder: LadderRun,
    matchmaker: Matchmaker,
    now: float,
    spread: DealSpread | None = None,
    *,
    entry: int = 0,
) -> list[str]:
    """One line per active bot of ``matchmaker`` (game entry ``entry``), best first,
    under a header line: the raw ``±`` (every game independent) and, with ``spread``,
    the deal-adjusted one; the trend is the bot's in this entry's games only."""
    ratings = matchmaker.ratings
    active = matchmaker.active
    if not active:
        return []
    mean = fmean(ratings.elo(name) for name in active)
    ranked = sorted(active, key=lambda name: (-ratings.elo(name), name))
    width = max(len(name) for name in ranked)
    deal_head = f" {'±deal':>5}" if spread is not None else ""
    lines = [
        f"{'#':>3}  {'bot':<{width}}  {'Elo':>5} {'±raw':>5}{deal_head}  {'games':>5}"
        "  trend  last game"
    ]
    for place, name in enumerate(ranked, 1):
        elo = BASE_ELO + ratings.elo(name) - mean
        margin = Z95 * ratings.stderr(name)
        history = ladder.history.get((entry, name), [])
        trend = f"{history[-1] - history[0]:+5.0f}" if len(history) > 1 else "    -"
        last = ladder.last_game.get(name)
        shown_margin = _margin(margin)
        if spread is not None:
            deal = spread.stderr(name, ratings)
            shown_margin += " " + ("    -" if deal is None else _margin(Z95 * deal))
        lines.append(
            f"{place:>3}  {name:<{width}}  {elo:5.0f} {shown_margin}  {ratings.games[name]:>5}"
            f"  {trend}  {_age(None if last is None else now - last)}"
        )
    return lines


def _margin(margin: float) -> str:
    return f"{margin:5.0f}" if margin < 10_000 else "    ?"


def board_lines(ladder: LadderRun, limit: int = ROWS) -> list[str]:
    """The whole board: per game entry a title, its top ``limit`` bots, who is out."""
    now = time.monotonic()
    lines: list[str] = []
    config = ladder.runner.config
    for index, (entry, matchmaker, spread) in enumerate(
        zip(config.games, ladder.matchmakers, ladder.spreads, strict=True)
    ):
        rows = board_rows(ladder, matchmaker, now, spread, entry=index)
        lines.append(f"{entry.name} ({entry.players} seats): {len(matchmaker.active)} active")
        lines += rows[: limit + 1]
        if len(rows) > limit + 1:
            lines.append(f"     ... {len(rows) - limit - 1} more")
    waiting = sorted(
        set(config.bots) - ladder.validated - set(ladder.put_out) - set(config.ladder.retired)
    )
    retired = [name for name in config.ladder.retired if name not in ladder.put_out]
    if waiting:
        lines.append(f"validating: {', '.join(waiting)}")
    if retired:
        lines.append(f"retired: {', '.join(retired)}")
    for name, reason in sorted(ladder.put_out.items()):
        # its first line: a failed start's stderr below it would break the redrawn block
        first = reason.split("\n", 1)[0]
        lines.append(f"out: {name} ({first})")
    return lines


class LadderBoard(Progress):
    """Progress of a ladder: games stored and their rate, and the live board."""

    def __init__(self, runner: Runner, *, done: int = 0, stream: TextIO | None = None) -> None:
        super().__init__(0, done=done, stream=stream)
        self.runner = runner
        self._plain_at = -PLAIN_BOARD_INTERVAL_S
        self._told: dict[str, str] = {}
        """What a pipe was told of each bot that plays no more (retired, or put out)."""

    def line(self) -> str:
        """Games stored so far and the rate of this run."""
        elapsed = max(time.monotonic() - self._started, 1e-9)
        rate = (self.done - self._resumed) / elapsed
        line = f"ladder {self.runner.config.name}: {self.done} games  {rate:.1f} games/s"
        return f"{line}  {self.note}" if self.note else line

    def _lines(self) -> list[str]:
        ladder = self.runner.ladder
        return [] if ladder is None else board_lines(ladder)

    def _write_report(self, refit: bool) -> None:
        if self.is_terminal:
            columns = self._columns()
            block = [line[: columns - 1] for line in (self.line(), *self._lines())]
            up = f"\x1b[{self._drawn - 1}A" if self._drawn > 1 else ""
            self.stream.write(f"\r{up}\x1b[J" + "\n".join(block))
            self._drawn = len(block)
        else:
            self.stream.write(self.line() + "\n")
            for told in self._roster_news():
                self.stream.write(told + "\n")
            now = time.monotonic()
            if refit or now - self._plain_at >= PLAIN_BOARD_INTERVAL_S:
                self._plain_at = now
                self.stream.write("\n".join(self._lines()[:6]) + "\n")
        self.stream.flush()

    def _roster_news(self) -> list[str]:
        """A line for each bot put out (with the reason) or retired since the last
        look: in a pipe there is no board whose last lines say so."""
        ladder = self.runner.ladder
        if ladder is None:
            return []
        now = {name: "is retired" for name in self.runner.config.ladder.retired}
        for name, reason in ladder.put_out.items():
            now[name] = f"is out: {reason}"
        news = [
            f"ladder {self.runner.config.name}: {name} {status}"
            for name, status in now.items()
            if self._told.get(name) != status
        ]
        self._told = now
        return news
