"""Views of a game: what the whole table holds, or what one seat sees, as JSON-able dicts.

A view is built only from :meth:`State.observation`, so it never needs an engine's
private fields. In all four games the seats' observations differ only in ``seat`` and
``hand``: the table view is one observation with every seat's own hand put into
``hands``, and a seat's view keeps its own hand and shows the others face down (their
sizes are in the observation). :func:`observation_of` turns a view back into the
observation the engine gives; the tests check that round trip for every game, which is
what keeps a seat view from showing more than the seat saw.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import msgspec

from goatarena.errors import IllegalAction
from goatarena.games import Action, GameRecord, State, find_game

View = dict[str, Any]
"""A JSON-able picture of a state: an observation with ``hands`` instead of ``hand``."""

PRIVATE = ("seat", "hand")
"""The only observation fields that differ between seats."""


def table_view(state: State) -> View:
    """Everything on the table, every hand face up (``seat`` is None)."""
    observations = [state.observation(seat) for seat in range(state.players)]
    view = {key: value for key, value in observations[0].items() if key not in PRIVATE}
    view["seat"] = None
    view["hands"] = [observation.get("hand") for observation in observations]
    return view


def seat_view(view: Mapping[str, Any], seat: int) -> View:
    """What ``seat`` sees of a table view: its own hand; other hands are None (face down)."""
    hands = view["hands"]
    return {
        **view,
        "seat": seat,
        "hands": [hand if number == seat else None for number, hand in enumerate(hands)],
    }


def observation_of(view: Mapping[str, Any], seat: int) -> dict[str, Any]:
    """The engine's observation for ``seat``, rebuilt from a table or seat view."""
    observation = {key: value for key, value in view.items() if key != "hands"}
    observation["seat"] = seat
    hand = view["hands"][seat]
    if hand is not None:
        observation["hand"] = hand
    return observation


class Step(msgspec.Struct, frozen=True):
    """One decision of a replayed game: the table before it, who chose, and what.

    ``shown`` is what the other seats learnt of the action (it differs from ``action``
    only for hidden moves, such as a face-down discard).
    """

    number: int
    actor: int
    action: Action
    shown: Action
    view: View


def replay_steps(record: GameRecord) -> Iterator[Step]:
    """The steps of a stored game, replayed through its engine from seed and decisions.

    The game's final view is :func:`final_view` of the same record. A record its engine
    cannot replay raises :class:`IllegalAction`.
    """
    state = _new_state(record)
    for number, action in enumerate(record.decisions):
        actor = state.to_act
        if actor is None:
            raise IllegalAction(f"the game was over before decision {number} of the record")
        yield Step(
            number=number,
            actor=actor,
            action=action,
            shown=state.public_action(actor, action),
            view=table_view(state),
        )
        state.apply(action)


def final_view(record: GameRecord) -> View:
    """The table view once every decision of the record is played."""
    state = _new_state(record)
    for action in record.decisions:
        state.apply(action)
    return table_view(state)


def _new_state(record: GameRecord) -> State:
    return find_game(record.game).new_state(record.players, record.seed, record.options)
