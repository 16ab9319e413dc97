"""A seat at the table: its connection, clock, latency samples and violations, and the
penalties a violation brings (see :mod:`goatarena.referee.match`)."""

from __future__ import annotations

import statistics
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

import trio

from goatarena import protocol
from goatarena.referee.bot import BotViolation, Cause
from goatarena.referee.clock import Clock, TimeControl
from goatarena.referee.policy import Penalty, ViolationPolicy
from goatarena.referee.records import Latency as Latency  # re-exported
from goatarena.referee.records import MatchResult as MatchResult
from goatarena.referee.records import Violation as Violation

END_SEND_LIMIT_S = 1.0
"""How long the referee waits to deliver a start or end message before giving up."""


class Connection(Protocol):
    """What the match needs of a bot: :class:`~goatarena.referee.bot.BotProcess` or a fake.

    ``send_bytes`` and ``receive`` need be checkpoints only where they wait: the match
    gives way to other tasks itself. A connection may also have ``resume()`` (or an
    awaitable ``resume_async()``, preferred) and ``pause()``, which the match calls
    around each of its decisions so that a sandboxed bot gets no CPU outside its turn;
    without them the bot is never paused. A connection
    whose ``pauses`` is False (a bot that is not frozen between turns) is never asked to.
    """

    name: str

    @property
    def broken(self) -> BotViolation | None: ...

    async def send_bytes(self, line: bytes) -> None: ...

    async def receive(self) -> protocol.BotHello | protocol.Action: ...

    def mark_broken(self, violation: BotViolation) -> None: ...


def _nothing() -> None:
    """What pausing and resuming a connection that cannot be paused does."""


class Seat:
    """The referee's view of one seat during a game."""

    def __init__(self, connection: Connection, control: TimeControl) -> None:
        self.connection = connection
        self.clock = Clock(control)
        self.violation: Violation | None = None
        self.all_violations: list[Violation] = []
        self.strikes = 0
        self.owed: deque[int] = deque()
        """Decisions that timed out and whose late answers are still to be discarded."""
        self.events_seen = 0
        self.latencies_ms: list[float] = []
        self.resume: Callable[[], None] = _nothing
        self.pause: Callable[[], None] = _nothing
        self._resume_async: Callable[[], Awaitable[None]] | None = None
        # A bot that is never frozen (unsandboxed, say) is not asked to be around each decision.
        if getattr(connection, "pauses", True):
            self.resume = getattr(connection, "resume", _nothing)
            self.pause = getattr(connection, "pause", _nothing)
            self._resume_async = getattr(connection, "resume_async", None)

    async def start_turn(self) -> None:
        """Let the bot run for its turn (off the event loop where waking it takes long)."""
        if self._resume_async is not None:
            await self._resume_async()
        else:
            self.resume()

    @property
    def forfeited(self) -> bool:
        return self.violation is not None


def penalise(seat: Seat, violation: BotViolation, decision: int, policy: ViolationPolicy) -> None:
    """Record a violation and apply the policy's penalty: a strike, or a forfeit."""
    penalty = policy.penalty_for(violation.cause)
    detail = violation.detail
    if seat.connection.broken is not None:
        penalty = Penalty.FORFEIT  # whatever the policy, the process cannot go on
    elif penalty is Penalty.RANDOM_MOVE:
        seat.strikes += 1
        detail = f"{detail} (strike {seat.strikes} of {policy.strikes})"
        if seat.strikes >= policy.strikes:
            penalty = Penalty.FORFEIT
    if penalty is Penalty.FORFEIT and seat.owed:
        seat.connection.mark_broken(violation)  # it will never be asked for its answer
    record(seat, Violation(str(violation.cause), detail, decision, penalty.value))


def forfeit(seat: Seat, violation: BotViolation, decision: int) -> None:
    """Record a violation that forfeits the seat whatever the policy."""
    record(seat, Violation(str(violation.cause), violation.detail, decision))


def record(seat: Seat, violation: Violation) -> None:
    seat.all_violations.append(violation)
    if violation.penalty == Penalty.FORFEIT and seat.violation is None:
        seat.violation = violation


def live_seats(seats: Sequence[Seat]) -> int:
    # Asked before every request: a list count is cheaper than a generator over properties.
    return [seat.violation for seat in seats].count(None)


async def deliver(seat: Seat, line: bytes) -> BotViolation | None:
    """Send a message that needs no answer; return the violation if the bot cannot take it."""
    if seat.connection.broken is not None:
        return seat.connection.broken
    try:
        with trio.fail_after(END_SEND_LIMIT_S):
            await seat.connection.send_bytes(line)
    except trio.TooSlowError:
        violation = BotViolation(Cause.TIMEOUT, "does not read its input")
        seat.connection.mark_broken(violation)
        return violation
    except BotViolation as violation:
        return violation
    return None


def latency_of(samples: list[float]) -> Latency | None:
    if not samples:
        return None
    return Latency(
        decisions=len(samples),
        median_ms=round(statistics.median(samples), 3),
        max_ms=round(max(samples), 3),
    )
