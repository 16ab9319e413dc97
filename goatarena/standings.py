"""Standings from stored games: ratings with intervals, results and violations per bot.

Pure: takes finished :class:`~goatarena.referee.match.MatchResult` values, returns rows;
rendering as a table, JSON or CSV is separate so the CLI stays thin.
"""

from __future__ import annotations

import csv
import io
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgspec
from tabulate import tabulate

from goatarena.ratings import fit_ratings
from goatarena.referee.match import MatchResult, Violation

OVERALL = "overall"


class Row(msgspec.Struct, frozen=True):
    """One bot's line in a standings table."""

    bot: str
    elo: float
    lo: float
    hi: float
    games: int
    wins: int
    avg_rank: float
    avg_score: float | None
    """The mean game score; None in the overall table of several games, whose scores
    are on different scales (hundreds in one game, a handful in another)."""
    violations: dict[str, int]
    latency_median_ms: float | None = None
    latency_max_ms: float | None = None
    disqualified: str | None = None


class Standings(msgspec.Struct, frozen=True):
    """Standings of a tournament: overall and per game, best first."""

    tournament: str
    games: int
    standings: dict[str, list[Row]]


def compute_standings(
    tournament: str,
    results: Sequence[MatchResult],
    *,
    disqualified: Mapping[str, str] | None = None,
) -> Standings:
    """Fit ratings over all games at once, per game and pooled across games."""
    by_game: dict[str, list[MatchResult]] = defaultdict(list)
    for result in results:
        by_game[result.game].append(result)
    overall = _rows(results, disqualified or {})
    if len(by_game) > 1:
        overall = [msgspec.structs.replace(row, avg_score=None) for row in overall]
    tables = {OVERALL: overall}
    for game in sorted(by_game):
        tables[game] = _rows(by_game[game], disqualified or {})
    return Standings(tournament=tournament, games=len(results), standings=tables)


def _rows(results: Sequence[MatchResult], disqualified: Mapping[str, str]) -> list[Row]:
    if not results:
        return []
    ratings = fit_ratings([dict(zip(r.players, r.ranks)) for r in results])
    tally: dict[str, dict[str, Any]] = defaultdict(
        lambda: {"ranks": [], "scores": [], "violations": defaultdict(int), "lat": [], "max": []}
    )
    for result in results:
        for seat, bot in enumerate(result.players):
            entry = tally[bot]
            entry["ranks"].append(result.ranks[seat])
            entry["scores"].append(result.scores[seat])
            for violation in _violations_of(result, seat):
                entry["violations"][violation.cause] += 1
            latency = result.latency[seat] if seat < len(result.latency) else None
            if latency is not None:
                entry["lat"].append(latency.median_ms)
                entry["max"].append(latency.max_ms)
    rows = [_row(bot, ratings[bot], tally[bot], disqualified.get(bot)) for bot in tally]
    return sorted(rows, key=lambda row: (-row.elo, row.bot))


def _violations_of(result: MatchResult, seat: int) -> list[Violation]:
    """Every violation of a seat (results stored before strikes existed list only one)."""
    if seat < len(result.all_violations):
        return result.all_violations[seat]
    violation = result.violations[seat]
    return [] if violation is None else [violation]


def _row(bot: str, rating: Any, entry: dict[str, Any], disqualified: str | None) -> Row:
    return Row(
        bot=bot,
        elo=round(rating.elo, 1),
        lo=round(rating.lo, 1),
        hi=round(rating.hi, 1),
        games=len(entry["ranks"]),
        wins=sum(1 for rank in entry["ranks"] if rank == 1),
        avg_rank=round(statistics.fmean(entry["ranks"]), 3),
        avg_score=round(statistics.fmean(entry["scores"]), 2),
        violations=dict(sorted(entry["violations"].items())),
        latency_median_ms=round(statistics.median(entry["lat"]), 3) if entry["lat"] else None,
        latency_max_ms=round(max(entry["max"]), 3) if entry["max"] else None,
        disqualified=disqualified,
    )


def cross_table(
    results: Iterable[MatchResult],
) -> tuple[list[str], dict[tuple[str, str], list[float]]]:
    """Head-to-head: for each ordered pair (a, b), a's points and the games they met.

    At a table of any size, a scores 1 against every bot it finished ahead of and a half
    against every bot it tied with.
    """
    cells: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    bots: set[str] = set()
    for result in results:
        bots.update(result.players)
        for a, rank_a in zip(result.players, result.ranks):
            for b, rank_b in zip(result.players, result.ranks):
                if a != b:
                    cell = cells[(a, b)]
                    cell[0] += 1.0 if rank_a < rank_b else 0.5 if rank_a == rank_b else 0.0
                    cell[1] += 1
    return sorted(bots), dict(cells)


# -- rendering -------------------------------------------------------------------------------

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
        blocks.append(
            f"\n{name}\n"
            + tabulate(
                [_table_row(place, row) for place, row in enumerate(rows, 1)], headers=HEADERS
            )
        )
    return "\n".join(blocks)


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


def render_cross(results: Sequence[MatchResult]) -> str:
    """The bot × bot head-to-head table: points of the row bot against the column bot."""
    bots, cells = cross_table(results)
    rows = []
    for a in bots:
        line: list[str] = [a]
        for b in bots:
            cell = cells.get((a, b))
            line.append("" if a == b or cell is None else f"{cell[0]:g}/{cell[1]:g}")
        rows.append(line)
    return tabulate(rows, headers=["", *bots])


def cross_json(results: Sequence[MatchResult]) -> dict[str, dict[str, dict[str, Any]]]:
    """The head-to-head table as nested objects: ``cross[a][b]`` is a's points against b
    and the games they met."""
    bots, cells = cross_table(results)
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
    """The standings as CSV, one line per (game, bot); ``game`` is ``overall`` for pooled."""
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
        ]
    )
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
                ]
            )
    return out.getvalue()
