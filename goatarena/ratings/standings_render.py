"""Standings as text: terminal tables, the LOS matrices, the head-to-head table, JSON, CSV."""

from __future__ import annotations

import csv
import io
import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec
from tabulate import tabulate

from goatarena.ratings.pentanomial import PairRecord, signed_elo
from goatarena.ratings.table import OVERALL, RETIRED, Row, Standings

CrossCells = Mapping[tuple[str, str], Sequence[float]]
"""Head-to-head: (a, b) -> [a's points against b, games they met]."""


HEADERS = [
    "#",
    "bot",
    "elo",
    "95% interval",
    "games",
    "wins",
    "avg rank",
    "avg score",
    "violations",
    "latency ms (median/max)",
]


def render_tables(standings: Standings, *, game: str | None = None) -> str:
    """Standings as terminal tables: one per game, then overall."""
    names = [name for name in standings.standings if name != OVERALL] + [OVERALL]
    if game is not None:
        names = [game]
    blocks = [f"{standings.tournament}: {standings.games} games"]
    for name in names:
        rows = standings.standings.get(name, [])
        swiss = any(row.swiss_points is not None for row in rows)
        headers = HEADERS + SWISS_HEADERS if swiss else list(HEADERS)
        lines = [_table_row(place, row) + (_swiss_cells(row) if swiss else [])
                 for place, row in enumerate(rows, 1)]  # fmt: skip
        if any(row.deal_lo is not None for row in rows):
            # after the per-game interval: the one that counts each deal as one unit
            headers = [*headers[:4], "deal-adjusted 95%", *headers[4:]]
            for line, row in zip(lines, rows, strict=True):
                line.insert(4, f"{row.deal_lo:.0f} .. {row.deal_hi:.0f}")
        blocks.append(f"\n{name}\n" + tabulate(lines, headers=headers))
        blocks.extend(_notes(standings, name))
    idle = [name for name in standings.no_games if name not in standings.out]
    if idle:
        blocks.append(f"no games: {', '.join(idle)}")
    blocks.extend(out_lines(standings))
    return "\n".join(blocks)


def out_lines(standings: Standings) -> list[str]:
    """The bots that play no more, as a live ladder board says it: one line of the
    retired versions, then ``out: NAME (reason)`` for each disqualified or suspended one
    (its reason's further lines, a failed start's stderr, indented below)."""
    retired = [
        name + (" (no games)" if name in standings.no_games else "")
        for name, why in standings.out.items()
        if why == RETIRED
    ]
    lines = [f"retired: {', '.join(retired)}"] if retired else []
    for name, why in standings.out.items():
        if why == RETIRED:
            continue
        first, *more = why.split("\n")
        games = "" if name not in standings.no_games else ", no games"
        lines.append(f"out: {name} ({first}{games})")
        lines.extend(f"    {line.strip()}" for line in more)
    return lines


SWISS_HEADERS = ["swiss points", "buchholz", "s-b"]


def _swiss_cells(row: Row) -> list[Any]:
    return [f"{row.swiss_points:g}", f"{row.buchholz:g}", f"{row.sonneborn_berger:g}"]


def _notes(standings: Standings, name: str) -> list[str]:
    """The lines under a table: groups that never met, then (per game) the seat
    advantages."""
    notes = []
    groups = standings.groups.get(name)
    if groups:
        listed = " | ".join(", ".join(group) for group in groups)
        notes.append(
            f"warning: {len(groups)} groups of bots never met, directly or through common"
            f" opponents; ratings are comparable only within a group: {listed}"
        )
    # the overall fit's seat terms repeat the per-game ones: shown in JSON only
    terms = [] if name == OVERALL else standings.seat_advantage.get(name, [])
    for (game, players), seats in itertools.groupby(terms, key=lambda t: (t.game, t.players)):
        shown = ", ".join(f"{t.seat}: {t.elo:+.0f} ({t.lo:+.0f} .. {t.hi:+.0f})" for t in seats)
        notes.append(
            f"seat advantage, {game} at {players} players (Elo over the average seat): {shown}"
        )
    return notes


def render_los(standings: Standings, *, game: str | None = None) -> str:
    """The likelihood-of-superiority matrices: the row bot is stronger than the column bot
    with this probability (bots in standings order)."""
    if standings.los is None:
        raise ValueError("these standings were computed without the LOS matrices")
    blocks = []
    for name in [game] if game is not None else list(standings.los):
        matrix = standings.los.get(name, {})
        order = [row.bot for row in standings.standings.get(name, []) if row.bot in matrix]
        lines = [[a, *("" if a == b else f"{matrix[a][b]:.3f}" for b in order)] for a in order]
        blocks.append(f"{name}: likelihood of superiority (row over column)\n"
                      + tabulate(lines, headers=["", *order]))  # fmt: skip
    return "\n\n".join(blocks)


def _table_row(place: int, row: Row) -> list[Any]:
    violations = ", ".join(f"{cause} {count}" for cause, count in row.violations.items())
    if row.disqualified:
        violations = (violations + "; " if violations else "") + "disqualified"
    latency = (
        f"{row.latency_median_ms:.2f}/{row.latency_max_ms:.1f}"
        if row.latency_median_ms is not None and row.latency_max_ms is not None
        else "-"
    )
    return [
        place,
        row.bot,
        f"{row.elo:.0f}",
        f"{row.lo:.0f} .. {row.hi:.0f}",
        row.games,
        row.wins,
        f"{row.avg_rank:.2f}",
        "-" if row.avg_score is None else f"{row.avg_score:.1f}",
        violations or "-",
        latency,
    ]


def render_cross(bots: Sequence[str], cells: CrossCells) -> str:
    """The bot × bot head-to-head table (:func:`~goatarena.ratings.standings.cross_table`):
    points of the row bot against the column bot."""
    rows = []
    for a in bots:
        line: list[str] = [a]
        for b in bots:
            cell = cells.get((a, b))
            line.append("" if a == b or cell is None else f"{cell[0]:g}/{cell[1]:g}")
        rows.append(line)
    return tabulate(rows, headers=["", *bots])


PAIR_HEADERS = ["bot", "opponent", "pairs", "0", "½", "1", "1½", "2", "score", "elo",
                "95% interval", "los", "unpaired"]  # fmt: skip
"""The columns of :func:`render_game_pairs`: the pentanomial counts by the bot's points."""


def render_game_pairs(records: Mapping[tuple[str, str], PairRecord]) -> str:
    """The two-player head-to-head from game pairs: per two bots the pairs by the first
    bot's points, its score and pentanomial Elo with the 95 % interval (fastchess's), the
    likelihood of superiority and the games left out of any pair."""
    lines = []
    for record in records.values():
        stats = record.stats()
        cells: list[Any] = [record.first, record.second, sum(record.counts), *record.counts]
        if stats is None:
            cells += ["-", "-", "-", "-"]
        else:
            cells += [
                f"{stats.score:.3f}",
                signed_elo(stats.elo)
                + (f" ± {stats.elo_margin:.1f}" if math.isfinite(stats.elo_margin) else ""),
                f"{signed_elo(stats.elo_lo)} .. {signed_elo(stats.elo_hi)}",
                f"{stats.los:.1%}",
            ]
        lines.append([*cells, record.unpaired])
    return tabulate(lines, headers=PAIR_HEADERS, disable_numparse=True)


def cross_json(bots: Sequence[str], cells: CrossCells) -> dict[str, dict[str, dict[str, Any]]]:
    """The head-to-head table as nested objects: ``cross[a][b]`` is a's points against b
    and the games they met."""
    return {
        a: {
            b: {"points": cell[0], "games": int(cell[1])}
            for b in bots
            if (cell := cells.get((a, b)))
        }
        for a in bots
    }


def render_json(standings: Standings) -> str:
    """The standings as one JSON object."""
    return msgspec.json.encode(standings).decode()


def render_csv(standings: Standings) -> str:
    """The standings as CSV, one line per (game, bot); ``game`` is ``overall`` for pooled.
    The last column, ``out``, says why a bot plays no more (:attr:`Standings.out`); a bot
    out without a game has one line of its own, with an empty ``game``."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        [
            "game",
            "rank",
            "bot",
            "elo",
            "lo",
            "hi",
            "games",
            "wins",
            "avg_rank",
            "avg_score",
            "violations",
            "latency_median_ms",
            "latency_max_ms",
            "disqualified",
            "swiss_points",
            "buchholz",
            "sonneborn_berger",
            "out",
        ]
    )
    listed: set[str] = set()
    for game, rows in standings.standings.items():
        for place, row in enumerate(rows, 1):
            violations = ";".join(f"{cause}={count}" for cause, count in row.violations.items())
            writer.writerow(
                [
                    game,
                    place,
                    row.bot,
                    row.elo,
                    row.lo,
                    row.hi,
                    row.games,
                    row.wins,
                    row.avg_rank,
                    row.avg_score,
                    violations,
                    row.latency_median_ms,
                    row.latency_max_ms,
                    row.disqualified or "",
                    _blank(row.swiss_points),
                    _blank(row.buchholz),
                    _blank(row.sonneborn_berger),
                    standings.out.get(row.bot, ""),
                ]
            )
            listed.add(row.bot)
    for name, why in standings.out.items():  # out before its first game: a line of its own
        if name not in listed:
            writer.writerow(["", "", name, *[""] * 14, why])
    return out.getvalue()


def _blank(value: float | None) -> object:
    return "" if value is None else value
