"""Which games a tournament plays: value types and the round-robin schedule.

Every scheduled game has a key that names it uniquely and stably, so a resumed run can
tell which games are finished. Seeds derive from the master seed and the key of the
deal, never from the order in which games happen to run.
"""

from __future__ import annotations

import hashlib

import msgspec

from goatarena.formats.config import GameEntry, TournamentConfig
from goatarena.formats.pairing import round_robin_tables, seat_rotations


class ScheduledGame(msgspec.Struct, frozen=True):
    """One game to play: its key, the game, options, seed and the bots by seat."""

    key: str
    game: str
    seed: int
    seating: tuple[str, ...]
    options: dict[str, object] = {}
    round: int = 0


def deal_seed(master: int, *parts: object, secret: str = "") -> int:
    """A 63-bit seed for one deal, derived from the master seed and the deal's name, and
    from the tournament's deal secret when it has one (then the file alone reveals nothing).
    """
    text = ":".join(str(part) for part in (master, *parts))
    if secret:
        text = f"{secret}:{text}"
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big") >> 1


def entry_label(index: int, entry: GameEntry) -> str:
    """A key prefix naming one game entry of the tournament file."""
    return f"{index}.{entry.name}.{entry.players}p"


def match_id(key: str, secret: str) -> str:
    """The opaque id a bot is told for a game: it names the game without revealing it."""
    return hashlib.blake2b(f"{secret}:{key}".encode(), digest_size=8).hexdigest()


def round_robin_schedule(config: TournamentConfig, *, secret: str = "") -> list[ScheduledGame]:
    """Every k-subset of bots plays each deal once per seat rotation, on the same seed.

    ``secret`` is the tournament's deal secret (empty: deals follow from the file alone).
    """
    bots = list(config.bots)
    games = []
    for index, entry in enumerate(config.games):
        label = entry_label(index, entry)
        for table in round_robin_tables(bots, entry.players):
            for deal in range(config.deals):
                table_key = f"{label}/{'+'.join(table)}/d{deal}"
                seed = deal_seed(config.seed, table_key, secret=secret)
                for rotation, seating in enumerate(seat_rotations(table)):
                    games.append(
                        ScheduledGame(
                            key=f"{table_key}/r{rotation}",
                            game=entry.name,
                            seed=seed,
                            seating=tuple(seating),
                            options=dict(entry.options),
                        )
                    )
    return games


def deal_number(key: str) -> int:
    """The deal index in a round-robin or gauntlet key (``.../d3/r1`` is deal 3)."""
    return int(key.rsplit("/", 2)[1][1:])


def gauntlet_schedule(config: TournamentConfig, *, secret: str = "") -> list[ScheduledGame]:
    """The round-robin games whose table seats a challenger, deal by deal.

    Keys and seeds are the round-robin's, so games among the pool already stored in the
    same database, and any round-robin game that seats a challenger, count as they are.
    Deal-major order (every table's deal 0, then deal 1, ...) lets an SPRT decide from
    the first deals while later ones are still unplayed.
    """
    challengers = set(config.challengers)
    games = [
        game
        for game in round_robin_schedule(config, secret=secret)
        if challengers.intersection(game.seating)
    ]
    return sorted(games, key=lambda game: deal_number(game.key))
