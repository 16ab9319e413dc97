"""Goat Lords as a bot sees it (``goatarena/games/goat_lords_view.py``, ``*_moves.py``)."""

from __future__ import annotations

from enum import StrEnum

import msgspec

from goatarena.schema.messages import Seat
from goatarena.schema.shapes import ActionKind, GameShapes


class GoatLordsCard(StrEnum):
    """A card's id; the last two are the wilds."""

    BABY = "baby"
    LADYPUG = "ladypug"
    FOODIE = "foodie"
    GHOAST = "ghoast"
    FAIRY = "fairy"
    TGOAT = "tgoat"
    NINJA = "ninja"
    KRAKEN = "kraken"
    DRAGON = "dragon"
    GOATACORN = "goatacorn"
    GOATINI = "goatini"
    LORD = "lord"


class GoatLordsPile(msgspec.Struct):
    """One pile of a herd: its goat kind (null when it holds wilds only) and its cards."""

    kind: GoatLordsCard | None
    cards: list[GoatLordsCard]


class GoatLordsDuel(msgspec.Struct):
    """The duel under way."""

    attacker: Seat
    defender: Seat
    kind: GoatLordsCard | None
    played: list[GoatLordsCard]
    to_answer: Seat


class GoatLordsObservation(msgspec.Struct):
    """Own hand, every herd, the piles' sizes, hand sizes, the duel and the totals."""

    seat: Seat
    to_act: Seat | None
    round: int
    turn: Seat
    hand_size: int
    hand: list[GoatLordsCard]
    hand_sizes: list[int]
    herds: list[list[GoatLordsPile]]
    discard_top: GoatLordsCard | None
    discard_size: int
    draw_size: int
    recycled: bool
    duel: GoatLordsDuel | None
    herd_values: list[int]
    totals: list[int]
    round_scores: list[list[int]]


class GoatLordsMoveBirth(ActionKind):
    """Two goats of a kind from hand (or one wild) as a new pile."""

    birth: GoatLordsCard


class GoatLordsMoveAssistedBirth(ActionKind):
    """The goat on top of the discard pile plus one of its kind from hand."""

    assisted_birth: GoatLordsCard


class GoatLordsMoveDuel(ActionKind):
    """Attack the top pile of the seat named by duel, opening with the card play."""

    duel: Seat
    play: GoatLordsCard


class GoatLordsMoveDiscard(ActionKind):
    """Discard a card (when no birth or duel is possible)."""

    discard: GoatLordsCard


class GoatLordsMovePlay(ActionKind):
    """Answer in a duel with a matching card."""

    play: GoatLordsCard


SHAPES = GameShapes(
    game="goat-lords",
    prefix="GoatLords",
    observation=GoatLordsObservation,
    action_kinds=(
        GoatLordsMoveBirth,
        GoatLordsMoveAssistedBirth,
        GoatLordsMoveDuel,
        GoatLordsMoveDiscard,
        GoatLordsMovePlay,
    ),
    action_words=("yield",),
)
