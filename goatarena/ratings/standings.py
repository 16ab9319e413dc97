"""Standings from stored games: ratings with intervals, results and violations per bot.

Pure: takes finished :class:`~goatarena.referee.match.MatchResult` values, returns rows;
rendering as a table, JSON or CSV is separate so the CLI stays thin. Each table (per game,
and overall) is one rating fit with a seat-advantage term per game and table size; it
also says whether its bots are connected by games (ratings of groups that never met are
not comparable), which entered bots played no game, and, for Swiss events, the Swiss
points and tie-breaks (:mod:`goatarena.ratings.tiebreaks`).
"""

from __future__ import annotations

import csv
import io
import itertools
import statistics
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgspec
from tabulate import tabulate

from goatarena.ratings.fit import RatingFit, fit
from goatarena.ratings.tiebreaks import SwissScore, scores_per_game, sum_scores
from goatarena.referee.records import MatchResult, Violation

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
    swiss_points: float | None = None
    buchholz: float | None = None
    sonneborn_berger: float | None = None


class SeatTerm(msgspec.Struct, frozen=True):
    """A seat's fitted advantage over the average seat of its game and table size, Elo."""

    game: str
    players: int
    seat: int
    elo: float
    lo: float
    hi: float


class Standings(msgspec.Struct, frozen=True):
    """Standings of a tournament: overall and per game, best first.

    Per table (``overall`` and each game): ``seat_advantage`` lists the fitted seat
    terms; ``connected`` is False when some bots never met the others, directly or
    through common opponents, and ``groups`` then lists the separate groups (their
    ratings are not comparable); ``los`` (when asked for) maps bot a -> bot b -> the
    likelihood that a is stronger than b. ``no_games`` names entered bots without games.
    """

    tournament: str
    games: int
    standings: dict[str, list[Row]]
    seat_advantage: dict[str, list[SeatTerm]] = {}
    connected: dict[str, bool] = {}
    groups: dict[str, list[list[str]]] = {}
    no_games: list[str] = []
    los: dict[str, dict[str, dict[str, float]]] | None = None


def compute_standings(
    tournament: str,
    results: Sequence[MatchResult],
    *,
    disqualified: Mapping[str, str] | None = None,
    bots: Sequence[str] = (),
    swiss_rounds: Sequence[tuple[str, int]] | None = None,
    los: bool = False,
) -> Standings:
    """Fit ratings over all games at once, per game and pooled across games.

    ``bots`` names every entered bot (those without games are listed as such);
    ``swiss_rounds``, for a Swiss tournament, gives each result's event (the game entry
    it belongs to) and round, and adds the Swiss points and tie-breaks to the rows;
    ``los`` adds the likelihood-of-superiority matrices.
    """
    by_game: dict[str, list[int]] = defaultdict(list)
    for index, result in enumerate(results):
        by_game[result.game].append(index)
    swiss = scores_per_game(results, swiss_rounds, bots) if swiss_rounds is not None else None
    tables = {OVERALL: list(range(len(results)))}
    tables.update({game: by_game[game] for game in sorted(by_game)})
    standings: dict[str, list[Row]] = {}
    seats: dict[str, list[SeatTerm]] = {}
    connected: dict[str, bool] = {}
    groups: dict[str, list[list[str]]] = {}
    matrices: dict[str, dict[str, dict[str, float]]] = {}
    for name, indices in tables.items():
        chosen = [results[i] for i in indices]
        scores = None if swiss is None else sum_scores(swiss, {results[i].game for i in indices})
        rows, rating_fit = _rows(chosen, disqualified or {}, scores)
        if name == OVERALL and len(by_game) > 1:
            # scores of different games are on different scales: no mean across them
            rows = [msgspec.structs.replace(row, avg_score=None) for row in rows]
        standings[name] = rows
        if rating_fit is None:
            continue
        seats[name] = [
            SeatTerm(term.key, term.players, term.seat, round(term.elo, 1), round(term.lo, 1),
                     round(term.hi, 1))
            for term in rating_fit.seat_advantage
        ]  # fmt: skip
        connected[name] = len(rating_fit.groups) <= 1
        if not connected[name]:
            groups[name] = [list(group) for group in rating_fit.groups]
        if los:
            matrices[name] = {
                a: {b: round(rating_fit.los(a, b), 4) for b in rating_fit.names if b != a}
                for a in rating_fit.names
            }
    played = {bot for result in results for bot in result.players}
    return Standings(
        tournament=tournament,
        games=len(results),
        standings=standings,
        seat_advantage=seats,
        connected=connected,
        groups=groups,
        no_games=sorted(set(bots) - played),
        los=matrices if los else None,
    )


def _rows(
    results: Sequence[MatchResult],
    disqualified: Mapping[str, str],
    swiss: Mapping[str, SwissScore] | None,
) -> tuple[list[Row], RatingFit | None]:
    if not results:
        return [], None
    rating_fit = fit(
        [dict(zip(r.players, r.ranks)) for r in results], seat_keys=[r.game for r in results]
    )
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
    rows = [
        _row(bot, rating_fit.ratings[bot], tally[bot], disqualified.get(bot),
             None if swiss is None else swiss.get(bot))
        for bot in tally
    ]  # fmt: skip
    return sorted(rows, key=lambda row: (-row.elo, row.bot)), rating_fit


def _violations_of(result: MatchResult, seat: int) -> list[Violation]:
    """Every violation of a seat (results stored before strikes existed list only one)."""
    if seat < len(result.all_violations):
        return result.all_violations[seat]
    violation = result.violations[seat]
    return [] if violation is None else [violation]


def _row(
    bot: str,
    rating: Any,
    entry: dict[str, Any],
    disqualified: str | None,
    swiss: SwissScore | None,
) -> Row:
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
        swiss_points=None if swiss is None else swiss.points,
        buchholz=None if swiss is None else swiss.buchholz,
        sonneborn_berger=None if swiss is None else swiss.sonneborn_berger,
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
        swiss = any(row.swiss_points is not None for row in rows)
        headers = HEADERS + SWISS_HEADERS if swiss else HEADERS
        lines = [_table_row(place, row) + (_swiss_cells(row) if swiss else [])
                 for place, row in enumerate(rows, 1)]  # fmt: skip
        blocks.append(f"\n{name}\n" + tabulate(lines, headers=headers))
        blocks.extend(_notes(standings, name))
    if standings.no_games:
        blocks.append(f"no games: {', '.join(standings.no_games)}")
    return "\n".join(blocks)


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
            "swiss_points",
            "buchholz",
            "sonneborn_berger",
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
                    _blank(row.swiss_points),
                    _blank(row.buchholz),
                    _blank(row.sonneborn_berger),
                ]
            )
    return out.getvalue()


def _blank(value: float | None) -> object:
    return "" if value is None else value
