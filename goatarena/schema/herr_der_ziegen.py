"""Herr der Ziegen as a bot sees it (``goatarena/games/herr_der_ziegen_view.py``)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import msgspec

from goatarena.schema.messages import Seat
from goatarena.schema.shapes import ActionKind, GameShapes

HerrDerZiegenCard = Annotated[
    str,
    msgspec.Meta(
        pattern="^([A-R][1-5]|dog|milk[12])$",
        description="A goat card (type letter and value, A1 ... R5), dog, milk1 or milk2.",
    ),
]
Cell = Annotated[
    list[Annotated[int, msgspec.Meta(ge=0)]],
    msgspec.Meta(min_length=2, max_length=2, description="[row, column], from the top left."),
]
Line = Annotated[
    list[str | int],
    msgspec.Meta(min_length=2, max_length=2, description='["row", r] or ["column", c].'),
]


class HerrDerZiegenPhase(StrEnum):
    """The step of the turn; consent is asked of the owner of the card a drive would swap."""

    PLAY = "play"
    TAKE = "take"
    DRIVE = "drive"
    CONSENT = "consent"
    OVER = "over"


class HerrDerZiegenObservation(msgspec.Struct):
    """Own hand, the pasture and its marks, the goats, the displays and the majorities."""

    seat: Seat
    to_act: Seat | None
    active: Seat
    phase: HerrDerZiegenPhase
    turn: int
    played: HerrDerZiegenCard | None
    hand: list[HerrDerZiegenCard]
    size: int
    pasture: list[list[HerrDerZiegenCard | None]]
    marks: list[list[Seat | None]]
    stalls: list[Cell]
    goats: list[int]
    facing: list[Line]
    displays: list[list[HerrDerZiegenCard]]
    owners: dict[str, Seat]
    fifth_cards: dict[str, Seat]
    closed: list[str]
    markers: list[int]
    hand_sizes: list[int]
    known_hands: list[list[HerrDerZiegenCard]]
    draw_size: int
    pending_drive: Annotated[list[Cell], msgspec.Meta(min_length=2, max_length=2)] | None
    refused_drives: list[Annotated[list[Cell], msgspec.Meta(min_length=2, max_length=2)]]
    scores: list[int]
    end_reason: str


class HerrDerZiegenMovePlay(ActionKind):
    """Play a hand card into the display; the big goat moves on by its value."""

    play: HerrDerZiegenCard


class HerrDerZiegenMoveTake(ActionKind):
    """Take the card at this cell of the line the big goat faces."""

    take: Cell


class HerrDerZiegenMoveDrive(ActionKind):
    """Move a marked card from the first cell to the second."""

    drive: Annotated[list[Cell], msgspec.Meta(min_length=2, max_length=2)]


SHAPES = GameShapes(
    game="herr-der-ziegen",
    prefix="HerrDerZiegen",
    observation=HerrDerZiegenObservation,
    action_kinds=(HerrDerZiegenMovePlay, HerrDerZiegenMoveTake, HerrDerZiegenMoveDrive),
    action_words=("pass", "agree", "refuse"),
)
