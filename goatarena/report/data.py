"""What the report shows, computed from stored games: standings, head-to-head, violations,
how the ratings settled, the list of games.

Pure functions of the games' summaries, in two streamed passes (:func:`read_report_data`):
the first counts what every table needs (standings, head to head, violations, games per
type); the second, knowing the totals, fits the rating history at its checkpoints and
picks the games to list and to replay. Memory for bots and pairs, plus the capped list;
the HTML is made elsewhere.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from goatarena.ratings.fit import fit_tally
from goatarena.ratings.standings import OVERALL, Standings, StandingsTally, compute_standings
from goatarena.ratings.tally import PairTally
from goatarena.referee.records import MatchResult
from goatarena.report.replays import ReplayChooser
from goatarena.store.database import StoredGame
from goatarena.store.standings import count_summary
from goatarena.store.summary import GameSummary, summary_of

CHECKPOINTS = 24
"""How many points of each bot's rating history are fitted (evenly spread over the games)."""
LIST_LIMIT = 20_000
"""The most games the report's list holds (those with a replay, then evenly spread over
the tournament); ``goatarena list`` shows them all."""

History = dict[str, list[tuple[int, float, float, float]]]


@dataclass(frozen=True)
class ReportData:
    """Everything the page shows but the replays themselves."""

    standings: Standings
    bots: list[str]
    cross: dict[tuple[str, str], list[float]]
    violations: dict[str, Counter[str]]
    history: dict[str, History]
    replay_keys: set[str]
    game_list: dict[str, Any]
    games: int


def read_report_data(
    tournament: str,
    summaries: Callable[[], Iterable[GameSummary]],
    disqualified: Mapping[str, str],
    replays: int,
) -> ReportData:
    """The report's tables from two passes over the games' summaries (``summaries()``
    is called twice, each time streaming every game in finishing order)."""
    tally = StandingsTally(cross=True)
    per_table: Counter[str] = Counter()
    chooser = ReplayChooser(replays)
    for summary in summaries():
        count_summary(tally, summary)
        per_table[OVERALL] += 1
        per_table[summary.game] += 1
        chooser.observe(summary)
    standings = tally.standings(tournament, disqualified=disqualified)
    chooser.settle()
    histories = {table: _HistoryTally(count) for table, count in per_table.items()}
    rows = _GameRows(per_table[OVERALL], LIST_LIMIT - min(replays, per_table[OVERALL]))
    for number, summary in enumerate(summaries()):
        histories[OVERALL].add(summary)
        histories[summary.game].add(summary)
        replayed = chooser.pick(summary)
        rows.offer(number, summary, replayed)
    bots, cross = tally.cross_table()
    return ReportData(
        standings=standings,
        bots=bots,
        cross=cross,
        violations=tally.violations(),
        history={table: history.history for table, history in histories.items()},
        replay_keys=chooser.chosen,
        game_list=rows.payload(),
        games=per_table[OVERALL],
    )


def standings_of(
    tournament: str, games: Sequence[StoredGame], disqualified: Mapping[str, str]
) -> Standings:
    """The standings per game and overall, as ``goatarena standings`` prints them."""
    return compute_standings(tournament, [game.result for game in games], disqualified=disqualified)


def rating_history(
    results: Sequence[MatchResult], checkpoints: int = CHECKPOINTS
) -> dict[str, list[tuple[int, float, float, float]]]:
    """Per bot, (games the bot had played, Elo, lo, hi) after each of evenly spread prefixes
    of the games in finishing order: how the estimate settled."""
    history = _HistoryTally(len(results), checkpoints)
    for result in results:
        history.add(summary_of("", 0, result, 0.0))
    return history.history


class _HistoryTally:
    """The rating history of one table, fitted at checkpoints as the games stream by."""

    def __init__(self, total: int, checkpoints: int = CHECKPOINTS) -> None:
        ends = {max(1, round(total * (k + 1) / checkpoints)) for k in range(checkpoints)}
        self._ends = ends if total else set()
        self._tally = PairTally()
        self.history: History = {}

    def add(self, summary: GameSummary) -> None:
        self._tally.add(summary.players, summary.ranks)
        if self._tally.games in self._ends:
            for bot, rating in fit_tally(self._tally).ratings.items():
                point = (rating.games, rating.elo, rating.lo, rating.hi)
                self.history.setdefault(bot, []).append(point)


class _GameRows:
    """The list of games, compactly: bot and game names once, then one array per game,
    at most about ``limit`` rows besides those with a replay.

    A row is ``[key, round, game index, bot indices by seat, ranks, scores, violation
    causes by seat (or null), decisions, has a replay]``.
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
        self._rows.append(
            [
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
        )

    def payload(self) -> dict[str, Any]:
        return {
            "bots": list(self._bots),
            "games": list(self._kinds),
            "rows": self._rows,
            "total": self.total,
        }


def tables_in_order(standings: Standings) -> list[str]:
    """Overall first, then each game."""
    return [OVERALL] + [name for name in standings.standings if name != OVERALL]
