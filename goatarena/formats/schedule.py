"""Which games a tournament plays: value types and the round-robin schedule.

Every scheduled game has a key that names it uniquely and stably, so a resumed run can
tell which games are finished. Seeds derive from the master seed and the key of the
deal, never from the order in which games happen to run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import msgspec

from goatarena.formats.config import GameEntry, TournamentConfig
from goatarena.formats.pairing import iter_tables, seat_rotations


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


def round_robin_games(config: TournamentConfig, *, secret: str = "") -> Iterator[ScheduledGame]:
    """Every k-subset of bots plays each deal once per seat rotation, on the same seed.

    The games are made one at a time as they are asked for (a million-game schedule is
    never held whole): by game entry, then table (see
    :func:`~goatarena.formats.pairing.iter_tables`), then deal, then rotation.
    ``secret`` is the tournament's deal secret (empty: deals follow from the file alone).
    """
    return _games(_round_robin_deals(config), config, secret)


def round_robin_schedule(config: TournamentConfig, *, secret: str = "") -> list[ScheduledGame]:
    """:func:`round_robin_games` as a list (for small tournaments: a test, a benchmark)."""
    return list(round_robin_games(config, secret=secret))


def deal_number(key: str) -> int:
    """The deal index in a round-robin or gauntlet key (``.../d3/r1`` is deal 3)."""
    return int(key.rsplit("/", 2)[1][1:])


def gauntlet_games(config: TournamentConfig, *, secret: str = "") -> Iterator[ScheduledGame]:
    """The round-robin games whose table seats a challenger, deal by deal, made one at a
    time as they are asked for.

    Keys and seeds are the round-robin's, so games among the pool already stored in the
    same database, and any round-robin game that seats a challenger, count as they are.
    Deal-major order (every table's deal 0, then deal 1, ...; within a deal the
    round-robin's order) lets an SPRT decide from the first deals while later ones are
    still unplayed.
    """
    return _games(_gauntlet_deals(config), config, secret)


def gauntlet_schedule(config: TournamentConfig, *, secret: str = "") -> list[ScheduledGame]:
    """:func:`gauntlet_games` as a list (for small tournaments: a test, a benchmark)."""
    return list(gauntlet_games(config, secret=secret))


def schedule_games(config: TournamentConfig, *, secret: str = "") -> Iterator[ScheduledGame]:
    """The games of a round-robin or a gauntlet, as they are asked for (a Swiss is
    paired round by round, from the results)."""
    if config.format == "gauntlet":
        return gauntlet_games(config, secret=secret)
    return round_robin_games(config, secret=secret)


def schedule_keys(config: TournamentConfig) -> Iterator[str]:
    """The keys of :func:`schedule_games`, in its order, without the games' seeds."""
    deals = _gauntlet_deals(config) if config.format == "gauntlet" else _round_robin_deals(config)
    for _, table_key, table in deals:
        for rotation in range(len(table)):
            yield f"{table_key}/r{rotation}"


_Deal = tuple[GameEntry, str, tuple[str, ...]]
"""One deal of one table: the game entry, the deal's key and the table."""


def _round_robin_deals(config: TournamentConfig) -> Iterator[_Deal]:
    bots = list(config.bots)
    tables = [iter_tables(bots, entry.players) for entry in config.games]  # checked now
    return _entry_major(config, tables)


def _entry_major(
    config: TournamentConfig, tables: list[Iterator[tuple[str, ...]]]
) -> Iterator[_Deal]:
    for index, (entry, entry_tables) in enumerate(zip(config.games, tables, strict=True)):
        label = entry_label(index, entry)
        for table in entry_tables:
            joined = "+".join(table)
            for deal in range(config.deals):
                yield entry, f"{label}/{joined}/d{deal}", table


def _gauntlet_deals(config: TournamentConfig) -> Iterator[_Deal]:
    bots, challengers = list(config.bots), set(config.challengers)
    for entry in config.games:
        iter_tables(bots, entry.players)  # checked now, not at the first game
    return _deal_major(config, bots, challengers)


def _deal_major(
    config: TournamentConfig, bots: list[str], challengers: set[str]
) -> Iterator[_Deal]:
    labels = [entry_label(index, entry) for index, entry in enumerate(config.games)]
    for deal in range(config.deals):
        for label, entry in zip(labels, config.games, strict=True):
            for table in iter_tables(bots, entry.players, seating=challengers):
                yield entry, f"{label}/{'+'.join(table)}/d{deal}", table


def rotation_seed(config: TournamentConfig, deal_key: str, rotation: int, secret: str) -> int:
    """The seed of one seat rotation of a deal: the deal's, or with ``fresh_deals`` one of
    its own (the rotation's key mixed in)."""
    if config.fresh_deals:
        return deal_seed(config.seed, f"{deal_key}/r{rotation}", secret=secret)
    return deal_seed(config.seed, deal_key, secret=secret)


def _games(
    deals: Iterator[_Deal], config: TournamentConfig, secret: str
) -> Iterator[ScheduledGame]:
    for entry, table_key, table in deals:
        for rotation, seating in enumerate(seat_rotations(table)):
            yield ScheduledGame(
                key=f"{table_key}/r{rotation}",
                game=entry.name,
                seed=rotation_seed(config, table_key, rotation, secret),
                seating=seating,
                options=dict(entry.options),
            )
