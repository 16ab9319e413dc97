"""Play one game between connected bots: a straight-line loop over the decisions.

The referee asks the seat the game names, under that seat's clock, and turns every way a
bot can misbehave into a recorded :class:`Violation`. A seat that forfeits is ranked last
and, while at least two seats still play, its decisions are made by uniform random
choice so that the others' game stays meaningful.
"""

from __future__ import annotations

import hashlib
import random
import statistics
import time
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import msgspec
import trio

from goatarena import protocol
from goatarena.games.base import Action, GameInfo, State, ranks_from_keys
from goatarena.referee.bot import BotViolation, Cause
from goatarena.referee.clock import Clock, TimeControl

END_SEND_LIMIT_S = 1.0
"""How long the referee waits to deliver a start or end message before giving up."""


class Connection(Protocol):
    """What the match needs of a bot: :class:`~goatarena.referee.bot.BotProcess` or a fake."""

    name: str

    @property
    def broken(self) -> BotViolation | None: ...

    async def send_bytes(self, line: bytes) -> None: ...

    async def receive(self) -> protocol.BotHello | protocol.Action: ...

    def mark_broken(self, violation: BotViolation) -> None: ...


class Violation(msgspec.Struct, frozen=True):
    """What a seat did wrong: the cause, the decision number it happened at, a detail."""

    cause: str
    detail: str
    decision: int


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


class _Seat:
    """The referee's view of one seat during a game."""

    def __init__(self, connection: Connection, control: TimeControl) -> None:
        self.connection = connection
        self.clock = Clock(control)
        self.violation: Violation | None = None
        self.events_seen = 0
        self.latencies_ms: list[float] = []

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
) -> MatchResult:
    """Play one game of ``info`` with one connected bot per seat and return its result."""
    started = time.perf_counter()
    control = time_control or TimeControl()
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
    await _play_decisions(state, seats, random.Random(seed ^ 0x0F0F1E17))
    return await _finish(info, state, seats, names, time.perf_counter() - started)


async def _play_decisions(state: State, seats: list[_Seat], chooser: random.Random) -> None:
    events: list[protocol.Event] = []
    while (number := state.to_act) is not None:
        seat = seats[number]
        actions = state.legal_actions()
        if seat.forfeited or _live_seats(seats) < 2:
            index = chooser.randrange(len(actions))
        else:
            request = protocol.Decide(
                decision=len(state.history),
                observation=state.observation(number),
                actions=actions,
                time_ms=int(seat.clock.available_ms),
                events=events[seat.events_seen :],
            )
            seat.events_seen = len(events)
            answer = await _ask(seat, request)
            index = chooser.randrange(len(actions)) if answer is None else answer
        action = actions[index]
        events.append(protocol.Event(seat=number, action=state.public_action(number, action)))
        state.apply_index(index)


async def _ask(seat: _Seat, request: protocol.Decide) -> int | None:
    """The index the seat chooses, or None after recording its violation."""
    connection = seat.connection
    line = protocol.encode(request)
    started = trio.current_time()
    try:
        with trio.fail_after(seat.clock.deadline_s):
            await connection.send_bytes(line)
            reply = await _receive_action(connection, request.decision)
    except trio.TooSlowError:
        limit_ms = seat.clock.available_ms
        violation = BotViolation(Cause.TIMEOUT, f"no answer within {limit_ms:.0f} ms")
        connection.mark_broken(violation)
        _forfeit(seat, violation, request.decision)
        return None
    except BotViolation as violation:
        _forfeit(seat, violation, request.decision)
        return None
    used_ms = (trio.current_time() - started) * 1000
    seat.latencies_ms.append(used_ms)
    seat.clock.charge(used_ms)
    try:
        return choose_index(reply, request.actions)
    except BotViolation as violation:
        _forfeit(seat, violation, request.decision)
        return None


async def _receive_action(connection: Connection, decision: int) -> protocol.Action:
    while True:
        reply = await connection.receive()
        if not isinstance(reply, protocol.Action):
            raise BotViolation(Cause.MALFORMED, f"expected an action, got {type(reply).__name__}")
        if reply.decision is None or reply.decision == decision:
            return reply


def bot_seed(game_seed: int, seat: int) -> int:
    """The seed a seat's bot is given: derived from the game's, but revealing nothing of it."""
    digest = hashlib.blake2b(f"{game_seed}:{seat}".encode(), digest_size=4).digest()
    return int.from_bytes(digest, "big")


def choose_index(reply: protocol.Action, actions: Sequence[Action]) -> int:
    """The index a reply names, by index or by value; :class:`BotViolation` if neither fits."""
    if reply.index is not None:
        if isinstance(reply.index, bool) or not 0 <= reply.index < len(actions):
            raise BotViolation(
                Cause.ILLEGAL, f"index {reply.index} is outside 0..{len(actions) - 1}"
            )
        return reply.index
    if reply.action is None:
        raise BotViolation(Cause.MALFORMED, "an action message needs an index or an action")
    try:
        return list(actions).index(reply.action)
    except ValueError:
        shown = msgspec.json.encode(reply.action)[:80].decode("utf-8", "replace")
        raise BotViolation(Cause.ILLEGAL, f"{shown} is not among the legal actions") from None


def _forfeit(seat: _Seat, violation: BotViolation, decision: int) -> None:
    if seat.violation is None:
        seat.violation = Violation(
            cause=str(violation.cause), detail=violation.detail, decision=decision
        )


def _live_seats(seats: Sequence[_Seat]) -> int:
    return sum(1 for seat in seats if not seat.forfeited)


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
    )


def _latency(samples: list[float]) -> Latency | None:
    if not samples:
        return None
    return Latency(
        decisions=len(samples),
        median_ms=round(statistics.median(samples), 3),
        max_ms=round(max(samples), 3),
    )
