"""The protocol's messages as the schema describes them, field for field.

These mirror :mod:`goatarena.protocol` (a test keeps the two in step) but say what is
always sent rather than how the referee decodes: every field of a referee message is
required, and ``decide``'s ``observation`` and ``actions`` are left open here, since
their shapes are the game's (see the game modules of this package).
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

Seat = Annotated[int, msgspec.Meta(ge=0, description="A seat number, 0-based.")]
Milliseconds = Annotated[int, msgspec.Meta(ge=0)]
SEED_MAXIMUM = 2**64 - 1
"""The largest seed (msgspec cannot state a bound past int64: the builder adds it)."""
Seed = Annotated[
    int,
    msgspec.Meta(
        ge=0,
        description=(
            "An unsigned 64-bit integer: read it as such or as a big integer (JavaScript's"
            " JSON.parse rounds values above 2^53; a Java long needs parseUnsignedLong)."
        ),
    ),
]


class TimeControl(msgspec.Struct):
    """The time control of a game, in milliseconds."""

    move_ms: Milliseconds
    bank_ms: Milliseconds
    increment_ms: Milliseconds


class RefereeHello(msgspec.Struct, tag="hello", tag_field="type"):
    """The referee's greeting, once when the process starts: answer with a BotHello."""

    protocol: int
    referee: str


class Start(msgspec.Struct, tag="start", tag_field="type"):
    """A game begins: reset per-game state."""

    game: str
    seat: Seat
    players: list[str]
    time: TimeControl
    options: dict[str, Any]
    match: str
    seed: Seed


class Event(msgspec.Struct):
    """A public decision made since the seat's previous decide; a hidden part is null."""

    seat: Seat
    action: Any


class Decide(msgspec.Struct, tag="decide", tag_field="type"):
    """A request to choose one of the actions: answer with an Action.

    The actions and the observation have the game's shapes (schema/<game>.json).
    """

    decision: Annotated[int, msgspec.Meta(ge=0)]
    actions: Annotated[list[Any], msgspec.Meta(min_length=1)]
    time_ms: Milliseconds
    events: list[Event]
    observation: dict[str, Any]


class End(msgspec.Struct, tag="end", tag_field="type"):
    """A game is over: scores and ranks by seat (rank 1 is best)."""

    scores: list[float]
    ranks: list[Annotated[int, msgspec.Meta(ge=1)]]
    seat: Seat


class Quit(msgspec.Struct, tag="quit", tag_field="type"):
    """The referee is done with the process: exit."""


class BotHello(msgspec.Struct, tag="hello", tag_field="type"):
    """The bot's answer to the referee's hello."""

    name: str
    protocol: int | msgspec.UnsetType = msgspec.UNSET
    author: str | msgspec.UnsetType = msgspec.UNSET


class Action(msgspec.Struct, tag="action", tag_field="type"):
    """The bot's answer to a decide: an index into its actions, or the action itself."""

    index: Annotated[int, msgspec.Meta(ge=0)] | msgspec.UnsetType = msgspec.UNSET
    action: Any | msgspec.UnsetType = msgspec.UNSET
    decision: Annotated[int, msgspec.Meta(ge=0)] | msgspec.UnsetType = msgspec.UNSET


REFEREE_MESSAGES: tuple[type[msgspec.Struct], ...] = (RefereeHello, Start, Decide, End, Quit)
"""What the referee writes, in the order of a conversation."""
BOT_MESSAGES: tuple[type[msgspec.Struct], ...] = (BotHello, Action)
"""What a bot writes."""
