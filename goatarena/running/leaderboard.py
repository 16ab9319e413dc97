"""Interim standings while a tournament runs: a cheap rating fit of the games so far.

The runner tells :class:`Leaderboard` of each finished game (only the pair counts of its
bots' ranks and the violations are kept); :class:`~goatarena.running.progress.Progress`
asks for a table every few seconds, never per game, so the fit costs the run nothing
measurable.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

import msgspec

from goatarena.ratings.fit import fit_ratings
from goatarena.ratings.tally import PairTally
from goatarena.referee.records import MatchResult
from goatarena.store.summary import GameSummary

OVERALL = "overall"


class BoardRow(msgspec.Struct, frozen=True):
    """One bot's interim line: Elo with its 95 % interval, games and violations."""

    bot: str
    elo: float
    lo: float
    hi: float
    games: int
    violations: int


class Leaderboard:
    """The finished games of a run so far, counted per table (a pair tally each, whose
    memory grows with the pairs of bots, not the games) and fitted on demand."""

    def __init__(self, results: Iterable[MatchResult] = ()) -> None:
        self._tables: dict[str, PairTally] = {}
        self._violations: dict[str, Counter[str]] = defaultdict(Counter)
        self.games = 0
        for result in results:
            self.add(result)

    def add(self, result: MatchResult) -> None:
        """Count one finished game."""
        counts = [
            len(result.all_violations[seat])
            if seat < len(result.all_violations) and result.all_violations[seat]
            else int(result.violations[seat] is not None)
            for seat in range(len(result.players))
        ]
        self._count(result.game, result.players, result.ranks, counts)

    def add_summary(self, summary: GameSummary) -> None:
        """Count one stored game from its summary."""
        counts = [len(causes) for causes in summary.violations]
        self._count(summary.game, summary.players, summary.ranks, counts)

    def _count(
        self, game: str, players: Sequence[str], ranks: Sequence[int], violations: Sequence[int]
    ) -> None:
        self.games += 1
        for table in (OVERALL, game):
            tally = self._tables.get(table)
            if tally is None:
                tally = self._tables[table] = PairTally()
            tally.add(players, ranks)
            counts = self._violations[table]
            for bot, count in zip(players, violations, strict=True):
                counts[bot] += count

    def names(self) -> list[str]:
        """The tables there are: ``overall`` first, then each game played so far."""
        return [OVERALL] + sorted(name for name in self._tables if name != OVERALL)

    def rows(self, table: str = OVERALL) -> list[BoardRow]:
        """The bots of ``table`` (a game or ``overall``), best first."""
        tally = self._tables.get(table)
        if tally is None or not tally.games:
            return []
        ratings = fit_ratings(tally)
        rows = [
            BoardRow(
                bot=bot,
                elo=rating.elo,
                lo=rating.lo,
                hi=rating.hi,
                games=rating.games,
                violations=self._violations[table][bot],
            )
            for bot, rating in ratings.items()
        ]
        return sorted(rows, key=lambda row: (-row.elo, row.bot))


def board_lines(table: str, rows: list[BoardRow], limit: int) -> list[str]:
    """A compact table: rank, bot, Elo ± half its interval, games, violations."""
    width = max([len(row.bot) for row in rows[:limit]] + [3])
    lines = [f"  {table}:  {'#':>2}  {'bot':<{width}}  {'elo':>5}  {'+/-':>4}  games  viol."]
    for place, row in enumerate(rows[:limit], 1):
        margin = (row.hi - row.lo) / 2
        lines.append(
            f"  {'':{len(table) + 1}}  {place:>2}  {row.bot:<{width}}  {row.elo:>5.0f}"
            f"  {margin:>4.0f}  {row.games:>5}  {row.violations:>5}"
        )
    if len(rows) > limit:
        lines.append(f"  {'':{len(table) + 1}}  ... {len(rows) - limit} more")
    return lines


def board_summary(table: str, rows: list[BoardRow], limit: int = 5) -> str:
    """One line for a log: the leaders of ``table`` with Elo ± half the interval."""
    leaders = ", ".join(
        f"{place}. {row.bot} {row.elo:.0f} +/- {(row.hi - row.lo) / 2:.0f}"
        for place, row in enumerate(rows[:limit], 1)
    )
    more = f" (+{len(rows) - limit})" if len(rows) > limit else ""
    return f"  {table}: {leaders}{more}"
