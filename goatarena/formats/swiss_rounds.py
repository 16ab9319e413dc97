"""One round of a Swiss event: the standings before it, its pairing and its games.

Pure functions of the stored games (their summaries: no move is read), so that a resumed
run pairs every round exactly as the first run did: only games of earlier rounds of the
same event count.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from goatarena.formats.config import GameEntry, TournamentConfig
from goatarena.formats.pairing import SwissPlayer, SwissRound, swiss_round
from goatarena.formats.schedule import ScheduledGame, deal_seed
from goatarena.ratings.fit import points_from_ranks
from goatarena.ratings.points import fitted_elo_of_tally
from goatarena.ratings.tally import PairTally
from goatarena.store.summary import GameSummary


@dataclass(frozen=True)
class SwissEvent:
    """An event's round about to be paired: its label, bots, table size and byes so far."""

    label: str
    bots: list[str]
    table_size: int
    round_number: int
    byes: dict[str, int]


def pair_round(event: SwissEvent, games: Sequence[GameSummary], *, seed: int) -> SwissRound:
    """Pair the event's round from the standings before it."""
    return swiss_round(standings_before(event, games), event.table_size, seed=seed)


def standings_before(event: SwissEvent, games: Sequence[GameSummary]) -> list[SwissPlayer]:
    """Standings before the event's round: points, opponents met, seats and fitted ratings."""
    bots, table_size, byes = event.bots, event.table_size, event.byes
    points: dict[str, float] = {name: byes[name] * (table_size - 1) for name in bots}
    met: dict[str, dict[str, int]] = {name: defaultdict(int) for name in bots}
    seats: dict[str, list[int]] = {name: [0] * table_size for name in bots}
    history: dict[str, list[tuple[int, int, int]]] = {name: [] for name in bots}
    earlier = PairTally()
    for stored in games:
        if stored.round >= event.round_number or not stored.key.startswith(event.label + "/"):
            continue
        result = stored
        earlier.add(result.players, result.ranks)
        deal = _deal_number(stored.key)
        for seat, (name, gained) in enumerate(zip(result.players, points_from_ranks(result.ranks))):
            points[name] += gained
            seats[name][seat] += 1
            history[name].append((stored.round, deal, seat))
            for other in result.players:
                if other != name:
                    met[name][other] += 1
    # The fitted rating breaks ties in points (it weighs whom each bot met); the
    # point estimates alone, which take well under a second even for 256 bots.
    ratings = fitted_elo_of_tally(earlier)
    return [
        SwissPlayer(
            name=name,
            points=points[name],
            rating=ratings.get(name, 0.0),
            opponents=dict(met[name]),
            seats=seats[name],
            byes=byes[name],
            seat_history=[seat for _, _, seat in sorted(history[name])],
        )
        for name in bots
    ]


def round_games(
    config: TournamentConfig,
    entry: GameEntry,
    event: SwissEvent,
    pairing: SwissRound,
    secret: str,
) -> list[ScheduledGame]:
    """The games of a paired round: every table plays each deal, seats rotated per deal."""
    games = []
    for table in pairing.tables:
        for deal in range(config.deals):
            shift = deal % len(table)
            seating = tuple(table[shift:]) + tuple(table[:shift])
            key = f"{event.label}/s{event.round_number}/{'+'.join(table)}/d{deal}"
            games.append(
                ScheduledGame(
                    key=key,
                    game=entry.name,
                    seed=deal_seed(config.seed, key, secret=secret),
                    seating=seating,
                    options=dict(entry.options),
                    round=event.round_number,
                )
            )
    return games


def _deal_number(key: str) -> int:
    """The deal of a Swiss game from its key (``.../d<deal>``); 0 if the key has none."""
    last = key.rsplit("/", 1)[-1]
    return int(last[1:]) if last[:1] == "d" and last[1:].isdigit() else 0
