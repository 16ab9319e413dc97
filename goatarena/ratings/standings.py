"""Standings from stored games: ratings with intervals, results and violations per bot.

Pure: takes finished games, returns rows; rendering as a table, JSON or CSV is separate
(:mod:`goatarena.ratings.standings_render`) so the CLI stays thin. Each table (per game,
and overall) is one rating fit with a seat-advantage term per game and table size; it
also says whether its bots are connected by games (ratings of groups that never met are
not comparable), which entered bots played no game, and, for Swiss events, the Swiss
points and tie-breaks (:mod:`goatarena.ratings.tiebreaks`).

:class:`StandingsTally` takes the games one at a time and keeps only aggregates: the pair
counts of the fit (:class:`~goatarena.ratings.tally.PairTally`) and per-bot results in
columns (:class:`~goatarena.ratings.seat_stats.SeatStats`), so the standings of a million
games need memory for the bots and pairs, plus 22 bytes a seat for the scores and median
latencies that an exact mean and a median need (88 MB for a million 4-seat games), and a
Swiss event's seats and ranks per game, which its tie-breaks need (a Swiss has few games
per bot).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence

import msgspec
import numpy as np

from goatarena.ratings._threads import map_in_threads
from goatarena.ratings.clusters import DealScores, deal_adjusted
from goatarena.ratings.cross import head_to_head
from goatarena.ratings.fit import RatingFit, fit_tally
from goatarena.ratings.pentanomial import PairRecord, PentanomialTally
from goatarena.ratings.seat_stats import BotStats, SeatLatency, SeatStats
from goatarena.ratings.standings_render import (
    HEADERS,
    SWISS_HEADERS,
    CrossCells,
    cross_json,
    render_cross,
    render_csv,
    render_game_pairs,
    render_json,
    render_los,
    render_tables,
)
from goatarena.ratings.table import OVERALL, Row, SeatTerm, Standings
from goatarena.ratings.tally import PairTally
from goatarena.ratings.tiebreaks import SwissGame, SwissScore, scores_of_events, sum_scores
from goatarena.referee.records import MatchResult, Violation

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
    "render_game_pairs",
    "render_json",
    "render_los",
    "render_tables",
]


class StandingsTally:
    """Standings fed one game at a time (see the module docstring); ``cross`` also keeps
    the head-to-head table and the two-player game pairs
    (:class:`~goatarena.ratings.pentanomial.PentanomialTally`, fed the games given a key)."""

    def __init__(self, *, cross: bool = False) -> None:
        self.games = 0
        self.pairs = PairTally()
        self._seats = SeatStats()
        self._kinds: dict[str, int] = {}
        self._cross = cross
        self._pentanomial = PentanomialTally() if cross else None
        self._events: dict[str, list[SwissGame]] = defaultdict(list)
        self._game_of_event: dict[str, str] = {}
        self._fits: dict[str, RatingFit] | None = None

    def add(
        self,
        game: str,
        players: Sequence[str],
        ranks: Sequence[int],
        scores: Sequence[float],
        violations: Sequence[Sequence[str]],
        latency: Sequence[SeatLatency],
        swiss_round: tuple[str, int] | None = None,
        *,
        checked: bool = True,
        key: str | None = None,
    ) -> None:
        """Count one game: per seat its bot, rank, score, violation causes and latency;
        ``swiss_round`` gives a Swiss game's event (its game entry) and round. Without
        ``checked`` the ranks are taken to be ints (a decoded summary's are); ``key``, the
        game's schedule key, pairs the rotations of a deal for the head-to-head."""
        self.games += 1
        self._fits = None
        numbers = self.pairs.add(players, ranks, game, checked=checked)
        kind = self._kinds.setdefault(game, len(self._kinds))
        self._seats.add(kind, numbers, ranks, scores, violations, latency)
        if self._pentanomial is not None and key is not None:
            self._pentanomial.add(key, players, ranks)
        if swiss_round is not None:
            event, round_number = swiss_round
            self._events[event].append(SwissGame(round_number, list(players), list(ranks)))
            self._game_of_event[event] = game

    def absorb(self, other: StandingsTally) -> None:
        """Add what ``other`` counted (other games, read apart: a second process's share
        of a large store), as if its games had been added here. Neither tally may keep
        a head-to-head table or Swiss events, which need the games in order."""
        if self._cross or other._cross or self._events or other._events:
            raise ValueError("a tally with a head-to-head table or Swiss events absorbs none")
        bots = self.pairs.absorb(other.pairs)
        kinds = np.array(
            [self._kinds.setdefault(name, len(self._kinds)) for name in other._kinds],
            dtype=np.int64,
        )  # other's kinds in the order it numbered them (a dict keeps that order)
        self._seats.absorb(other._seats, kinds, bots)
        self.games += other.games
        self._fits = None

    @property
    def keeps_cross(self) -> bool:
        """Whether the tally keeps the head-to-head table (made with ``cross``)."""
        return self._cross

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
            self.pairs.names[number]: Counter(entry.violations)
            for number, entry in self._table(None).items()
            if entry.violations
        }

    def cross_table(self) -> tuple[list[str], dict[tuple[str, str], list[float]]]:
        """The head-to-head table (the tally must have been made with ``cross``)."""
        if not self._cross:
            raise ValueError("this tally was made without the head-to-head table")
        return sorted(self.pairs.names), head_to_head(self.pairs)

    def game_pairs(self) -> dict[tuple[str, str], PairRecord]:
        """The two-player game pairs of every two bots (made with ``cross``)."""
        if self._pentanomial is None:
            raise ValueError("this tally was made without the head-to-head table")
        return self._pentanomial.pairs()

    def standings(
        self,
        tournament: str,
        *,
        disqualified: Mapping[str, str] | None = None,
        bots: Sequence[str] = (),
        swiss: bool = False,
        los: bool = False,
        deal_games: Callable[[], Iterable[DealGame]] | None = None,
    ) -> Standings:
        """Fit ratings over all games at once, per game and pooled across games (see
        :func:`compute_standings`). ``deal_games``, when given, reads the same games once
        more (deal key, game, bots in seat order, ranks) for the deal-adjusted intervals
        of every table (:attr:`Row.deal_lo`, :attr:`Row.deal_hi`)."""
        swiss_scores = scores_of_events(self._events, self._game_of_event, bots) if swiss else None
        games = sorted(self._kinds)
        standings: dict[str, list[Row]] = {}
        seats: dict[str, list[SeatTerm]] = {}
        connected: dict[str, bool] = {}
        groups: dict[str, list[list[str]]] = {}
        matrices: dict[str, dict[str, dict[str, float]]] = {}
        fits = self.fits()
        for name in [OVERALL, *games]:
            chosen = set(games) if name == OVERALL else {name}
            scores = None if swiss_scores is None else sum_scores(swiss_scores, chosen)
            rating_fit = fits.get(name)
            rows = self._rows(name, disqualified or {}, scores, rating_fit)
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
        if deal_games is not None and fits:
            standings = _with_deal_intervals(standings, fits, deal_games())
        return Standings(
            tournament=tournament,
            games=self.games,
            standings=standings,
            seat_advantage=seats,
            connected=connected,
            groups=groups,
            no_games=sorted(set(bots) - set(self.pairs.names)),
            los=matrices if los else None,
        )

    def _table(self, game: str | None) -> dict[int, BotStats]:
        kind = None if game is None else self._kinds[game]
        return self._seats.table(len(self._kinds), len(self.pairs.names), kind)

    def fits(self) -> dict[str, RatingFit]:
        """The rating fit of every table (overall and per game), fitted side by side on
        the usable CPUs the first time; with one game, its table and the overall one are
        the same games and share one fit."""
        if self._fits is None:
            games = sorted(self._kinds)
            tables = [OVERALL, *games] if len(games) > 1 else [OVERALL]
            if not self.games:
                return {}
            self.pairs.patterns()  # fold every buffered game now: the fits only read
            self._fits = dict(zip(tables, map_in_threads(self._fit, tables), strict=True))
            if len(games) == 1:
                self._fits[games[0]] = self._fits[OVERALL]
        return self._fits

    def _fit(self, table: str) -> RatingFit:
        return fit_tally(self.pairs, seat_key=None if table == OVERALL else table)

    def _rows(
        self,
        table: str,
        disqualified: Mapping[str, str],
        swiss: Mapping[str, SwissScore] | None,
        rating_fit: RatingFit | None,
    ) -> list[Row]:
        if rating_fit is None:
            return []
        stats = self._table(None if table == OVERALL else table)
        rows = []
        for number, entry in stats.items():
            bot = self.pairs.names[number]
            rows.append(
                _row(bot, rating_fit, entry, disqualified.get(bot),
                     None if swiss is None else swiss.get(bot))
            )  # fmt: skip
        return sorted(rows, key=lambda row: (-row.elo, row.bot))


DealGame = tuple[str, str, Sequence[str], Sequence[int]]
"""One game as the deal-adjusted intervals read it: deal key, game, bots, ranks."""


def _with_deal_intervals(
    standings: dict[str, list[Row]], fits: Mapping[str, RatingFit], games: Iterable[DealGame]
) -> dict[str, list[Row]]:
    """The rows with the deal-adjusted intervals of every table, one pass over the games
    feeding every table's :class:`DealScores` (the overall table's sees them all)."""
    scores: dict[str, DealScores] = {}
    for name, rating_fit in fits.items():
        # a table that shares another's fit (one game and overall) shares its scores
        shared = [scores[other] for other in scores if fits[other] is rating_fit]
        scores[name] = shared[0] if shared else DealScores(rating_fit)
    for deal, game, players, ranks in games:
        fed = scores.get(OVERALL)
        if fed is not None:
            fed.add(deal, players, ranks, game)
        own = scores.get(game)
        if own is not None and own is not fed:
            own.add(deal, players, ranks, game)
    adjusted = {name: deal_adjusted(table) for name, table in scores.items()}
    return {
        name: [
            row
            if name not in adjusted
            else msgspec.structs.replace(
                row,
                deal_lo=round(adjusted[name].ratings[row.bot].lo, 1),
                deal_hi=round(adjusted[name].ratings[row.bot].hi, 1),
            )
            for row in rows
        ]
        for name, rows in standings.items()
    }


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
    tally = PairTally()
    for result in results:
        tally.add(result.players, result.ranks)
    return sorted(tally.names), head_to_head(tally)


def _violations_of(result: MatchResult, seat: int) -> list[Violation]:
    """Every violation of a seat (results stored before strikes existed list only one)."""
    if seat < len(result.all_violations):
        return list(result.all_violations[seat])
    violation = result.violations[seat]
    return [] if violation is None else [violation]


def _latency_of(result: MatchResult, seat: int) -> SeatLatency:
    return result.latency[seat] if seat < len(result.latency) else None


def _row(
    bot: str,
    rating_fit: RatingFit,
    entry: BotStats,
    disqualified: str | None,
    swiss: SwissScore | None,
) -> Row:
    rating = rating_fit.ratings[bot]
    median, worst = entry.latency_median_ms, entry.latency_max_ms
    return Row(
        bot=bot,
        elo=round(rating.elo, 1),
        lo=round(rating.lo, 1),
        hi=round(rating.hi, 1),
        games=entry.games,
        wins=entry.wins,
        avg_rank=round(entry.avg_rank, 3),
        avg_score=round(entry.avg_score, 2),
        violations=entry.violations,
        latency_median_ms=None if median is None else round(median, 3),
        latency_max_ms=None if worst is None else round(worst, 3),
        disqualified=disqualified,
        swiss_points=None if swiss is None else swiss.points,
        buchholz=None if swiss is None else swiss.buchholz,
        sonneborn_berger=None if swiss is None else swiss.sonneborn_berger,
    )
