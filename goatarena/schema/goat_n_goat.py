"""Goat 'n' Goat as a bot sees it (``goatarena/games/goat_n_goat_view.py``, ``*_moves.py``)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import msgspec

from goatarena.schema.messages import Seat
from goatarena.schema.shapes import ActionKind, GameShapes

GoatNGoatCard = Annotated[
    str,
    msgspec.Meta(pattern="^[gbr][1-5]$", description="A colour letter and a number: g1 ... r5."),
]


class GoatNGoatColour(StrEnum):
    """A colour of goats and of mountains."""

    GREEN = "green"
    BLUE = "blue"
    RED = "red"


class GoatNGoatPhase(StrEnum):
    """The step of the turn: the decision the seat whose turn it is makes next."""

    PLAY = "play"
    TAKE = "take"
    DISCARD = "discard"
    MOUNTAIN = "mountain"
    OVER = "over"


class GoatNGoatByColour(msgspec.Struct):
    """Numbers per colour: a flock's cards or mountain values."""

    green: list[int]
    blue: list[int]
    red: list[int]


class GoatNGoatObservation(msgspec.Struct):
    """Own hand, the row, every flock and mountain, and what the table saw of the hands."""

    seat: Seat
    to_act: Seat | None
    turn: Seat
    phase: GoatNGoatPhase
    played: list[GoatNGoatCard]
    take_count: int
    hand: list[GoatNGoatCard]
    row: list[GoatNGoatCard]
    flocks: list[GoatNGoatByColour]
    penalty_sizes: list[int]
    mountains_held: list[GoatNGoatByColour]
    mountains: GoatNGoatByColour
    hand_sizes: list[int]
    known_in_hands: list[list[GoatNGoatCard]]
    draw_size: int
    draw_cards: list[GoatNGoatCard] | None
    discard: list[GoatNGoatCard]
    run_outs: int
    final_run_out: int
    ending: bool
    scores: list[int]


class GoatNGoatMovePlay(ActionKind):
    """Play hand cards of one number, any colours."""

    play: list[GoatNGoatCard]


class GoatNGoatMoveTake(ActionKind):
    """Take these cards from the row."""

    take: list[GoatNGoatCard]


class GoatNGoatMoveDiscard(ActionKind):
    """Discard a hand card; the other seats see it as null in their events."""

    discard: GoatNGoatCard | None


class GoatNGoatMoveTrade(ActionKind):
    """Trade the flock of a colour for a face-up mountain of that colour and value."""

    trade: GoatNGoatColour
    mountain: int


SHAPES = GameShapes(
    game="goat-n-goat",
    prefix="GoatNGoat",
    observation=GoatNGoatObservation,
    action_kinds=(GoatNGoatMovePlay, GoatNGoatMoveTake, GoatNGoatMoveDiscard, GoatNGoatMoveTrade),
    action_words=("decline",),
    hidden_note='another seat\'s discard arrives in events as {"discard": null}',
)
