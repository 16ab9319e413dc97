"""What a game leaves behind: its :class:`MatchResult`, with each seat's violations and latency.

The record types every layer above the referee reads (the store, ratings, the report);
:mod:`goatarena.referee.match` makes them.
"""

from __future__ import annotations

from typing import Any

import msgspec

from goatarena.referee.policy import Penalty


class Violation(msgspec.Struct, frozen=True):
    """What a seat did wrong: the cause, the decision number it happened at, a detail,
    and the penalty it got (``forfeit`` or ``random-move``)."""

    cause: str
    detail: str
    decision: int
    penalty: str = Penalty.FORFEIT.value


class Latency(msgspec.Struct, frozen=True):
    """A seat's measured decision times in milliseconds."""

    decisions: int
    median_ms: float
    max_ms: float


class MatchResult(msgspec.Struct, frozen=True):
    """The complete outcome of one game, ready to print or store."""

    game: str
    seed: int
    players: list[str]
    scores: list[float]
    ranks: list[int]
    violations: list[Violation | None]
    decisions: list[Any]
    options: dict[str, Any] = {}
    duration_s: float = 0.0
    latency: list[Latency | None] = []
    all_violations: list[list[Violation]] = []
    """Every violation of each seat in order; a forfeiting one is also in ``violations``."""
    host: str = ""
    """The machine whose referee played the game ("" in records from before it was kept)."""
