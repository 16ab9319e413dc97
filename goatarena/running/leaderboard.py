"""Interim standings while a tournament runs: a cheap rating fit of the games so far.

The runner tells :class:`Leaderboard` of each finished game; only counts are kept (how
often each finishing order of a set of bots happened, each bot's games and violations),
so its memory grows with the bots and tables met, never with the number of games.
:class:`~goatarena.running.progress.Progress` asks for a table every few seconds, never
per game, so the fit costs the run nothing measurable.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

import msgspec

from goatarena.ratings.fit import fit_ratings
from goatarena.referee.match import MatchResult
from goatarena.store.summary import GameSummary

OVERALL = "overall"

_Outcome = tuple[tuple[str, int], ...]


class BoardRow(msgspec.Struct, frozen=True):
    """One bot's interim line: Elo with its 95 % interval, games and violations."""

    bot: str
    elo: float
    lo: float
    hi: float
    games: int
    violations: int


class Leaderboard:
    """The finished games of a run so far, fitted on demand per game and overall."""

    def __init__(self, results: Iterable[MatchResult] = ()) -> None:
        self._outcomes: dict[str, Counter[_Outcome]] = defaultdict(Counter)
        """Per table: how often each finishing order (bot, rank), sorted by bot, happened."""
        self._played: dict[str, Counter[str]] = defaultdict(Counter)
        self._violations: dict[str, Counter[str]] = defaultdict(Counter)
        self.games = 0
        for result in results:
            self.add(result)

    @classmethod
    def from_summaries(cls, summaries: Iterable[GameSummary]) -> Leaderboard:
        """A leaderboard of stored games, read from their summaries (no moves decoded)."""
        board = cls()
        for summary in summaries:
            counts = [
                len(causes) or (forfeit is not None)
                for causes, forfeit in zip(summary.violations, summary.forfeits, strict=True)
            ]
            board._count(summary.game, summary.players, summary.ranks, counts)
        return board

    def add(self, result: MatchResult) -> None:
        """Count one finished game."""
        counts = [
            len(result.all_violations[seat] if seat < len(result.all_violations) else [])
            or (result.violations[seat] is not None)
            for seat in range(len(result.players))
        ]
        self._count(result.game, result.players, result.ranks, counts)

    def _count(
        self, game: str, players: Sequence[str], ranks: Sequence[int], violations: Sequence[int]
    ) -> None:
        outcome = tuple(sorted(zip(players, ranks, strict=True)))
        self.games += 1
        for table in (OVERALL, game):
            self._outcomes[table][outcome] += 1
            self._played[table].update(players)
            counts = self._violations[table]
            for bot, many in zip(players, violations, strict=True):
                counts[bot] += many

    def names(self) -> list[str]:
        """The tables there are: ``overall`` first, then each game played so far."""
        return [OVERALL] + sorted(name for name in self._outcomes if name != OVERALL)

    def rows(self, table: str = OVERALL) -> list[BoardRow]:
        """The bots of ``table`` (a game or ``overall``), best first."""
        outcomes = self._outcomes.get(table)
        if not outcomes:
            return []
        # The fit is the same for the same counts in any order: each finishing order is
        # one mapping, listed as often as it happened.
        games: list[dict[str, int]] = []
        for outcome, times in outcomes.items():
            games += [dict(outcome)] * times
        ratings = fit_ratings(games)
        played = self._played[table]
        rows = [
            BoardRow(
                bot=bot,
                elo=rating.elo,
                lo=rating.lo,
                hi=rating.hi,
                games=played[bot],
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
