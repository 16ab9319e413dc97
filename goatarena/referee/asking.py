"""Asking a seat for its action under its clock: the request's deadline, the reply read
and checked, the event loop shared fairly between the games of one referee."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence

import msgspec
import trio

from goatarena import protocol
from goatarena.games.base import Action
from goatarena.referee.bot import BotViolation, Cause
from goatarena.referee.policy import ViolationPolicy
from goatarena.referee.records import Latency as Latency  # re-exported
from goatarena.referee.records import MatchResult as MatchResult
from goatarena.referee.records import Violation as Violation
from goatarena.referee.seat import Connection, Seat, penalise

DEADLINE_SLACK_S = 0.001
"""How late after its deadline a request may be cut off (see :class:`Timer`): a bot's
answer read before then still counts, as one read in the same moment as its deadline
fires always has."""
YIELD_EVERY_S = 0.001
"""The longest a game keeps trio's event loop to itself between two answers."""
_LAST_YIELD: trio.lowlevel.RunVar[float] = trio.lowlevel.RunVar(
    "goatarena_last_yield", default=-math.inf
)
"""When a game last gave way to other tasks, on the clock of the current trio run."""


class Timer:
    """The deadlines of a run of requests, all kept by one cancel scope.

    Moving a scope's deadline costs much less than entering a new scope for every request,
    but still a good part of a fast decision; so it is moved only when it falls outside
    the request's window, from its deadline to :data:`DEADLINE_SLACK_S` after it, and
    then to the window's end: a run of fast requests moves it about once per slack. An
    answered request leaves its deadline in place. Between requests the run waits only in
    a shielded checkpoint, so a stale deadline can fire there at most; it then merely ends
    the run (``expired`` is checked before every request) with no request out (``seat``
    is None). A scope, once cancelled, cannot be used again: the run ends, and the caller
    penalises the request if one was out (``seat`` is still set) and starts a new run on
    a new scope.
    """

    def __init__(self, scope: trio.CancelScope) -> None:
        self._scope = scope
        self._deadline = math.inf
        """The scope's deadline, as last set (read back from the scope costs more)."""
        self.now = trio.lowlevel.current_clock().current_time
        """Trio's clock, without the look-up of the run that trio.current_time() does."""
        self.seat: Seat | None = None
        """The seat asked, while its request is out."""
        self.decision = 0
        self.sent = False
        """Whether the request was written whole (if not, the conversation is out of step)."""

    @property
    def expired(self) -> bool:
        """Whether a deadline has fired. One that fires just as its answer comes in does
        not take the answer away (trio handles ready input first), but it ends the run."""
        return self._scope.cancel_called

    def start(self, seat: Seat, decision: int, deadline: float) -> None:
        """A request goes out with this deadline (on trio's clock)."""
        self.seat, self.decision, self.sent = seat, decision, False
        if not deadline <= self._deadline <= deadline + DEADLINE_SLACK_S:
            self._deadline = self._scope.deadline = deadline + DEADLINE_SLACK_S

    def stop(self) -> None:
        """The request is over: answered, or failed otherwise than by its deadline."""
        self.seat = None


async def ask(
    seat: Seat, request: protocol.Decide, policy: ViolationPolicy, timer: Timer
) -> int | None:
    """The index the seat chooses, or None after recording and penalising its violation.

    The request runs under ``timer``: if its deadline fires, :class:`trio.Cancelled` ends
    the run, and the caller penalises the timeout.
    """
    connection = seat.connection
    line = protocol.encode(request)
    # Thawed before its clock starts and frozen after it stops: neither costs it time.
    await seat.start_turn()
    started = timer.now()
    timer.start(seat, request.decision, started + seat.clock.deadline_s)
    try:
        await connection.send_bytes(line)
        timer.sent = True
        reply = await connection.receive()
        # Nearly always the answer: an action that echoes the decision, or none, with no
        # late answers owed. Anything else is sorted out by receive_action.
        if (
            seat.owed
            or type(reply) is not protocol.Action
            or (reply.decision is not None and reply.decision != request.decision)
        ):
            reply = await receive_action(connection, reply, request.decision, seat.owed)
    except BotViolation as violation:
        timer.stop()
        seat.pause()
        penalise(seat, violation, request.decision, policy)
        return None
    except trio.Cancelled:
        seat.pause()  # its deadline fired: the answer it still owes waits for its next turn
        raise
    now = timer.now()
    timer.stop()
    seat.pause()
    used_ms = (now - started) * 1000
    seat.latencies_ms.append(used_ms)
    seat.clock.charge(used_ms)
    if now - _LAST_YIELD.get() >= YIELD_EVERY_S:
        await give_way(now)
    try:
        return choose_index(reply, request.actions)
    except BotViolation as violation:
        penalise(seat, violation, request.decision, policy)
        return None


async def give_way(now: float) -> None:
    """Let other tasks run: called when no game has for ``YIELD_EVERY_S``.

    Trio switches tasks only where one has to wait, and with bots that answer at once the
    pipes need never make a game wait: it could keep the loop to itself while answers in
    other games wait to be read, their clocks running. This is called after the clock has
    stopped, so the turn given away is charged to no bot.
    """
    _LAST_YIELD.set(now)
    # Shielded: the answer is in, and no deadline may take it away now.
    await trio.lowlevel.cancel_shielded_checkpoint()


def timed_out(seat: Seat, decision: int, *, sent: bool) -> BotViolation:
    """The violation for a request that ran out of time, with the seat's clock charged."""
    limit_ms = seat.clock.available_ms
    seat.clock.charge(seat.clock.deadline_s * 1000)
    if not sent:
        # Part of the request may have been written: the conversation is out of step.
        violation = BotViolation(Cause.TIMEOUT, "does not read its input")
        seat.connection.mark_broken(violation)
        return violation
    seat.owed.append(decision)
    return BotViolation(Cause.TIMEOUT, f"no answer within {limit_ms:.0f} ms")


async def receive_action(
    connection: Connection,
    reply: protocol.BotHello | protocol.Action,
    decision: int,
    owed: deque[int],
) -> protocol.Action:
    """The reply to ``decision``, ``reply`` (the first one read) or a later one, skipping
    late answers to requests that timed out; a reply that echoes any other number is
    malformed.

    Skipping an answer is a checkpoint: a receive that finds its line already read need
    not be one, and a bot flooding stale answers must neither hold off its deadline nor
    keep other tasks from running.
    """
    while True:
        if not isinstance(reply, protocol.Action):
            raise BotViolation(Cause.MALFORMED, f"expected an action, got {type(reply).__name__}")
        if reply.decision == decision:
            owed.clear()  # answers come in order: nothing older can follow
            return reply
        if reply.decision is None:
            if not owed:
                return reply
            owed.popleft()
        elif reply.decision in owed:
            while owed.popleft() != reply.decision:
                pass
        else:
            # Neither this request's number nor a late one's: the bot is out of step, and
            # waiting for another line would only make it a timeout that it is not.
            raise BotViolation(
                Cause.MALFORMED, f"answered decision {reply.decision}, expected {decision}"
            )
        await trio.lowlevel.checkpoint()
        reply = await connection.receive()


def choose_index(reply: protocol.Action, actions: Sequence[Action]) -> int:
    """The index a reply names, by index or by value; :class:`BotViolation` if neither fits.

    A value is decoded only if it is at most twice as long as the longest legal action
    (plus a little for spacing): a longer one cannot be legal, and decoding it could cost
    a hostile bot's opponents their time.
    """
    if reply.index is not None:
        if isinstance(reply.index, bool) or not 0 <= reply.index < len(actions):
            shown = protocol.printable(str(reply.index), limit=24)
            raise BotViolation(Cause.ILLEGAL, f"index {shown} is outside 0..{len(actions) - 1}")
        return reply.index
    if not reply.has_value:
        raise BotViolation(Cause.MALFORMED, "an action message needs an index or an action")
    longest = max((len(_encode(action)) for action in actions), default=0)
    shown = protocol.printable(bytes(reply.action)[:80].decode("utf-8", "replace"), limit=80)
    try:
        value = protocol.decode_action_value(reply.action, max_bytes=2 * longest + 32)
    except protocol.MalformedLine:
        raise BotViolation(Cause.ILLEGAL, f"{shown} is not among the legal actions") from None
    try:
        return list(actions).index(value)
    except ValueError:
        raise BotViolation(Cause.ILLEGAL, f"{shown} is not among the legal actions") from None


_encode = msgspec.json.encode
