"""Interim standings while a tournament runs: a cheap rating fit of the games so far.

The runner tells :class:`Leaderboard` of each finished game (only the pair counts of its
bots' ranks, the violations and its deal's pattern are kept);
:class:`~goatarena.running.progress.Progress` asks for a table every few seconds, never
per game, so the fit costs the run nothing measurable.

Two intervals. The *raw* one (``lo``/``hi``) is the fit's own, every game counted as
independent. Where the run plays its deals in several seat rotations (a round-robin, a
gauntlet), the games of a deal share its luck, and the board also shows the
*deal-adjusted* interval (``deal_lo``/``deal_hi``): the same cluster-robust sandwich
over deals as ``goatarena standings --deals`` (:mod:`goatarena.ratings.clusters`), at the
board's fit (which has no seat terms). It needs each deal's games, so a deal is kept as
its *pattern* — its bots in seat order and their ranks in every rotation — counted once
per deal that played it: at two seats at most nine patterns per two bots, so memory
grows with the pairs of bots, not the games; at more seats nearly every deal is a pattern
of its own, and at most :data:`MAX_PATTERNS` are kept per table, standing for all. A
deal is complete once it has as many games as seats; the deals still being played count
as they stand.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

import msgspec

from goatarena.ratings.clusters import DealScores, deal_adjusted, rotation_deal
from goatarena.ratings.fit import fit_tally
from goatarena.ratings.tally import PairTally
from goatarena.referee.records import MatchResult
from goatarena.store.summary import GameSummary

OVERALL = "overall"
MAX_OPEN_DEALS = 10_000
"""Deals kept waiting for their other rotations at most; past that the oldest is counted
as it stands (the rotations of a deal are played one after another)."""
MAX_PATTERNS = 5_000
"""Distinct deal patterns kept per table at most. At two seats a table never has more
than nine per two bots; at more seats nearly every deal is a pattern of its own, and
past this many the deals kept stand for all: their squared scores are weighed by all
deals over those kept (a refit then costs about 0.4 s of CPU at four seats)."""

_Seating = tuple[tuple[str, ...], tuple[int, ...]]
_Pattern = tuple[_Seating, ...]


class BoardRow(msgspec.Struct, frozen=True):
    """One bot's interim line: Elo with its raw 95 % interval (every game independent)
    and, where deals are played in several rotations, its deal-adjusted one; games and
    violations."""

    bot: str
    elo: float
    lo: float
    hi: float
    games: int
    violations: int
    deal_lo: float | None = None
    deal_hi: float | None = None


class _DealPatterns:
    """The deals of one table as patterns (see the module docstring)."""

    def __init__(self) -> None:
        self.closed: Counter[_Pattern] = Counter()
        self.open: dict[str, list[_Seating]] = {}
        self.rotated = False
        """Whether any deal has had more than one game."""
        self.kept = 0
        """The complete deals kept as patterns."""
        self.total = 0
        """The complete deals counted, kept or not."""

    def add(self, deal: str | None, players: Sequence[str], ranks: Sequence[int]) -> None:
        seating = (tuple(players), tuple(ranks))
        if deal is None:  # a game played in one seating: a deal of its own
            self._close((seating,))
            return
        games = self.open.setdefault(deal, [])
        games.append(seating)
        self.rotated = self.rotated or len(games) > 1
        if len(games) >= len(players):
            self._close(tuple(sorted(self.open.pop(deal))))
        elif len(self.open) > MAX_OPEN_DEALS:
            oldest = next(iter(self.open))
            self._close(tuple(sorted(self.open.pop(oldest))))

    def _close(self, pattern: _Pattern) -> None:
        self.total += 1
        if pattern in self.closed or len(self.closed) < MAX_PATTERNS:
            self.closed[pattern] += 1
            self.kept += 1

    @property
    def weight(self) -> float:
        """What each deal kept stands for: all complete deals over those kept."""
        return self.total / self.kept if self.kept else 1.0

    def patterns(self) -> Iterable[tuple[_Pattern, float]]:
        """Every deal pattern with the deals it stands for; the deals still open count
        as they stand."""
        weight = self.weight
        for pattern, count in self.closed.items():
            yield pattern, count * weight
        for games in self.open.values():
            yield tuple(sorted(games)), 1.0


class Leaderboard:
    """The finished games of a run so far, counted per table (a pair tally each, whose
    memory grows with the pairs of bots, not the games, and the deals' patterns) and
    fitted on demand."""

    def __init__(self, results: Iterable[MatchResult] = ()) -> None:
        self._tables: dict[str, PairTally] = {}
        self._deals: dict[str, _DealPatterns] = {}
        self._violations: dict[str, Counter[str]] = defaultdict(Counter)
        self.games = 0
        for result in results:
            self.add(result)

    def add(self, result: MatchResult, key: str | None = None) -> None:
        """Count one finished game; ``key``, its schedule key, names its deal (without
        one the game counts as a deal of its own)."""
        counts = [
            len(result.all_violations[seat])
            if seat < len(result.all_violations) and result.all_violations[seat]
            else int(result.violations[seat] is not None)
            for seat in range(len(result.players))
        ]
        deal = None if key is None else rotation_deal(key)
        self._count(result.game, result.players, result.ranks, counts, deal)

    def add_summary(self, summary: GameSummary) -> None:
        """Count one stored game from its summary."""
        counts = [len(causes) for causes in summary.violations]
        deal = rotation_deal(summary.key)
        self._count(summary.game, summary.players, summary.ranks, counts, deal)

    def _count(
        self,
        game: str,
        players: Sequence[str],
        ranks: Sequence[int],
        violations: Sequence[int],
        deal: str | None,
    ) -> None:
        self.games += 1
        for table in (OVERALL, game):
            tally = self._tables.get(table)
            if tally is None:
                tally = self._tables[table] = PairTally()
                self._deals[table] = _DealPatterns()
            tally.add(players, ranks)
            # one deal key per game entry: the overall table must not merge two games'
            self._deals[table].add(None if deal is None else f"{game}\n{deal}", players, ranks)
            counts = self._violations[table]
            for bot, count in zip(players, violations, strict=True):
                counts[bot] += count

    def names(self) -> list[str]:
        """The tables there are: ``overall`` first, then each game played so far."""
        return [OVERALL] + sorted(name for name in self._tables if name != OVERALL)

    def rows(self, table: str = OVERALL) -> list[BoardRow]:
        """The bots of ``table`` (a game or ``overall``), best first; with the
        deal-adjusted intervals where the table's deals are played in rotations."""
        tally = self._tables.get(table)
        if tally is None or not tally.games:
            return []
        rating_fit = fit_tally(tally)
        deals = self._deals[table]
        adjusted = None
        if deals.rotated:
            scores = DealScores(rating_fit)
            for pattern, alike in deals.patterns():
                scores.add_deal([(players, ranks, None) for players, ranks in pattern], alike)
            adjusted = deal_adjusted(scores).ratings
        rows = [
            BoardRow(
                bot=bot,
                elo=rating.elo,
                lo=rating.lo,
                hi=rating.hi,
                games=rating.games,
                violations=self._violations[table][bot],
                deal_lo=None if adjusted is None else adjusted[bot].lo,
                deal_hi=None if adjusted is None else adjusted[bot].hi,
            )
            for bot, rating in rating_fit.ratings.items()
        ]
        return sorted(rows, key=lambda row: (-row.elo, row.bot))


def _deal_margin(row: BoardRow) -> float | None:
    if row.deal_lo is None or row.deal_hi is None:
        return None
    return (row.deal_hi - row.deal_lo) / 2


def board_lines(table: str, rows: list[BoardRow], limit: int) -> list[str]:
    """A compact table: rank, bot, Elo ± half its raw interval (every game independent),
    ± half the deal-adjusted one where there is one, games, violations."""
    width = max([len(row.bot) for row in rows[:limit]] + [3])
    by_deal = any(row.deal_lo is not None for row in rows)
    deal_head = "  deal +/-" if by_deal else ""
    lines = [
        f"  {table}:  {'#':>2}  {'bot':<{width}}  {'elo':>5}  {'+/-':>4}{deal_head}  games  viol."
    ]
    for place, row in enumerate(rows[:limit], 1):
        margin = (row.hi - row.lo) / 2
        deal = _deal_margin(row)
        deal_cell = "" if not by_deal else f"  {'-' if deal is None else f'{deal:.0f}':>8}"
        lines.append(
            f"  {'':{len(table) + 1}}  {place:>2}  {row.bot:<{width}}  {row.elo:>5.0f}"
            f"  {margin:>4.0f}{deal_cell}  {row.games:>5}  {row.violations:>5}"
        )
    if len(rows) > limit:
        lines.append(f"  {'':{len(table) + 1}}  ... {len(rows) - limit} more")
    return lines


def board_summary(table: str, rows: list[BoardRow], limit: int = 5) -> str:
    """One line for a log: the leaders of ``table`` with Elo ± half the raw interval,
    and ``/`` half the deal-adjusted one where there is one."""
    by_deal = any(row.deal_lo is not None for row in rows)
    leaders = ", ".join(
        f"{place}. {row.bot} {row.elo:.0f} +/- {(row.hi - row.lo) / 2:.0f}"
        + (f"/{margin:.0f}" if (margin := _deal_margin(row)) is not None else "")
        for place, row in enumerate(rows[:limit], 1)
    )
    more = f" (+{len(rows) - limit})" if len(rows) > limit else ""
    label = f"{table} (+/- raw/deal-adjusted)" if by_deal else table
    return f"  {label}: {leaders}{more}"
