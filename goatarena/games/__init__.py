"""The registry of games: an explicit table, looked up with :func:`find_game`."""

from __future__ import annotations

from goatarena.errors import UnknownGameError
from goatarena.games import goat_lords, goat_n_goat, herr_der_ziegen, mountain_goats
from goatarena.games.base import Action, GameInfo, GameRecord, Observation, Result, State

GAMES: dict[str, GameInfo] = {
    info.name: info
    for info in (
        goat_lords.INFO,
        goat_n_goat.INFO,
        herr_der_ziegen.INFO,
        mountain_goats.INFO,
    )
}
"""Every playable game by name, in the order they are listed to users."""


def find_game(name: str) -> GameInfo:
    """The game called ``name``; an :class:`UnknownGameError` lists the known names."""
    try:
        return GAMES[name]
    except KeyError:
        known = ", ".join(GAMES)
        raise UnknownGameError(f"unknown game {name!r} (known games: {known})") from None


__all__ = [
    "GAMES",
    "Action",
    "GameInfo",
    "GameRecord",
    "Observation",
    "Result",
    "State",
    "find_game",
]
