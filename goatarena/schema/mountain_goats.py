"""Mountain Goats as a bot sees it (``goatarena/games/mountain_goats.py``)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from goatarena.schema.messages import Seat
from goatarena.schema.shapes import ActionKind, GameShapes

Die = Annotated[int, msgspec.Meta(ge=1, le=6)]
Mountain = Annotated[int, msgspec.Meta(ge=5, le=10)]


class MountainGoatsObservation(msgspec.Struct):
    """Everything (Mountain Goats has no hidden information)."""

    seat: Seat
    to_act: Seat | None
    round: int
    dice: list[Die]
    mountains: list[Mountain]
    heights: list[int]
    steps: list[list[int]]
    """By seat, each goat's step on each mountain."""
    supply: list[int]
    tokens: list[list[int]]
    bonus_left: list[int]
    bonuses: list[list[int]]
    scores: list[int]
    ending: bool


class MountainGoatsMove(ActionKind):
    """Climb the mountains in move (possibly none), the dice grouped as in groups."""

    move: list[Mountain]
    groups: list[list[Die]]


SHAPES = GameShapes(
    game="mountain-goats",
    prefix="MountainGoats",
    observation=MountainGoatsObservation,
    action_kinds=(MountainGoatsMove,),
)
