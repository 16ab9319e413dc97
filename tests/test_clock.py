"""Time control: the clock's arithmetic, and deadlines in conversations with fake bots."""

from __future__ import annotations

import time

import msgspec
import outcome
import pytest
import trio
import trio.testing

from goatarena import protocol
from goatarena.games import find_game
from goatarena.referee import BotViolation, Clock, Connection, MatchResult, TimeControl, play_match
from goatarena.referee.asking import DEADLINE_SLACK_S
from tests.helpers import FakeBot, action_line

MOUNTAIN_GOATS = find_game("mountain-goats")


def test_clock_draws_the_bank_down_and_adds_the_increment():
    clock = Clock(TimeControl(move_ms=100, bank_ms=500, increment_ms=50, margin_ms=10))
    assert clock.available_ms == 600
    assert clock.deadline_s == pytest.approx(0.61)
    clock.charge(40)  # within move_ms: the bank only grows
    assert clock.bank_ms == 550
    clock.charge(300)  # 200 over move_ms
    assert clock.bank_ms == 400
    clock.charge(10_000)  # far over: the bank is empty, then the increment
    assert clock.bank_ms == 50
    assert clock.available_ms == 150


def test_clock_without_a_bank_gives_move_ms_every_time():
    clock = Clock(TimeControl(move_ms=200))
    for used in (10, 199, 225):
        clock.charge(used)
        assert clock.available_ms == 200


@pytest.mark.parametrize(
    "fields",
    [{"move_ms": 0}, {"startup_ms": 0}, {"bank_ms": -1}, {"increment_ms": -1}, {"margin_ms": -1}],
)
def test_time_control_rejects_impossible_values(fields):
    with pytest.raises(ValueError):
        TimeControl(**fields)


def test_time_control_decodes_from_a_table_and_refuses_unknown_keys():
    control = msgspec.convert({"move_ms": 50, "bank_ms": 1000}, TimeControl)
    assert (control.move_ms, control.bank_ms, control.margin_ms) == (50, 1000, 25)
    with pytest.raises(msgspec.ValidationError):
        msgspec.convert({"move": 50}, TimeControl)


def run_virtual(bots: list[Connection], control: TimeControl, **kwargs) -> MatchResult:
    async def main() -> MatchResult:
        return await play_match(MOUNTAIN_GOATS, bots, seed=2, time_control=control, **kwargs)

    return trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def thinking(times_s: list[float]) -> FakeBot:
    """A bot that takes the given times on its first decisions, then answers at once."""

    def answer(request: protocol.Decide) -> tuple[float, bytes]:
        think = times_s.pop(0) if times_s else 0.0
        return think, action_line(0, request.decision)

    return FakeBot("thinker", answer)


def instant() -> FakeBot:
    return FakeBot("instant", lambda request: (0.0, action_line(0, request.decision)))


def test_the_bot_is_told_move_plus_bank_and_the_bank_is_spent_then_replenished():
    control = TimeControl(move_ms=100, bank_ms=500, increment_ms=50, margin_ms=10)
    # 300 ms takes 200 from the bank (500 - 200 + 50 = 350); 445 ms takes 345 of it
    # (350 - 345 + 50 = 55); 100 ms is exactly move_ms, so the bank grows (55 + 50 = 105).
    bot = thinking([0.3, 0.445, 0.1])
    result = run_virtual([bot, instant()], control)
    assert result.violations == [None, None]
    told = [request.time_ms for request in bot.requests[:4]]
    assert told == [600, 450, 155, 205]
    latency = result.latency[0]
    assert latency is not None and latency.max_ms == pytest.approx(445, abs=0.01)


@pytest.mark.parametrize(
    ("think_s", "timed_out"),
    [
        (0.609, False),  # inside move + bank + margin (100 + 500 + 10)
        (0.611 + DEADLINE_SLACK_S, True),  # just past it and the referee's slack
    ],
)
def test_a_timeout_happens_only_past_move_plus_bank_plus_margin(think_s, timed_out):
    control = TimeControl(move_ms=100, bank_ms=500, margin_ms=10)
    result = run_virtual([thinking([think_s]), instant()], control)
    violation = result.violations[0]
    assert (violation is not None) == timed_out
    if violation is not None:
        assert violation.cause == "timeout" and violation.decision == 0
        assert violation.detail == "no answer within 600 ms"


def test_a_timeout_ends_the_game_on_time_on_the_virtual_clock():
    control = TimeControl(move_ms=100, margin_ms=10)

    async def main() -> tuple[MatchResult, float]:
        started = trio.current_time()
        result = await play_match(
            MOUNTAIN_GOATS, [thinking([3600.0]), instant()], seed=2, time_control=control
        )
        return result, trio.current_time() - started

    result, elapsed = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert result.violations[0] is not None and result.violations[0].cause == "timeout"
    # Cut off at the deadline, or at most the referee's slack after it.
    assert 0.11 <= elapsed <= 0.11 + DEADLINE_SLACK_S + 1e-9


class PhotoFinish:
    """A bot whose first answer arrives just as its deadline fires (its cut-off comes).

    As with a pipe that turns readable in the same instant, the cancellation finds the
    wait already over (``Abort.FAILED``): the answer is there and no exception is raised.
    """

    def __init__(self) -> None:
        self.name = "photo-finish"
        self.broken: BotViolation | None = None
        self.asked: list[int] = []

    def mark_broken(self, violation: BotViolation) -> None:
        self.broken = violation

    async def send_bytes(self, line: bytes) -> None:
        message = protocol.parse_referee_message(line)
        if isinstance(message, protocol.Decide):
            self.asked.append(message.decision)

    async def receive(self) -> protocol.Action:
        reply = protocol.Action(index=0, decision=self.asked[-1])
        if len(self.asked) > 1:
            return reply
        task = trio.lowlevel.current_task()

        def answer_instead(_raise_cancel: object) -> trio.lowlevel.Abort:
            trio.lowlevel.reschedule(task, outcome.Value(reply))
            return trio.lowlevel.Abort.FAILED

        return await trio.lowlevel.wait_task_rescheduled(answer_instead)


def test_an_answer_that_comes_with_the_deadline_wins_and_costs_no_later_request_its_time():
    control = TimeControl(move_ms=100, margin_ms=10)
    bot = PhotoFinish()
    result = run_virtual([bot, instant()], control)
    assert result.all_violations == [[], []]
    latency = result.latency[0]
    # The cut-off, and so the answer, comes at the deadline or at most the slack after it.
    assert latency is not None and 110 <= latency.max_ms <= 110 + DEADLINE_SLACK_S * 1000
    assert len(bot.asked) > 1


class StaleFlood:
    """A bot whose first answers name a decision never asked, at once and without end for
    ``flood_s`` seconds (then it answers properly): reading them never has to wait."""

    def __init__(self, flood_s: float) -> None:
        self.name = "stale-flood"
        self.broken: BotViolation | None = None
        self.flood_s = flood_s
        self.flood_until: float | None = None
        self.decision = 0

    def mark_broken(self, violation: BotViolation) -> None:
        self.broken = violation

    async def send_bytes(self, line: bytes) -> None:
        message = protocol.parse_referee_message(line)
        if isinstance(message, protocol.Decide):
            self.decision = message.decision
            if self.flood_until is None:
                self.flood_until = time.monotonic() + self.flood_s

    async def receive(self) -> protocol.Action:
        if self.flood_until is not None and time.monotonic() < self.flood_until:
            return protocol.Action(index=0, decision=-1)
        return protocol.Action(index=0, decision=self.decision)


def test_a_flood_of_answers_to_a_decision_never_asked_ends_at_the_first():
    control = TimeControl(move_ms=50, margin_ms=10)

    async def main() -> tuple[MatchResult, float]:
        started = time.monotonic()
        result = await play_match(
            MOUNTAIN_GOATS, [StaleFlood(flood_s=2.0), instant()], seed=2, time_control=control
        )
        return result, time.monotonic() - started

    result, elapsed = trio.run(main)
    violation = result.violations[0]
    assert violation is not None and violation.cause == "malformed"
    assert violation.detail == f"answered decision -1, expected {violation.decision}"
    assert elapsed < 1.0


class JustInTime:
    """A bot whose first answer is read just before its deadline, after which the referee's
    own work between requests (the clock jumps) outlasts that deadline."""

    def __init__(self, clock: trio.testing.MockClock, deadline_s: float) -> None:
        self.name = "just-in-time"
        self.broken: BotViolation | None = None
        self.clock = clock
        self.deadline_s = deadline_s
        self.asked: list[int] = []

    def mark_broken(self, violation: BotViolation) -> None:
        self.broken = violation

    async def send_bytes(self, line: bytes) -> None:
        message = protocol.parse_referee_message(line)
        if isinstance(message, protocol.Decide):
            self.asked.append(message.decision)

    async def receive(self) -> protocol.Action:
        if len(self.asked) == 1:
            await trio.sleep(self.deadline_s - 0.001)
            self.clock.jump(0.002)  # no checkpoint: the answer is already read
        return protocol.Action(index=0, decision=self.asked[-1])


def test_a_deadline_left_behind_by_an_answered_request_costs_nobody_anything():
    # The referee moves its deadline once per request and leaves an answered request's
    # deadline in place; if it passes before the next request, it must neither turn the
    # answer into a timeout nor cut off the next request.
    control = TimeControl(move_ms=100, margin_ms=10)
    clock = trio.testing.MockClock(autojump_threshold=0)
    bot = JustInTime(clock, deadline_s=0.11)

    async def main() -> MatchResult:
        return await play_match(MOUNTAIN_GOATS, [bot, instant()], seed=2, time_control=control)

    result = trio.run(main, clock=clock)
    assert result.all_violations == [[], []]
    assert len(bot.asked) > 1 and len(result.decisions) > 2
