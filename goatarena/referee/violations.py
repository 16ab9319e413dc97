"""Why a bot lost control of its seat: the cause, and the exception that carries it."""

from __future__ import annotations

import enum


class Cause(enum.StrEnum):
    """Why a bot lost control of its seat."""

    TIMEOUT = "timeout"
    CRASH = "crash"
    MALFORMED = "malformed"
    ILLEGAL = "illegal"
    ESCAPE = "escape"
    """It kept waking itself from its pauses between turns (where pausing is by signal)."""


class BotViolation(Exception):
    """A bot broke the protocol; carries the :class:`Cause` and a human-readable detail."""

    def __init__(self, cause: Cause, detail: str) -> None:
        super().__init__(f"{cause}: {detail}")
        self.cause = cause
        self.detail = detail
