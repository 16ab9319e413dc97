"""Stored games as lines: a one-line summary each for ``list``, and every record for
``export`` (JSON lines: one whole record a line; CSV: one row per seat).

Pure: takes :class:`~goatarena.store.summary.GameSummary` values (``list``, CSV) or
:class:`~goatarena.store.database.StoredGame` values (JSON lines, the whole records),
returns text as it goes, so that a million games stream through without being held.
"""

from __future__ import annotations

import csv
import io
import itertools
from collections.abc import Iterable, Iterator
from typing import Any

import msgspec
from tabulate import tabulate

from goatarena.store.database import StoredGame
from goatarena.store.summary import GameSummary

CSV_FIELDS = [
    "key",
    "round",
    "game",
    "seed",
    "seat",
    "bot",
    "rank",
    "score",
    "violations",
    "latency_median_ms",
    "latency_max_ms",
    "duration_s",
    "options",
]
"""The columns of ``export --format csv``, one row per seat of each game."""


def select(
    games: Iterable[GameSummary],
    *,
    bot: str | None = None,
    game: str | None = None,
    violations: bool = False,
) -> Iterator[tuple[int, GameSummary]]:
    """The games (numbered from 1 in finishing order, as ``replay`` takes them) that
    seat ``bot``, are of ``game``, and (with ``violations``) had any violation."""
    for number, summary in enumerate(games, 1):
        if bot is not None and bot not in summary.players:
            continue
        if game is not None and summary.game != game:
            continue
        if violations and not any(summary.violations):
            continue
        yield number, summary


def summary_row(number: int, summary: GameSummary) -> list[Any]:
    """One game as a list row: number, key, game, players, result, violations."""
    return [
        number,
        summary.key,
        summary.game,
        " ".join(summary.players),
        outcome(summary),
        violations_note(summary) or "-",
    ]


def violations_note(summary: GameSummary) -> str:
    """Who broke a rule and how (``slow: timeout; crasher: crash``), or ``""``."""
    found = [
        f"{bot}: {', '.join(causes)}"
        for bot, causes in zip(summary.players, summary.violations, strict=True)
        if causes
    ]
    return "; ".join(found)


def outcome(summary: GameSummary) -> str:
    """A game's result in one line, best first: ``1. greedy 1730, 2. random 1145``."""
    order = sorted(range(len(summary.players)), key=lambda seat: (summary.ranks[seat], seat))
    return ", ".join(
        f"{summary.ranks[seat]}. {summary.players[seat]} {summary.scores[seat]:g}" for seat in order
    )


LIST_HEADERS = ["#", "key", "game", "players (by seat)", "result (rank. bot score)", "violations"]
WIDTHS_FROM = 200
"""How many rows set the column widths of ``list``: it prints as it reads, so a longer
cell further down widens only its own line."""


def list_lines(rows: Iterable[tuple[int, GameSummary]]) -> Iterator[str]:
    """The games as a table, one line each, streamed: the first :data:`WIDTHS_FROM` rows
    set the column widths (``tabulate``'s plain format); nothing when there are none."""
    rows = iter(rows)
    first = [
        [str(cell) for cell in summary_row(*row)] for row in itertools.islice(rows, WIDTHS_FROM)
    ]
    if not first:
        return
    widths = [
        max(len(header), *(len(line[c]) for line in first)) for c, header in enumerate(LIST_HEADERS)
    ]
    yield _line(LIST_HEADERS, widths)
    yield "  ".join("-" * width for width in widths)
    for line in first:
        yield _line(line, widths)
    for row in rows:
        yield _line([str(cell) for cell in summary_row(*row)], widths)


def _line(cells: list[str], widths: list[int]) -> str:
    """One line: the number right-aligned, the rest left-aligned, two spaces apart."""
    parts = [cells[0].rjust(widths[0])]
    parts += [cell.ljust(width) for cell, width in zip(cells[1:], widths[1:], strict=True)]
    return "  ".join(parts).rstrip()


def render_list(rows: Iterable[tuple[int, GameSummary]]) -> str:
    """The games as a table, one line each."""
    return tabulate(
        [summary_row(number, summary) for number, summary in rows], headers=LIST_HEADERS
    )


def jsonl_lines(games: Iterable[StoredGame]) -> Iterator[str]:
    """Each whole stored record (key, round and the full result) as one JSON line."""
    for stored in games:
        yield msgspec.json.encode(stored).decode() + "\n"


def csv_lines(games: Iterable[GameSummary]) -> Iterator[str]:
    """A header, then one CSV row per seat of each game (from the games' summaries)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_FIELDS)
    yield _take(out)
    for summary in games:
        options = msgspec.json.encode(summary.options).decode()
        for seat, bot in enumerate(summary.players):
            latency = summary.latency[seat]
            writer.writerow(
                [
                    summary.key,
                    summary.round,
                    summary.game,
                    summary.seed,
                    seat,
                    bot,
                    summary.ranks[seat],
                    summary.scores[seat],
                    ";".join(summary.violations[seat]),
                    "" if latency is None else latency.median_ms,
                    "" if latency is None else latency.max_ms,
                    summary.duration_s,
                    options,
                ]
            )
        yield _take(out)


def _take(out: io.StringIO) -> str:
    text = out.getvalue()
    out.seek(0)
    out.truncate()
    return text
