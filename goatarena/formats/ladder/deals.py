"""A ladder's deals as games: keys, seeds and seat rotations.

A chosen table is one deal, played once per seat rotation on the same seed (with
``fresh_deals``, each rotation on a seed of its own). Its key names the game entry, the
table's index in that entry's ladder and its bots (``0.goat-lords.3p/t000042/a+b+c``);
each game adds its rotation (``/r1``). The seed comes from the master seed, the deal's
key (and the rotation's, with ``fresh_deals``) and the deal secret, so a deal cut short
by a kill is played again identically on resume.
"""

from __future__ import annotations

import re

from goatarena.formats.config import GameEntry, TournamentConfig
from goatarena.formats.pairing import seat_rotations
from goatarena.formats.schedule import ScheduledGame, entry_label, rotation_seed

_DEAL = re.compile(r"^(?P<label>[^/]+)/t(?P<index>[0-9]+)/(?P<bots>[^/]+)$")
_GAME = re.compile(r"^(?P<deal>.+)/r[0-9]+$")


def deal_key(entry_index: int, entry: GameEntry, table: int, bots: tuple[str, ...]) -> str:
    """The key of table number ``table`` of game entry ``entry_index``."""
    return f"{entry_label(entry_index, entry)}/t{table:06d}/{'+'.join(bots)}"


def parse_deal(key: str) -> tuple[str, int, tuple[str, ...]] | None:
    """(entry label, table number, bots) of a ladder deal key, or of a game key (with its
    rotation); None for any other key."""
    game = _GAME.match(key)
    found = _DEAL.match(game.group("deal") if game else key)
    if found is None:
        return None
    return found.group("label"), int(found.group("index")), tuple(found.group("bots").split("+"))


def deal_games(
    config: TournamentConfig,
    entry_index: int,
    table: int,
    bots: tuple[str, ...],
    *,
    secret: str = "",
) -> list[ScheduledGame]:
    """The games of one deal: the table in every seat rotation, on one seed."""
    entry = config.games[entry_index]
    key = deal_key(entry_index, entry, table, bots)
    return [
        ScheduledGame(
            key=f"{key}/r{rotation}",
            game=entry.name,
            seed=rotation_seed(config, key, rotation, secret),
            seating=seating,
            options=dict(entry.options),
            round=table,
        )
        for rotation, seating in enumerate(seat_rotations(bots))
    ]
