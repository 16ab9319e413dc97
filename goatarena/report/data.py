"""What the report shows, computed from the games' summaries: standings, head-to-head,
violations, how the ratings settled, the list of games.

Two streamed passes (:func:`read_report_data`): the first counts what every table needs
(standings, head to head and two-player game pairs per game, violations, games per
type) and notes the games whose
violations are listed one by one; the second, knowing the totals, fits the rating history
at its checkpoints and picks the games to list and to replay. Memory for bots and pairs,
plus the capped list; the HTML is made elsewhere.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

import msgspec

from goatarena.ratings._threads import Background
from goatarena.ratings.cross import Cells as Cross
from goatarena.ratings.cross import head_to_head
from goatarena.ratings.fit import RatingFit, fit_tally
from goatarena.ratings.pentanomial import PairRecord, PentanomialTally
from goatarena.ratings.standings import OVERALL, Standings, StandingsTally
from goatarena.ratings.tally import PairTally
from goatarena.referee.records import MatchResult
from goatarena.report.replays import ReplayChooser
from goatarena.store.standings import count_summary
from goatarena.store.summary import GameSummary, summary_of

CHECKPOINTS = 24
"""How many points of each bot's rating history are fitted (evenly spread over the games)."""
EXACT_HISTORY = 100_000
"""Distinct finishes of tables of 3–6 in the whole tournament up to which every point of
the rating history is the exact fit (each then takes at most about a quarter second);
past it the points before the last are pairwise fits (at a million 4-seat games the
overall pairwise fit takes about 1.3 s of CPU, the exact one about 4 s), and the last
is the standings' exact fit."""
LIST_LIMIT = 20_000
"""The most games the report's list holds (those with a replay, then evenly spread over
the tournament); ``goatarena list`` shows them all."""
MAX_VIOLATIONS_LISTED = 200
"""Violations listed one by one (their games' full records are read); the rest are
counted in the table by cause."""

History = dict[str, list[tuple[int, float, float, float]]]


class SprtCourse(msgspec.Struct, frozen=True):
    """A gauntlet's SPRT as it ran: the log-likelihood ratio after each completed pair of
    games (``points``: (pairs, LLR)), its bounds and hypotheses (Elo differences)."""

    challenger: str
    baseline: str
    lower: float
    upper: float
    elo0: float
    elo1: float
    verdict: str
    points: list[tuple[int, float]]

    @property
    def upper_label(self) -> str:
        """What crossing the upper bound means."""
        return f"H1: {self.challenger} is {self.elo1:g} Elo stronger"

    @property
    def lower_label(self) -> str:
        """What crossing the lower bound means."""
        return f"H0: {self.challenger} is {self.elo0:g} Elo stronger at most"


@dataclass(frozen=True)
class ReportData:
    """Everything the page shows but the replays and the violations' details."""

    standings: Standings
    bots: list[str]
    """Every bot that played, sorted."""
    cross: dict[str, Cross]
    """The head-to-head cells overall and per game."""
    pairs: dict[str, dict[tuple[str, str], PairRecord]]
    """The two-player game pairs of every two bots, overall and per game."""
    violations: dict[str, Counter[str]]
    history: dict[str, History]
    replay_keys: set[str]
    detailed: dict[str, int]
    """The games whose violations are listed one by one: key -> number in finishing order."""
    violation_total: int
    game_list: dict[str, Any]
    games: int
    finished: tuple[float, float] | None
    """When the first and the last game finished (Unix time), None without games."""


def read_report_data(
    tournament: str,
    summaries: Callable[[], Iterable[GameSummary]],
    disqualified: Mapping[str, str],
    replays: int,
    *,
    also: Callable[[GameSummary], None] | None = None,
    out: Mapping[str, str] | None = None,
) -> ReportData:
    """The report's tables from two passes over the games' summaries (``summaries()``
    is called twice, each time streaming every game in finishing order); ``also`` is
    shown each summary of the first pass (an SPRT counting the same games); ``out``
    names the bots that play no more, with why (:attr:`Standings.out`)."""
    tally = StandingsTally()
    per_table: Counter[str] = Counter({OVERALL: 0})  # the overall table first
    paired: dict[str, PentanomialTally] = {OVERALL: PentanomialTally()}
    chooser = ReplayChooser(replays)
    detailed: dict[str, int] = {}
    violation_total = 0
    number = 0
    first, last = math.inf, -math.inf
    for number, summary in enumerate(summaries(), 1):
        count_summary(tally, summary)
        per_table[summary.game] += 1
        for table in (OVERALL, summary.game):
            paired.setdefault(table, PentanomialTally()).add(
                summary.key, summary.players, summary.ranks
            )
        chooser.observe(summary)
        committed = sum(map(len, summary.violations))
        if committed and violation_total < MAX_VIOLATIONS_LISTED:
            detailed[summary.key] = number
        violation_total += committed
        first, last = min(first, summary.finished_at), max(last, summary.finished_at)
        if also is not None:
            also(summary)
    per_table[OVERALL] = number
    standings = tally.standings(tournament, disqualified=disqualified)
    standings = msgspec.structs.replace(standings, out=dict(disqualified if out is None else out))
    cross = {OVERALL: head_to_head(tally.pairs)}
    for game in per_table:
        if game != OVERALL:
            cross[game] = head_to_head(tally.pairs, {game})
    chooser.settle()
    finishes = sum(len(patterns.count) for patterns in tally.pairs.patterns())
    rows = _GameRows(per_table[OVERALL], LIST_LIMIT - min(replays, per_table[OVERALL]))
    with _HistoryTally(
        per_table, exact=finishes <= EXACT_HISTORY, finals=tally.fits()
    ) as history_tally:
        for number, summary in enumerate(summaries()):
            history_tally.add(summary)
            rows.offer(number, summary, chooser.pick(summary))
        history = history_tally.history()
    return ReportData(
        standings=standings,
        bots=sorted(tally.pairs.names),
        cross=cross,
        pairs={table: tally.pairs() for table, tally in paired.items()},
        violations=tally.violations(),
        history=history,
        replay_keys=chooser.chosen,
        detailed=detailed,
        violation_total=violation_total,
        game_list=rows.payload(),
        games=per_table[OVERALL],
        finished=None if not number else (first, last),
    )


def rating_history(
    results: Sequence[MatchResult], checkpoints: int = CHECKPOINTS
) -> dict[str, list[tuple[int, float, float, float]]]:
    """Per bot, (games the bot had played, Elo, lo, hi) after each of evenly spread prefixes
    of the games in finishing order (all of them one table): how the estimate settled.

    Each point is the standings' own fit of those games (with the seat-advantage terms
    per game, rounded as the tables are), so the last point of every bot is the rating
    its standings row shows.
    """
    whole = PairTally()
    for result in results:
        whole.add(result.players, result.ranks, result.game)
    exact = sum(len(patterns.count) for patterns in whole.patterns()) <= EXACT_HISTORY
    final = {OVERALL: fit_tally(whole)} if results else {}
    with _HistoryTally({OVERALL: len(results)}, checkpoints, exact=exact, finals=final) as tally:
        for result in results:
            tally.add(summary_of("", 0, result, 0.0))
        return tally.history().get(OVERALL, {})


Points = list[tuple[str, tuple[int, float, float, float]]]
"""One checkpoint of a table: per bot (games played, Elo, lo, hi), rounded as shown."""


class _HistoryTally:
    """The rating history of every table, fitted at checkpoints as the games stream by.

    One tally with seat terms per game, as the standings count it; a table's point is
    :func:`fit_tally` of its games so far (all of them, overall), fitted in threads
    while the games go on streaming (:class:`~goatarena.ratings._threads.Background`,
    each fit on a snapshot of the tally). The points before the last are exact fits
    when ``exact`` (the tally then keeps the patterns of the games of 3–6 bots), else
    pairwise ones; the last is the standings' own fit, taken from ``finals`` (table →
    fit) when given, else made the same way, so that each history ends on the
    standings' ratings.
    """

    def __init__(
        self,
        per_table: Mapping[str, int],
        checkpoints: int = CHECKPOINTS,
        *,
        exact: bool = True,
        finals: Mapping[str, RatingFit] | None = None,
    ) -> None:
        self._ends = {
            table: {max(1, round(total * (k + 1) / checkpoints)) for k in range(checkpoints)}
            for table, total in per_table.items()
            if total
        }
        self._seen: Counter[str] = Counter()
        self._exact = exact
        self._finals = finals or {}
        self._tally = PairTally(patterns=exact)
        self._points: list[tuple[str, Future[Fitted] | Points]] = []
        self._last: tuple[tuple[int, str | None], Future[Fitted] | Points] | None = None
        self._previous: dict[str, Future[Fitted]] = {}
        self._fits = Background()

    def __enter__(self) -> _HistoryTally:
        self._fits.__enter__()
        return self

    def __exit__(self, error: type[BaseException] | None, *rest: object) -> None:
        self._fits.__exit__(error, *rest)

    def add(self, summary: GameSummary) -> None:
        self._tally.add(summary.players, summary.ranks, summary.game, checked=False)
        for table in (OVERALL, summary.game):
            self._seen[table] += 1
            if self._seen[table] in self._ends.get(table, ()):
                self._checkpoint(table)

    def history(self) -> dict[str, History]:
        """Per table, per bot, its points in order (waits for the fits still running)."""
        found: dict[str, History] = {}
        for table, points in self._points:
            history = found.setdefault(table, {})
            for bot, point in points if isinstance(points, list) else points.result()[0]:
                history.setdefault(bot, []).append(point)
        return found

    def _checkpoint(self, table: str) -> None:
        """Fit the table's games so far; while they are of one game, the overall table's
        fit is that game's (the same games), fitted once."""
        seat_key = None if table == OVERALL else table
        one_game = len({key for key, _ in self._tally.families}) == 1
        wanted = (self._tally.games, None if one_game else seat_key)
        if self._last is None or self._last[0] != wanted:
            final = self._seen[table] == max(self._ends[table])
            points: Future[Fitted] | Points
            if final and table in self._finals:
                points = _points_of(self._finals[table])
            else:
                snapshot, exact = self._tally.snapshot(), self._exact or final
                previous = self._previous.get(table)
                points = self._fits.submit(_fitted_points, snapshot, seat_key, exact, previous)
                self._previous[table] = points
            self._last = (wanted, points)
        self._points.append((table, self._last[1]))


Fitted = tuple[Points, RatingFit]
"""A checkpoint fitted: its points and the fit without its problem (the next one's start)."""


def _fitted_points(
    tally: PairTally, seat_key: str | None, exact: bool, previous: Future[Fitted] | None
) -> Fitted:
    """One checkpoint's points, fitted in a thread from where the table's previous point
    ended (Newton's steps from there are fewer); of the fit only its parameters are kept,
    not its problem (arrays the size of the field's cells)."""
    start = None if previous is None else previous.result()[1]
    fitted = fit_tally(tally, seat_key=seat_key, exact=exact, start=start)
    return _points_of(fitted), dataclasses.replace(fitted, _problem=None, _covariance=None)


def _points_of(rating_fit: RatingFit) -> Points:
    return [
        (bot, (rating.games, round(rating.elo, 1), round(rating.lo, 1), round(rating.hi, 1)))
        for bot, rating in rating_fit.ratings.items()
    ]


class _GameRows:
    """The list of games, compactly: bot and game names once, then one array per game,
    at most about ``limit`` rows besides those with a replay.

    A row is ``[key, round, game index, bot indices by seat, ranks, scores, violation
    causes by seat (or null), decisions, has a replay]``, and for a game with violations
    one more element: the violations' details by seat, filled in by :func:`add_details`
    where its record was read (the list stays short for the thousands of games without).
    """

    def __init__(self, total: int, limit: int) -> None:
        self._every = max(1, -(-total // max(limit, 1)))  # ceil: every n-th game is listed
        self.total = total
        self._bots: dict[str, int] = {}
        self._kinds: dict[str, int] = {}
        self._rows: list[list[Any]] = []

    def offer(self, number: int, summary: GameSummary, replayed: bool) -> None:
        if not replayed and number % self._every:
            return
        seats = [self._bots.setdefault(bot, len(self._bots)) for bot in summary.players]
        causes = summary.forfeits
        row = [
            summary.key,
            summary.round,
            self._kinds.setdefault(summary.game, len(self._kinds)),
            seats,
            summary.ranks,
            [round(score, 2) for score in summary.scores],
            causes if any(causes) else None,
            summary.decisions,
            replayed,
        ]
        if any(causes):
            row.append(["" if cause else None for cause in causes])
        self._rows.append(row)

    def payload(self) -> dict[str, Any]:
        return {
            "bots": list(self._bots),
            "games": list(self._kinds),
            "rows": self._rows,
            "total": self.total,
        }


def add_details(game_list: Mapping[str, Any], records: Mapping[str, MatchResult]) -> None:
    """Put the referee's detail of each forfeiting violation into the listed rows of the
    games whose records were read (the others keep the cause alone)."""
    for row in game_list["rows"]:
        result = records.get(row[0])
        if result is not None and len(row) > 9:
            row[9] = [
                f"at decision {violation.decision}: {violation.detail}" if violation else None
                for violation in result.violations
            ]


def tables_in_order(standings: Standings) -> list[str]:
    """Overall first, then each game."""
    return [OVERALL] + [name for name in standings.standings if name != OVERALL]
