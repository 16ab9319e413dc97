"""What the report shows, computed from stored games: standings, head-to-head, violations,
how the ratings settled, the list of games.

Pure functions of the stored games; the HTML is made elsewhere.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from goatarena.ratings.fit import fit
from goatarena.ratings.standings import OVERALL, Standings, compute_standings, cross_table
from goatarena.referee.records import MatchResult
from goatarena.store.database import StoredGame


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


CHECKPOINTS = 24
"""How many points of each bot's rating history are fitted (evenly spread over the games)."""


def standings_of(
    tournament: str, games: Sequence[StoredGame], disqualified: Mapping[str, str]
) -> Standings:
    """The standings per game and overall, as ``goatarena standings`` prints them."""
    return compute_standings(tournament, [game.result for game in games], disqualified=disqualified)


def head_to_head(
    results: Sequence[MatchResult],
) -> tuple[list[str], dict[tuple[str, str], list[float]]]:
    """Bots and, per ordered pair, the row bot's points against the column bot and games."""
    return cross_table(results)


def violations_by_cause(results: Sequence[MatchResult]) -> dict[str, Counter[str]]:
    """Per bot, how many violations of each cause it committed."""
    table: dict[str, Counter[str]] = defaultdict(Counter)
    for result in results:
        for seat, bot in enumerate(result.players):
            listed = result.all_violations[seat] if seat < len(result.all_violations) else []
            if not listed and result.violations[seat] is not None:
                listed = [result.violations[seat]]  # type: ignore[list-item]
            for violation in listed:
                table[bot][violation.cause] += 1
    return dict(table)


def rating_history(
    results: Sequence[MatchResult], checkpoints: int = CHECKPOINTS
) -> dict[str, list[tuple[int, float, float, float]]]:
    """Per bot, (games the bot had played, Elo, lo, hi) after each of evenly spread prefixes
    of the games in finishing order: how the estimate settled.

    Each point is the standings' own fit of those games (with the seat-advantage terms
    per game, rounded as the tables are), so the last point of every bot is the rating
    its standings row shows.
    """
    tables = [dict(zip(result.players, result.ranks, strict=True)) for result in results]
    seat_keys = [result.game for result in results]
    if not tables:
        return {}
    ends = sorted({max(1, round(len(tables) * (k + 1) / checkpoints)) for k in range(checkpoints)})
    history: dict[str, list[tuple[int, float, float, float]]] = defaultdict(list)
    played: Counter[str] = Counter()
    start = 0
    for end in ends:
        for table in tables[start:end]:
            played.update(table.keys())
        start = end
        ratings = fit(tables[:end], seat_keys=seat_keys[:end]).ratings
        for bot, rating in ratings.items():
            point = (played[bot], round(rating.elo, 1), round(rating.lo, 1), round(rating.hi, 1))
            history[bot].append(point)
    return dict(history)


def game_rows(games: Sequence[StoredGame], replayed: set[str]) -> dict[str, Any]:
    """The list of games, compactly: bot and game names once, then one array per game.

    A row is ``[key, round, game index, bot indices by seat, ranks, scores, violation
    causes by seat (or null), decisions, has a replay]``, and for a game with violations
    one more element: the violations' details by seat (the list stays short for the
    thousands of games without).
    """
    bots: dict[str, int] = {}
    kinds: dict[str, int] = {}
    rows = []
    for game in games:
        result = game.result
        seats = [bots.setdefault(bot, len(bots)) for bot in result.players]
        causes = [violation.cause if violation else None for violation in result.violations]
        details = [
            f"at decision {violation.decision}: {violation.detail}" if violation else None
            for violation in result.violations
        ]
        row = [
            game.key,
            game.round,
            kinds.setdefault(result.game, len(kinds)),
            seats,
            result.ranks,
            [round(score, 2) for score in result.scores],
            causes if any(causes) else None,
            len(result.decisions),
            game.key in replayed,
        ]
        if any(causes):
            row.append(details)
        rows.append(row)
    return {"bots": list(bots), "games": list(kinds), "rows": rows}


def tables_in_order(standings: Standings) -> list[str]:
    """Overall first, then each game."""
    return [OVERALL] + [name for name in standings.standings if name != OVERALL]
