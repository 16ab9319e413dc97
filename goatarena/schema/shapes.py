"""What one game's schema is made of: its observation and the kinds of its actions."""

from __future__ import annotations

from dataclasses import dataclass

import msgspec


class ActionKind(msgspec.Struct, forbid_unknown_fields=True):
    """The base of a game's action objects: each kind is told apart by its keys alone,
    so none may carry a key it does not declare."""


@dataclass(frozen=True)
class GameShapes:
    """A game's observation Struct and the alternatives its actions take.

    ``action_kinds`` are the object-shaped actions; ``action_words`` the actions that are
    a bare string (``"yield"``, ``"pass"``). Type names carry the game's prefix so that
    one generated file can hold every game.
    """

    game: str
    prefix: str
    observation: type[msgspec.Struct]
    action_kinds: tuple[type[ActionKind], ...]
    action_words: tuple[str, ...] = ()
    hidden_note: str = ""
    """Which parts of an action other seats see as null in ``events``, if any."""

    @property
    def action_name(self) -> str:
        """The name of the union of this game's actions."""
        return f"{self.prefix}Action"

    @property
    def word_name(self) -> str:
        """The name of the enumeration of this game's string actions."""
        return f"{self.prefix}Word"
