"""Play one game between connected bots: a straight-line loop over the decisions.

The referee asks the seat the game names, under that seat's clock, and turns every way a
bot can misbehave into a recorded :class:`Violation`, penalised as the
:class:`~goatarena.referee.policy.ViolationPolicy` says. A seat that forfeits is ranked
last and its decisions are made by uniform random choice so that the others' game stays
meaningful.

After a timeout under ``random-move`` the bot still owes its answer. A reply that echoes
the request's ``decision`` is matched by that number; a reply without the echo is taken
for the oldest answer owed, since a bot answers its requests in order. Either way a late
answer is discarded, never taken for a newer request; a reply echoing a number that is
neither the request's nor a late one's is malformed at once ("answered decision 3,
expected 4"). A bot that ends the game still
owing an answer is marked broken so that nobody reuses its out-of-step process.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol

import msgspec
import trio

from goatarena import protocol
from goatarena.games.base import Action, GameInfo, State, ranks_from_keys
from goatarena.protocol import bot_seed
from goatarena.referee.bot import BotViolation, Cause
from goatarena.referee.clock import Clock, TimeControl
from goatarena.referee.policy import Penalty, ViolationPolicy
from goatarena.referee.records import Latency as Latency  # re-exported
from goatarena.referee.records import MatchResult as MatchResult
from goatarena.referee.records import Violation as Violation

Watcher = Callable[[State, int, Action], Awaitable[None]]
"""Told of each decision as it is played: the state after it, the seat, the action."""

END_SEND_LIMIT_S = 1.0
"""How long the referee waits to deliver a start or end message before giving up."""
DEADLINE_SLACK_S = 0.001
"""How late after its deadline a request may be cut off (see :class:`_Timer`): a bot's
answer read before then still counts, as one read in the same moment as its deadline
fires always has."""
YIELD_EVERY_S = 0.001
"""The longest a game keeps trio's event loop to itself between two answers."""
_LAST_YIELD: trio.lowlevel.RunVar[float] = trio.lowlevel.RunVar(
    "goatarena_last_yield", default=-math.inf
)
"""When a game last gave way to other tasks, on the clock of the current trio run."""


class Connection(Protocol):
    """What the match needs of a bot: :class:`~goatarena.referee.bot.BotProcess` or a fake.

    ``send_bytes`` and ``receive`` need be checkpoints only where they wait: the match
    gives way to other tasks itself. A connection may also have ``resume()`` and
    ``pause()``, which the match calls around each of its decisions so that a sandboxed
    bot gets no CPU outside its turn; without them the bot is never paused. A connection
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


class _Seat:
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
        # A bot that is never frozen (unsandboxed, say) is not asked to be around each decision.
        if getattr(connection, "pauses", True):
            self.resume = getattr(connection, "resume", _nothing)
            self.pause = getattr(connection, "pause", _nothing)

    @property
    def forfeited(self) -> bool:
        return self.violation is not None


async def play_match(
    info: GameInfo,
    connections: Sequence[Connection],
    *,
    seed: int,
    options: Mapping[str, Any] | None = None,
    time_control: TimeControl | None = None,
    match_id: str = "",
    policy: ViolationPolicy | None = None,
    watch: Watcher | None = None,
) -> MatchResult:
    """Play one game of ``info`` with one connected bot per seat and return its result.

    ``policy`` (default :class:`ViolationPolicy`: forfeit on everything) decides what a
    violation costs. ``watch``, if given, is awaited after every decision with the state,
    the seat that chose and its action, outside every bot's clock. Every connection is
    left open; one that can no longer be trusted to be in step with the conversation is
    marked broken.
    """
    started = time.perf_counter()
    control = time_control or TimeControl()
    policy = policy or ViolationPolicy()
    state = info.new_state(len(connections), seed, options)
    seats = [_Seat(connection, control) for connection in connections]
    names = [connection.name for connection in connections]
    for number, seat in enumerate(seats):
        if seat.connection.broken is not None:
            _forfeit(seat, seat.connection.broken, decision=0)
            continue
        start = protocol.Start(
            game=info.name,
            seat=number,
            players=names,
            time=control.to_info(),
            options=state.options,
            match=match_id,
            seed=bot_seed(seed, number),
        )
        failure = await _deliver(seat, protocol.encode(start))
        if failure is not None:
            _forfeit(seat, failure, decision=0)
    await _Game(state, seats, random.Random(seed ^ 0x0F0F1E17), policy, watch).play()
    return await _finish(info, state, seats, names, time.perf_counter() - started)


class _Game:
    """The decisions of one game: whom to ask, what to tell them, what they chose."""

    def __init__(
        self,
        state: State,
        seats: list[_Seat],
        chooser: random.Random,
        policy: ViolationPolicy,
        watch: Watcher | None = None,
    ) -> None:
        self.state = state
        self.seats = seats
        self.chooser = chooser
        self.policy = policy
        self.watch = watch
        self.events: list[protocol.Event] = []

    async def play(self) -> None:
        """Ask the seats until the game is over, in runs of requests on one cancel scope."""
        while not self.state.is_over:
            with trio.CancelScope() as scope:
                timer = _Timer(scope)
                await self._play_run(timer)
            if timer.seat is not None:  # its deadline fired
                number = self.state.to_act
                self._time_out(timer.seat, timer.decision, sent=timer.sent)
                if self.watch is not None and number is not None:
                    await self.watch(self.state, number, self.state.history[-1])

    async def _play_run(self, timer: _Timer) -> None:
        """Play decisions until the game is over or the timer has expired."""
        state = self.state
        while not timer.expired and (number := state.to_act) is not None:
            seat = self.seats[number]
            actions = state.legal_actions()
            answer = None
            if not seat.forfeited and _live_seats(self.seats) >= 2:
                request = self._request(number, actions)
                answer = await _ask(seat, request, self.policy, timer)
            self._apply(number, actions, answer)
            if self.watch is not None:
                await self.watch(state, number, state.history[-1])

    def _request(self, number: int, actions: list[Action]) -> protocol.Decide:
        """The request to seat ``number``, with the events it has not seen yet."""
        seat = self.seats[number]
        request = protocol.Decide(
            decision=len(self.state.history),
            observation=self.state.observation(number),
            actions=actions,
            time_ms=int(seat.clock.available_ms),
            events=self.events[seat.events_seen :],
        )
        seat.events_seen = len(self.events)
        return request

    def _time_out(self, seat: _Seat, decision: int, *, sent: bool) -> None:
        """Penalise a request whose deadline fired, and choose at random for its seat."""
        _penalise(seat, _timeout(seat, decision, sent=sent), decision, self.policy)
        number = self.state.to_act
        assert number is not None
        self._apply(number, self.state.legal_actions(), None)

    def _apply(self, number: int, actions: list[Action], index: int | None) -> None:
        """Play the action chosen by seat ``number``, or a random one for None.

        A seat that forfeited, or whose answer was a violation, gets a random choice; it
        learns of it from the events of its next request, like any other decision.
        """
        if index is None:
            index = self.chooser.randrange(len(actions))
        action = actions[index]
        self.events.append(
            protocol.Event(seat=number, action=self.state.public_action(number, action))
        )
        self.state.apply_index(index)


class _Timer:
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
        self.seat: _Seat | None = None
        """The seat asked, while its request is out."""
        self.decision = 0
        self.sent = False
        """Whether the request was written whole (if not, the conversation is out of step)."""

    @property
    def expired(self) -> bool:
        """Whether a deadline has fired. One that fires just as its answer comes in does
        not take the answer away (trio handles ready input first), but it ends the run."""
        return self._scope.cancel_called

    def start(self, seat: _Seat, decision: int, deadline: float) -> None:
        """A request goes out with this deadline (on trio's clock)."""
        self.seat, self.decision, self.sent = seat, decision, False
        if not deadline <= self._deadline <= deadline + DEADLINE_SLACK_S:
            self._deadline = self._scope.deadline = deadline + DEADLINE_SLACK_S

    def stop(self) -> None:
        """The request is over: answered, or failed otherwise than by its deadline."""
        self.seat = None


async def _ask(
    seat: _Seat, request: protocol.Decide, policy: ViolationPolicy, timer: _Timer
) -> int | None:
    """The index the seat chooses, or None after recording and penalising its violation.

    The request runs under ``timer``: if its deadline fires, :class:`trio.Cancelled` ends
    the run, and the caller penalises the timeout.
    """
    connection = seat.connection
    line = protocol.encode(request)
    # Thawed before its clock starts and frozen after it stops: neither costs it time.
    seat.resume()
    started = timer.now()
    timer.start(seat, request.decision, started + seat.clock.deadline_s)
    try:
        await connection.send_bytes(line)
        timer.sent = True
        reply = await connection.receive()
        # Nearly always the answer: an action that echoes the decision, or none, with no
        # late answers owed. Anything else is sorted out by _receive_action.
        if (
            seat.owed
            or type(reply) is not protocol.Action
            or (reply.decision is not None and reply.decision != request.decision)
        ):
            reply = await _receive_action(connection, reply, request.decision, seat.owed)
    except BotViolation as violation:
        timer.stop()
        seat.pause()
        _penalise(seat, violation, request.decision, policy)
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
        await _give_way(now)
    try:
        return choose_index(reply, request.actions)
    except BotViolation as violation:
        _penalise(seat, violation, request.decision, policy)
        return None


async def _give_way(now: float) -> None:
    """Let other tasks run: called when no game has for ``YIELD_EVERY_S``.

    Trio switches tasks only where one has to wait, and with bots that answer at once the
    pipes need never make a game wait: it could keep the loop to itself while answers in
    other games wait to be read, their clocks running. This is called after the clock has
    stopped, so the turn given away is charged to no bot.
    """
    _LAST_YIELD.set(now)
    # Shielded: the answer is in, and no deadline may take it away now.
    await trio.lowlevel.cancel_shielded_checkpoint()


def _timeout(seat: _Seat, decision: int, *, sent: bool) -> BotViolation:
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


async def _receive_action(
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


def _penalise(seat: _Seat, violation: BotViolation, decision: int, policy: ViolationPolicy) -> None:
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
    _record(seat, Violation(str(violation.cause), detail, decision, penalty.value))


def _forfeit(seat: _Seat, violation: BotViolation, decision: int) -> None:
    """Record a violation that forfeits the seat whatever the policy."""
    _record(seat, Violation(str(violation.cause), violation.detail, decision))


def _record(seat: _Seat, violation: Violation) -> None:
    seat.all_violations.append(violation)
    if violation.penalty == Penalty.FORFEIT and seat.violation is None:
        seat.violation = violation


def _live_seats(seats: Sequence[_Seat]) -> int:
    # Asked before every request: a list count is cheaper than a generator over properties.
    return [seat.violation for seat in seats].count(None)


async def _deliver(seat: _Seat, line: bytes) -> BotViolation | None:
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


async def _finish(
    info: GameInfo, state: State, seats: list[_Seat], names: list[str], duration_s: float
) -> MatchResult:
    result = state.result()
    # Seats that kept playing keep their order; every forfeited seat shares the last rank.
    keys = [(0, 0) if seat.forfeited else (1, -rank) for seat, rank in zip(seats, result.ranks)]
    ranks = ranks_from_keys(keys)
    for number, seat in enumerate(seats):
        end = protocol.End(scores=result.scores, ranks=ranks, seat=number)
        # A bot that cannot take the end message loses its process, not the game.
        await _deliver(seat, protocol.encode(end))
        if seat.owed and seat.connection.broken is None:
            # Its late answer would be read as the answer to a request of another game.
            seat.connection.mark_broken(
                BotViolation(Cause.TIMEOUT, "still owes the answer to a timed-out request")
            )
    return MatchResult(
        game=info.name,
        seed=state.seed,
        players=names,
        scores=result.scores,
        ranks=ranks,
        violations=[seat.violation for seat in seats],
        decisions=state.history,
        options=state.options,
        duration_s=duration_s,
        latency=[_latency(seat.latencies_ms) for seat in seats],
        all_violations=[seat.all_violations for seat in seats],
    )


def _latency(samples: list[float]) -> Latency | None:
    if not samples:
        return None
    return Latency(
        decisions=len(samples),
        median_ms=round(statistics.median(samples), 3),
        max_ms=round(max(samples), 3),
    )
