"""Standings from stored games: ratings with intervals, results and violations per bot.

Pure: takes finished games, returns rows; rendering as a table, JSON or CSV is separate
(:mod:`goatarena.ratings.standings_render`) so the CLI stays thin. Each table (per game,
and overall) is one rating fit with a seat-advantage term per game and table size; it
also says whether its bots are connected by games (ratings of groups that never met are
not comparable), which entered bots played no game, and, for Swiss events, the Swiss
points and tie-breaks (:mod:`goatarena.ratings.tiebreaks`).

:class:`StandingsTally` takes the games one at a time and keeps only aggregates: the pair
counts of the fit (:class:`~goatarena.ratings.tally.PairTally`) and, per table and bot,
counts, sums and a histogram of per-game median latencies (medians are kept to the
microsecond, so the histogram is bounded by the distinct values, not by the games), so
the standings of a million games need memory for the bots and pairs only. (A Swiss
event's tie-breaks keep its games' seats and ranks: a Swiss has few games per bot.)
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import msgspec

from goatarena.ratings.fit import RatingFit, fit_tally
from goatarena.ratings.standings_render import (
    HEADERS,
    SWISS_HEADERS,
    CrossCells,
    cross_json,
    render_cross,
    render_csv,
    render_json,
    render_los,
    render_tables,
)
from goatarena.ratings.table import OVERALL, Row, SeatTerm, Standings
from goatarena.ratings.tally import PairTally
from goatarena.ratings.tiebreaks import SwissGame, SwissScore, scores_of_events, sum_scores
from goatarena.referee.match import MatchResult, Violation

__all__ = [
    "HEADERS",
    "OVERALL",
    "SWISS_HEADERS",
    "CrossCells",
    "Row",
    "SeatTerm",
    "Standings",
    "StandingsTally",
    "compute_standings",
    "cross_json",
    "cross_table",
    "render_cross",
    "render_csv",
    "render_json",
    "render_los",
    "render_tables",
]

SeatLatency = tuple[float, float] | None
"""A seat's (median, maximum) decision time in ms, or None where none was measured."""


@dataclass
class _BotTally:
    """One bot's aggregates in one table."""

    games: int = 0
    wins: int = 0
    rank_sum: int = 0
    score_partials: list[float] = field(default_factory=list)
    violations: Counter[str] = field(default_factory=Counter)
    medians: Counter[float] = field(default_factory=Counter)
    latency_max: float | None = None

    def add(self, rank: int, score: float, causes: Sequence[str], latency: SeatLatency) -> None:
        self.games += 1
        self.wins += rank == 1
        self.rank_sum += rank
        _add_exactly(self.score_partials, score)
        self.violations.update(causes)
        if latency is not None:
            self.medians[latency[0]] += 1
            if self.latency_max is None or latency[1] > self.latency_max:
                self.latency_max = latency[1]


class StandingsTally:
    """Standings fed one game at a time (see the module docstring); ``cross`` also keeps
    the head-to-head table."""

    def __init__(self, *, cross: bool = False) -> None:
        self.games = 0
        self.pairs = PairTally()
        self._tables: dict[str, dict[str, _BotTally]] = {OVERALL: {}}
        self._cross: dict[tuple[str, str], list[float]] | None = {} if cross else None
        self._events: dict[str, list[SwissGame]] = defaultdict(list)
        self._game_of_event: dict[str, str] = {}

    def add(
        self,
        game: str,
        players: Sequence[str],
        ranks: Sequence[int],
        scores: Sequence[float],
        violations: Sequence[Sequence[str]],
        latency: Sequence[SeatLatency],
        swiss_round: tuple[str, int] | None = None,
    ) -> None:
        """Count one game: per seat its bot, rank, score, violation causes and latency;
        ``swiss_round`` gives a Swiss game's event (its game entry) and round."""
        self.games += 1
        self.pairs.add(players, ranks, game)
        for table in (self._tables[OVERALL], self._tables.setdefault(game, {})):
            for seat, bot in enumerate(players):
                entry = table.get(bot)
                if entry is None:
                    entry = table[bot] = _BotTally()
                entry.add(ranks[seat], scores[seat], violations[seat], latency[seat])
        if self._cross is not None:
            _count_cross(self._cross, players, ranks)
        if swiss_round is not None:
            event, round_number = swiss_round
            self._events[event].append(SwissGame(round_number, list(players), list(ranks)))
            self._game_of_event[event] = game

    def add_result(self, result: MatchResult, swiss_round: tuple[str, int] | None = None) -> None:
        """Count one game from its full record."""
        seats = range(len(result.players))
        self.add(
            result.game,
            result.players,
            result.ranks,
            result.scores,
            [[str(violation.cause) for violation in _violations_of(result, s)] for s in seats],
            [_latency_of(result, seat) for seat in seats],
            swiss_round,
        )

    def violations(self) -> dict[str, Counter[str]]:
        """Per bot that committed any, how many violations of each cause (all games)."""
        return {
            bot: Counter(entry.violations)
            for bot, entry in self._tables[OVERALL].items()
            if entry.violations
        }

    def cross_table(self) -> tuple[list[str], dict[tuple[str, str], list[float]]]:
        """The head-to-head table (the tally must have been made with ``cross``)."""
        if self._cross is None:
            raise ValueError("this tally was made without the head-to-head table")
        return sorted(self._tables[OVERALL]), self._cross

    def standings(
        self,
        tournament: str,
        *,
        disqualified: Mapping[str, str] | None = None,
        bots: Sequence[str] = (),
        swiss: bool = False,
        los: bool = False,
    ) -> Standings:
        """Fit ratings over all games at once, per game and pooled across games (see
        :func:`compute_standings`)."""
        swiss_scores = scores_of_events(self._events, self._game_of_event, bots) if swiss else None
        games = sorted(name for name in self._tables if name != OVERALL)
        standings: dict[str, list[Row]] = {}
        seats: dict[str, list[SeatTerm]] = {}
        connected: dict[str, bool] = {}
        groups: dict[str, list[list[str]]] = {}
        matrices: dict[str, dict[str, dict[str, float]]] = {}
        for name in [OVERALL, *games]:
            chosen = set(games) if name == OVERALL else {name}
            scores = None if swiss_scores is None else sum_scores(swiss_scores, chosen)
            rows, rating_fit = self._rows(name, disqualified or {}, scores)
            if name == OVERALL and len(games) > 1:
                # scores of different games are on different scales: no mean across them
                rows = [msgspec.structs.replace(row, avg_score=None) for row in rows]
            standings[name] = rows
            if rating_fit is None:
                continue
            seats[name] = [
                SeatTerm(term.key, term.players, term.seat, round(term.elo, 1),
                         round(term.lo, 1), round(term.hi, 1))
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
        return Standings(
            tournament=tournament,
            games=self.games,
            standings=standings,
            seat_advantage=seats,
            connected=connected,
            groups=groups,
            no_games=sorted(set(bots) - set(self._tables[OVERALL])),
            los=matrices if los else None,
        )

    def _rows(
        self,
        table: str,
        disqualified: Mapping[str, str],
        swiss: Mapping[str, SwissScore] | None,
    ) -> tuple[list[Row], RatingFit | None]:
        tallies = self._tables.get(table, {})
        if not tallies:
            return [], None
        rating_fit = fit_tally(self.pairs, seat_key=None if table == OVERALL else table)
        rows = [
            _row(bot, rating_fit, entry, disqualified.get(bot),
                 None if swiss is None else swiss.get(bot))
            for bot, entry in tallies.items()
        ]  # fmt: skip
        return sorted(rows, key=lambda row: (-row.elo, row.bot)), rating_fit


def compute_standings(
    tournament: str,
    results: Iterable[MatchResult],
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
    tally = StandingsTally()
    for index, result in enumerate(results):
        tally.add_result(result, None if swiss_rounds is None else swiss_rounds[index])
    return tally.standings(
        tournament,
        disqualified=disqualified,
        bots=bots,
        swiss=swiss_rounds is not None,
        los=los,
    )


def cross_table(
    results: Iterable[MatchResult],
) -> tuple[list[str], dict[tuple[str, str], list[float]]]:
    """Head-to-head: for each ordered pair (a, b), a's points and the games they met.

    At a table of any size, a scores 1 against every bot it finished ahead of and a half
    against every bot it tied with.
    """
    cells: dict[tuple[str, str], list[float]] = {}
    bots: set[str] = set()
    for result in results:
        bots.update(result.players)
        _count_cross(cells, result.players, result.ranks)
    return sorted(bots), cells


def _count_cross(
    cells: dict[tuple[str, str], list[float]], players: Sequence[str], ranks: Sequence[int]
) -> None:
    for a, rank_a in zip(players, ranks, strict=True):
        for b, rank_b in zip(players, ranks, strict=True):
            if a != b:
                cell = cells.get((a, b))
                if cell is None:
                    cell = cells[(a, b)] = [0.0, 0.0]
                cell[0] += 1.0 if rank_a < rank_b else 0.5 if rank_a == rank_b else 0.0
                cell[1] += 1


def _violations_of(result: MatchResult, seat: int) -> list[Violation]:
    """Every violation of a seat (results stored before strikes existed list only one)."""
    if seat < len(result.all_violations):
        return list(result.all_violations[seat])
    violation = result.violations[seat]
    return [] if violation is None else [violation]


def _latency_of(result: MatchResult, seat: int) -> SeatLatency:
    latency = result.latency[seat] if seat < len(result.latency) else None
    return None if latency is None else (latency.median_ms, latency.max_ms)


def _row(
    bot: str,
    rating_fit: RatingFit,
    entry: _BotTally,
    disqualified: str | None,
    swiss: SwissScore | None,
) -> Row:
    rating = rating_fit.ratings[bot]
    median = _median(entry.medians)
    return Row(
        bot=bot,
        elo=round(rating.elo, 1),
        lo=round(rating.lo, 1),
        hi=round(rating.hi, 1),
        games=entry.games,
        wins=entry.wins,
        avg_rank=round(entry.rank_sum / entry.games, 3),
        avg_score=round(math.fsum(entry.score_partials) / entry.games, 2),
        violations=dict(sorted(entry.violations.items())),
        latency_median_ms=None if median is None else round(median, 3),
        latency_max_ms=None if entry.latency_max is None else round(entry.latency_max, 3),
        disqualified=disqualified,
        swiss_points=None if swiss is None else swiss.points,
        buchholz=None if swiss is None else swiss.buchholz,
        sonneborn_berger=None if swiss is None else swiss.sonneborn_berger,
    )


def _median(histogram: Counter[float]) -> float | None:
    """The median of the values a histogram counts, as ``statistics.median`` gives it."""
    total = sum(histogram.values())
    if not total:
        return None
    wanted = [(total - 1) // 2, total // 2]  # the middle one, or the middle two
    found: list[float] = []
    seen = 0
    for value in sorted(histogram):
        seen += histogram[value]
        while wanted and wanted[0] < seen:
            found.append(value)
            wanted.pop(0)
        if not wanted:
            break
    return found[0] if total % 2 else (found[0] + found[1]) / 2


def _add_exactly(partials: list[float], x: float) -> None:
    """Add ``x`` to a sum kept exactly as non-overlapping partials (Shewchuk's algorithm,
    as ``math.fsum`` uses), so that a mean over a million games is the correctly rounded
    mean ``statistics.fmean`` would give, whatever the order of the games."""
    i = 0
    for y in partials:
        if abs(x) < abs(y):
            x, y = y, x
        high = x + y
        low = y - (high - x)
        if low:
            partials[i] = low
            i += 1
        x = high
    partials[i:] = [x]
