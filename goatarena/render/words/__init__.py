"""Moves in words: every action of every game as a short phrase a person can read.

One describer per game, beside its text renderer: a pure function from the table view
before the action (:mod:`goatarena.render.view`), the seat acting and the action to a
phrase without the actor's name ("moves goats 7 and 10 (2+5, 5+5)"). A part of an
action hidden from the viewer is None, as :meth:`State.public_action` gives it, and reads
"a card".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from goatarena.games import Action, State
from goatarena.render.view import table_view
from goatarena.render.words import goat_lords, goat_n_goat, herr_der_ziegen, mountain_goats

Describer = Callable[[dict[str, Any], int, Action], str]

DESCRIBERS: Mapping[str, Describer] = {
    "goat-lords": goat_lords.describe,
    "goat-n-goat": goat_n_goat.describe,
    "herr-der-ziegen": herr_der_ziegen.describe,
    "mountain-goats": mountain_goats.describe,
}
"""The describer of each game, by game name."""


def describe_action(game: str, view: Mapping[str, Any], actor: int, action: Action) -> str:
    """``action`` of seat ``actor`` in words, from the table ``view`` before it."""
    return DESCRIBERS[game](dict(view), actor, action)


def describe_move(state: State, action: Action, *, viewer: int | None = None) -> str:
    """The action the seat to act in ``state`` is about to take, in words, as ``viewer``
    sees it (None: everyone's view, hidden parts shown)."""
    actor = state.to_act
    if actor is None:
        raise ValueError("the game is over: nobody acts")
    shown = action if viewer in (None, actor) else state.public_action(actor, action)
    return describe_action(state.info.name, table_view(state), actor, shown)
