"""Stored games as lines: a one-line summary each for ``list``, and every record for
``export`` (JSON lines: one whole record a line; CSV: one row per seat).

Pure: takes :class:`~goatarena.store.database.StoredGame` values, returns text.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from typing import Any

import msgspec
from tabulate import tabulate

from goatarena.referee.records import MatchResult
from goatarena.store.database import StoredGame

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
    games: Iterable[StoredGame],
    *,
    bot: str | None = None,
    game: str | None = None,
    violations: bool = False,
) -> Iterator[tuple[int, StoredGame]]:
    """The games (numbered from 1 in finishing order, as ``replay`` takes them) that
    seat ``bot``, are of ``game``, and (with ``violations``) had any violation."""
    for number, stored in enumerate(games, 1):
        result = stored.result
        if bot is not None and bot not in result.players:
            continue
        if game is not None and result.game != game:
            continue
        if violations and not any(
            _seat_violations(stored.result, seat) for seat in range(len(result.players))
        ):
            continue
        yield number, stored


def _seat_violations(result: MatchResult, seat: int) -> list[str]:
    if seat < len(result.all_violations):
        return [str(violation.cause) for violation in result.all_violations[seat]]
    violation = result.violations[seat]
    return [] if violation is None else [str(violation.cause)]


def summary_row(number: int, stored: StoredGame) -> list[Any]:
    """One game as a list row: number, key, game, players, result, violations."""
    result = stored.result
    return [
        number,
        stored.key,
        result.game,
        " ".join(result.players),
        outcome(result),
        violations_note(result) or "-",
    ]


def violations_note(result: MatchResult) -> str:
    """Who broke a rule and how (``slow: timeout; crasher: crash``), or ``""``."""
    found = [
        f"{result.players[seat]}: {', '.join(causes)}"
        for seat in range(len(result.players))
        if (causes := _seat_violations(result, seat))
    ]
    return "; ".join(found)


def outcome(result: MatchResult) -> str:
    """A game's result in one line, best first: ``1. greedy 1730, 2. random 1145``."""
    order = sorted(range(len(result.players)), key=lambda seat: (result.ranks[seat], seat))
    return ", ".join(
        f"{result.ranks[seat]}. {result.players[seat]} {result.scores[seat]:g}" for seat in order
    )


def render_list(rows: Iterable[tuple[int, StoredGame]]) -> str:
    """The games as a table, one line each."""
    return tabulate(
        [summary_row(number, stored) for number, stored in rows],
        headers=["#", "key", "game", "players (by seat)", "result (rank. bot score)", "violations"],
    )


def jsonl_lines(games: Iterable[StoredGame]) -> Iterator[str]:
    """Each whole stored record (key, round and the full result) as one JSON line."""
    for stored in games:
        yield msgspec.json.encode(stored).decode() + "\n"


def csv_lines(games: Iterable[StoredGame]) -> Iterator[str]:
    """A header, then one CSV row per seat of each game."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_FIELDS)
    yield _take(out)
    for stored in games:
        result = stored.result
        options = msgspec.json.encode(result.options).decode()
        for seat, bot in enumerate(result.players):
            latency = result.latency[seat] if seat < len(result.latency) else None
            writer.writerow(
                [
                    stored.key,
                    stored.round,
                    result.game,
                    result.seed,
                    seat,
                    bot,
                    result.ranks[seat],
                    result.scores[seat],
                    ";".join(_seat_violations(stored.result, seat)),
                    "" if latency is None else latency.median_ms,
                    "" if latency is None else latency.max_ms,
                    result.duration_s,
                    options,
                ]
            )
        yield _take(out)


def _take(out: io.StringIO) -> str:
    text = out.getvalue()
    out.seek(0)
    out.truncate()
    return text
