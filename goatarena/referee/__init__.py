"""The referee: bot processes, clocks, and playing one game between bots."""

from goatarena.referee.asking import choose_index
from goatarena.referee.bot import (
    BotLimits,
    BotProcess,
    BotViolation,
    Cause,
    open_bot,
    parse_command,
)
from goatarena.referee.clock import Clock, TimeControl
from goatarena.referee.match import play_match
from goatarena.referee.policy import Penalty, ViolationPolicy
from goatarena.referee.records import Latency, MatchResult, Violation
from goatarena.referee.seat import Connection

__all__ = [
    "BotLimits",
    "BotProcess",
    "BotViolation",
    "Cause",
    "Clock",
    "Connection",
    "Latency",
    "MatchResult",
    "Penalty",
    "TimeControl",
    "Violation",
    "ViolationPolicy",
    "choose_index",
    "open_bot",
    "parse_command",
    "play_match",
]
