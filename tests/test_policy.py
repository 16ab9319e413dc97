"""Violation policies: forfeit, random moves with strikes, and late answers discarded."""

from __future__ import annotations

import tomllib

import msgspec
import pytest
import trio
import trio.testing

from goatarena import protocol
from goatarena.games import find_game
from goatarena.referee import (
    Cause,
    MatchResult,
    Penalty,
    TimeControl,
    ViolationPolicy,
    play_match,
)
from tests.helpers import FakeBot, action_line

MOUNTAIN_GOATS = find_game("mountain-goats")
CONTROL = TimeControl(move_ms=100, margin_ms=10)
LENIENT = ViolationPolicy(
    timeout=Penalty.RANDOM_MOVE, malformed=Penalty.RANDOM_MOVE, illegal=Penalty.RANDOM_MOVE
)


def run_virtual(bots: list[FakeBot], policy: ViolationPolicy | None = None) -> MatchResult:
    async def main() -> MatchResult:
        return await play_match(MOUNTAIN_GOATS, bots, seed=2, time_control=CONTROL, policy=policy)

    return trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def instant() -> FakeBot:
    return FakeBot("instant", lambda request: (0.0, action_line(0, request.decision)))


def scripted(plan: dict[int, tuple[float, bytes | None]], *, echo: bool = True) -> FakeBot:
    """Answers index 0 at once, except on its n-th request (from 0) as ``plan`` says."""
    count = 0

    def answer(request: protocol.Decide) -> tuple[float, bytes | None]:
        nonlocal count
        count += 1
        good = action_line(0, request.decision if echo else None)
        return plan.get(count - 1, (0.0, good))

    return FakeBot("scripted", answer)


ILLEGAL = (0.0, action_line(999))
GARBAGE = (0.0, b"not json\n")
HELLO = (0.0, protocol.encode(protocol.BotHello(name="again")))


def test_the_default_policy_forfeits_at_the_first_violation():
    result = run_virtual([scripted({1: ILLEGAL}), instant()])
    violation = result.violations[0]
    assert violation is not None and violation.cause == "illegal"
    assert violation.penalty == "forfeit"
    assert result.all_violations == [[violation], []]
    assert result.ranks == [2, 1]


def test_random_moves_are_played_for_each_strike_and_the_last_strike_forfeits():
    bot = scripted({0: ILLEGAL, 2: GARBAGE, 3: HELLO, 4: ILLEGAL})
    result = run_virtual([bot, instant()], LENIENT)
    strikes = result.all_violations[0]
    assert [v.cause for v in strikes] == ["illegal", "malformed", "malformed"]
    assert [v.penalty for v in strikes] == ["random-move", "random-move", "forfeit"]
    assert strikes[2].detail.endswith("(strike 3 of 3)")
    assert result.violations == [strikes[2], None]
    assert result.ranks == [2, 1]
    assert len(bot.requests) == 4  # never asked again after the third strike


def test_the_bot_learns_the_random_move_played_for_it_from_the_next_events():
    bot = scripted({0: ILLEGAL})
    result = run_virtual([bot, instant()], LENIENT)
    assert result.violations == [None, None]
    assert [v.decision for v in result.all_violations[0]] == [0]
    first_events = bot.requests[1].events
    assert first_events[0].seat == 0
    assert first_events[0].action == result.decisions[0]


def test_a_game_with_fewer_strikes_than_the_limit_is_not_forfeited():
    bot = scripted({3: ILLEGAL, 7: ILLEGAL})
    result = run_virtual([bot, instant()], LENIENT)
    assert result.violations == [None, None]
    assert len(result.all_violations[0]) == 2
    assert not bot.broken


@pytest.mark.parametrize("echo", [True, False])
def test_a_late_answer_after_a_timeout_is_discarded_not_taken_for_the_next(echo):
    # The late answer names an impossible index: taken for the next request, it would be
    # an illegal action.
    late = (0.15, action_line(999, 2 if echo else None))
    bot = scripted({1: late}, echo=echo)
    result = run_virtual([bot, instant()], LENIENT)
    strikes = result.all_violations[0]
    assert [(v.cause, v.decision, v.penalty) for v in strikes] == [("timeout", 2, "random-move")]
    assert result.violations == [None, None]
    assert bot.broken is None  # its next answer came, so it is in step again


def test_a_bot_that_ends_the_game_still_owing_an_answer_is_marked_broken():
    # Every answer comes 150 ms after the deadline, so the last one is still owed.
    bot = FakeBot("late", lambda request: (0.26, action_line(0)))
    policy = ViolationPolicy(timeout=Penalty.RANDOM_MOVE, strikes=1000)
    result = run_virtual([bot, instant()], policy)
    assert result.violations == [None, None]
    assert all(v.cause == "timeout" for v in result.all_violations[0])
    assert bot.broken is not None and bot.broken.cause == Cause.TIMEOUT
    assert isinstance(bot.messages[-1], protocol.End)  # the end was still delivered


def test_a_bot_that_never_answers_forfeits_at_the_strike_limit():
    bot = FakeBot("silent", lambda request: (0.0, None))
    policy = ViolationPolicy(timeout=Penalty.RANDOM_MOVE, strikes=2)
    result = run_virtual([bot, instant()], policy)
    assert [v.penalty for v in result.all_violations[0]] == ["random-move", "forfeit"]
    assert bot.broken is not None


class NotReading(FakeBot):
    """A bot whose input pipe is full: writing a request never completes."""

    async def send_bytes(self, line: bytes) -> None:
        if b'"decide"' in line:
            await trio.sleep_forever()
        await super().send_bytes(line)


def test_a_bot_that_does_not_read_forfeits_whatever_the_policy():
    bot = NotReading("deaf", lambda request: (0.0, action_line(0)))
    result = run_virtual([bot, instant()], LENIENT)
    violation = result.violations[0]
    assert violation is not None and violation.cause == "timeout"
    assert violation.detail == "does not read its input"
    assert len(result.all_violations[0]) == 1
    assert bot.broken is not None


def test_policy_decodes_from_toml_and_rejects_what_it_cannot_do():
    table = tomllib.loads('timeout = "random-move"\nstrikes = 5\n')
    policy = msgspec.convert(table, ViolationPolicy)
    assert policy.timeout is Penalty.RANDOM_MOVE and policy.strikes == 5
    assert policy.penalty_for(Cause.ILLEGAL) is Penalty.FORFEIT
    for bad in ({"crash": "random-move"}, {"strikes": 0}, {"timeout": "ignore"}, {"x": 1}):
        with pytest.raises(msgspec.ValidationError):
            msgspec.convert(bad, ViolationPolicy)
    with pytest.raises(ValueError, match="crash"):
        ViolationPolicy(crash=Penalty.RANDOM_MOVE)
