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

import random
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import trio

from goatarena import protocol
from goatarena.games.base import Action, GameInfo, State, ranks_from_keys
from goatarena.protocol import bot_seed
from goatarena.referee.asking import Timer, ask, timed_out
from goatarena.referee.bot import BotViolation, Cause
from goatarena.referee.clock import TimeControl
from goatarena.referee.policy import ViolationPolicy
from goatarena.referee.records import Latency as Latency  # re-exported
from goatarena.referee.records import MatchResult as MatchResult
from goatarena.referee.records import Violation as Violation
from goatarena.referee.seat import (
    Connection,
    Seat,
    deliver,
    forfeit,
    latency_of,
    live_seats,
    penalise,
)

Watcher = Callable[[State, int, Action], Awaitable[None]]
"""Told of each decision as it is played: the state after it, the seat, the action."""


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
    seats = [Seat(connection, control) for connection in connections]
    names = [connection.name for connection in connections]
    for number, seat in enumerate(seats):
        if seat.connection.broken is not None:
            forfeit(seat, seat.connection.broken, decision=0)
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
        failure = await deliver(seat, protocol.encode(start))
        if failure is not None:
            forfeit(seat, failure, decision=0)
    await _Game(state, seats, random.Random(seed ^ 0x0F0F1E17), policy, watch).play()
    return await _finish(info, state, seats, names, time.perf_counter() - started)


class _Game:
    """The decisions of one game: whom to ask, what to tell them, what they chose."""

    def __init__(
        self,
        state: State,
        seats: list[Seat],
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
                timer = Timer(scope)
                await self._play_run(timer)
            if timer.seat is not None:  # its deadline fired
                number = self.state.to_act
                self._time_out(timer.seat, timer.decision, sent=timer.sent)
                if self.watch is not None and number is not None:
                    await self.watch(self.state, number, self.state.history[-1])

    async def _play_run(self, timer: Timer) -> None:
        """Play decisions until the game is over or the timer has expired."""
        state = self.state
        while not timer.expired and (number := state.to_act) is not None:
            seat = self.seats[number]
            actions = state.legal_actions()
            answer = None
            if not seat.forfeited and live_seats(self.seats) >= 2:
                request = self._request(number, actions)
                answer = await ask(seat, request, self.policy, timer)
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

    def _time_out(self, seat: Seat, decision: int, *, sent: bool) -> None:
        """Penalise a request whose deadline fired, and choose at random for its seat."""
        penalise(seat, timed_out(seat, decision, sent=sent), decision, self.policy)
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


async def _finish(
    info: GameInfo, state: State, seats: list[Seat], names: list[str], duration_s: float
) -> MatchResult:
    result = state.result()
    # Seats that kept playing keep their order; every forfeited seat shares the last rank.
    keys = [(0, 0) if seat.forfeited else (1, -rank) for seat, rank in zip(seats, result.ranks)]
    ranks = ranks_from_keys(keys)
    for number, seat in enumerate(seats):
        end = protocol.End(scores=result.scores, ranks=ranks, seat=number)
        # A bot that cannot take the end message loses its process, not the game.
        await deliver(seat, protocol.encode(end))
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
        latency=[latency_of(seat.latencies_ms) for seat in seats],
        all_violations=[seat.all_violations for seat in seats],
    )
