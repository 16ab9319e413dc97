"""The referee against real bot processes and against a scripted fake connection."""

from __future__ import annotations

import time

import msgspec
import pytest
import trio
import trio.testing

from goatarena import protocol
from goatarena.errors import BotError
from goatarena.games import find_game
from goatarena.referee import (
    BotViolation,
    Cause,
    MatchResult,
    TimeControl,
    choose_index,
    open_bot,
    play_match,
)
from goatarena.referee.lineup import open_lineup
from tests.helpers import RANDOM_BOT, group_is_gone, misbehaving, python_bot

MOUNTAIN_GOATS = find_game("mountain-goats")
FAST = TimeControl(move_ms=300, startup_ms=5000)


def play(commands: list[str], *, seed: int = 1, control: TimeControl = FAST):
    """Play one Mountain Goats game; return the result and the bots' process groups."""

    async def main() -> tuple[MatchResult, list[int]]:
        async with open_lineup(commands, startup_s=control.startup_ms / 1000) as bots:
            pids = [bot.pid for bot in bots]
            result = await play_match(MOUNTAIN_GOATS, bots, seed=seed, time_control=control)
        return result, pids

    return trio.run(main)


def test_random_bots_play_a_complete_game_and_are_reaped():
    result, pids = play([RANDOM_BOT, RANDOM_BOT, RANDOM_BOT], seed=5)
    assert result.violations == [None, None, None]
    assert sorted(result.ranks)[0] == 1
    replayed = MOUNTAIN_GOATS.replay(
        MOUNTAIN_GOATS.new_state(3, 5)
        .to_record()
        .__class__(game="mountain-goats", players=3, seed=5, decisions=result.decisions)
    )
    assert replayed.result().scores == result.scores
    assert all(group_is_gone(pid) for pid in pids)


def test_same_seed_gives_the_same_game():
    first, _ = play([RANDOM_BOT, RANDOM_BOT], seed=11)
    second, _ = play([RANDOM_BOT, RANDOM_BOT], seed=11)
    assert first.decisions == second.decisions
    assert (first.scores, first.ranks) == (second.scores, second.ranks)


@pytest.mark.parametrize(
    ("mode", "cause"),
    [
        ("hang", Cause.TIMEOUT),
        ("exit", Cause.CRASH),
        ("garbage", Cause.MALFORMED),
        ("wrong-type", Cause.MALFORMED),
        ("bad-index", Cause.ILLEGAL),
    ],
)
def test_a_misbehaving_bot_forfeits_with_its_cause_and_leaves_nothing_running(mode, cause):
    started = time.monotonic()
    result, pids = play([misbehaving(mode, after=2), RANDOM_BOT])
    elapsed = time.monotonic() - started
    violation = result.violations[0]
    assert violation is not None and violation.cause == cause
    assert violation.decision >= 4  # two good decisions by seat 0, interleaved with seat 1
    assert result.violations[1] is None
    assert result.ranks == [2, 1]
    assert all(group_is_gone(pid) for pid in pids)
    assert elapsed < 5


def test_with_three_players_a_forfeited_seat_is_played_randomly_and_ranked_last():
    result, _ = play([misbehaving("exit", after=1), RANDOM_BOT, RANDOM_BOT], seed=3)
    assert result.violations[0] is not None and result.violations[0].cause == "crash"
    assert result.ranks[0] == 3
    assert sorted(result.ranks[1:]) in ([1, 2], [1, 1])
    state = MOUNTAIN_GOATS.new_state(3, 3)
    for action in result.decisions:
        state.apply(action)
    assert state.is_over


def test_a_bot_that_fails_its_handshake_is_reported_broken():
    async def main() -> BotViolation | None:
        async with open_lineup([misbehaving("no-hello")], startup_s=2) as bots:
            return bots[0].broken

    broken = trio.run(main)
    assert broken is not None and broken.cause == Cause.CRASH
    assert "code 4" in broken.detail


def test_a_bot_slow_to_greet_times_out_at_start_up():
    slow = python_bot("import time; time.sleep(30)")

    async def main() -> BotViolation | None:
        async with open_lineup([slow], startup_s=0.3) as bots:
            return bots[0].broken

    started = time.monotonic()
    broken = trio.run(main)
    assert broken is not None and broken.cause == Cause.TIMEOUT
    assert time.monotonic() - started < 3


def test_a_command_that_does_not_exist_is_a_clear_error():
    async def main() -> None:
        async with open_bot("/no/such/bot --flag"):
            pass

    with pytest.raises(BotError, match="cannot start bot"):
        trio.run(main)


def test_hanging_bot_that_ignores_sigterm_and_its_child_are_killed():
    code = (
        "import signal, subprocess, sys, time\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "time.sleep(60)\n"
    )

    async def main() -> int:
        async with open_bot(python_bot(code)) as bot:
            await trio.sleep(0.3)
            return bot.pid

    pid = trio.run(main)
    assert group_is_gone(pid)


def test_choose_index_accepts_index_or_value():
    actions = [{"move": [5]}, {"move": []}]
    assert choose_index(protocol.Action(index=1), actions) == 1
    assert choose_index(protocol.Action(action=msgspec.Raw(b'{"move": []}')), actions) == 1
    for value in (b'{"move":[9]}', b"[" + b"1e300," * 1000 + b"1]", b'{"move":'):
        with pytest.raises(BotViolation) as caught:
            choose_index(protocol.Action(action=msgspec.Raw(value)), actions)
        assert caught.value.cause == Cause.ILLEGAL
    with pytest.raises(BotViolation) as caught:
        choose_index(protocol.Action(), actions)
    assert caught.value.cause == Cause.MALFORMED


class ScriptedConnection:
    """A fake bot connection that answers from a script, with no process (MockTransport)."""

    def __init__(self, name: str, replies: list[bytes | float]) -> None:
        self.name = name
        self.replies = list(replies)
        self.sent: list[bytes] = []
        self._broken: BotViolation | None = None

    @property
    def broken(self) -> BotViolation | None:
        return self._broken

    def mark_broken(self, violation: BotViolation) -> None:
        self._broken = violation

    async def send_bytes(self, line: bytes) -> None:
        self.sent.append(line)

    async def receive(self) -> protocol.BotHello | protocol.Action:
        reply = self.replies.pop(0) if self.replies else b'{"type":"action","index":0}'
        if isinstance(reply, float):
            await trio.sleep(reply)
            reply = b'{"type":"action","index":0}'
        return protocol.parse_bot_message(reply)


def test_scripted_conversation_under_a_virtual_clock():
    fast = ScriptedConnection("fast", [])
    slow = ScriptedConnection("slow", [b'{"type":"action","index":0}', 5.0])
    control = TimeControl(move_ms=1000, margin_ms=0)

    async def main() -> MatchResult:
        return await play_match(MOUNTAIN_GOATS, [fast, slow], seed=2, time_control=control)

    result = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert result.violations[0] is None
    assert result.violations[1] is not None and result.violations[1].cause == "timeout"
    assert result.violations[1].decision == 3
    messages = [protocol.parse_referee_message(line) for line in fast.sent]
    assert isinstance(messages[0], protocol.Start) and messages[0].seat == 0
    assert isinstance(messages[-1], protocol.End) and messages[-1].ranks == [1, 2]
    decides = [m for m in messages if isinstance(m, protocol.Decide)]
    assert decides[0].events == []
    assert [event.seat for event in decides[1].events] == [0, 1]


def test_a_reply_to_a_decision_never_asked_is_malformed_at_once_and_says_so():
    bot = ScriptedConnection(
        "echo",
        [b'{"type":"action","index":0,"decision":999}', b'{"type":"action","index":0}'],
    )
    other = ScriptedConnection("other", [])

    async def main() -> MatchResult:
        return await play_match(MOUNTAIN_GOATS, [bot, other], seed=2)

    result = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    violation = result.violations[0]
    assert violation is not None and violation.cause == "malformed"
    assert violation.detail == "answered decision 999, expected 0"
    assert result.violations[1] is None and result.duration_s < 1.0  # not a timeout


def test_a_bot_that_greets_with_garbage_is_reported_broken():
    nonsense = python_bot("print('nonsense', flush=True)\nimport time\ntime.sleep(30)")

    async def main() -> BotViolation | None:
        async with open_lineup([nonsense], startup_s=2) as bots:
            return bots[0].broken

    broken = trio.run(main)
    assert broken is not None and broken.cause == Cause.MALFORMED


def test_a_bot_is_usable_until_it_exits_and_a_replacement_appends_to_its_log(tmp_path):
    log = tmp_path / "bot.log"
    code = "import sys\nprint('started', file=sys.stderr, flush=True)\nsys.stdin.readline()"

    async def main() -> list[tuple[bool, bool, int | None]]:
        seen = []
        for _ in range(2):
            async with open_bot(python_bot(code), log_path=log) as bot:
                usable_at_start = bot.is_usable
                await bot.send(protocol.Hello())  # the bot reads one line, then exits
                with trio.fail_after(2):
                    with pytest.raises(BotViolation):
                        await bot.receive()
                seen.append((usable_at_start, bot.is_usable, bot.returncode))
        return seen

    seen = trio.run(main)
    assert seen == [(True, False, 0), (True, False, 0)]
    assert log.read_text() == "started\nstarted\n"


def test_a_log_that_cannot_be_opened_is_a_clear_error(tmp_path):
    async def main() -> None:
        async with open_bot(RANDOM_BOT, log_path=tmp_path / "missing" / "bot.log"):
            pass

    with pytest.raises(BotError, match="cannot open the log"):
        trio.run(main)


def test_the_last_line_of_a_bot_that_has_already_exited_is_still_read():
    code = (
        "import sys\n"
        "sys.stdin.readline()\n"
        'print(\'{"type": "hello", "name": "brief"}\', flush=True)\n'
    )

    async def main() -> tuple[str, int | None]:
        async with open_bot(python_bot(code)) as bot:
            await bot.send(protocol.Hello())
            with trio.fail_after(5):
                while bot.returncode is None:
                    await trio.sleep(0.01)
            await trio.sleep(0.1)  # the exit has surely been seen
            reply = await bot.receive()
            assert isinstance(reply, protocol.BotHello)
            return reply.name, bot.returncode

    assert trio.run(main) == ("brief", 0)


class NeverBlocks:
    """A bot connection that answers at once without ever making its caller wait, so that
    trio never switches tasks on its account; it logs ``game`` for every request."""

    def __init__(self, game: str, log: list[str]) -> None:
        self.name = "never-blocks"
        self.game = game
        self.log = log
        self.broken: BotViolation | None = None

    def mark_broken(self, violation: BotViolation) -> None:
        self.broken = violation

    async def send_bytes(self, line: bytes) -> None:
        if line.startswith(b'{"type":"decide"'):
            self.log.append(self.game)

    async def receive(self) -> protocol.Action:
        return protocol.Action(index=0)


def test_games_whose_bots_never_make_them_wait_still_take_turns():
    log: list[str] = []

    async def games(name: str) -> None:
        bots = [NeverBlocks(name, log), NeverBlocks(name, log)]
        for seed in range(20):
            result = await play_match(MOUNTAIN_GOATS, bots, seed=seed)
            assert result.violations == [None, None]

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(games, "a")
            nursery.start_soon(games, "b")

    started = time.perf_counter()
    trio.run(main)
    elapsed_ms = (time.perf_counter() - started) * 1000
    turns = 1 + sum(1 for before, after in zip(log, log[1:], strict=False) if before != after)
    # A game gives way about once a millisecond; else one would play all its games first.
    assert turns >= 10, f"{turns} turns in {elapsed_ms:.0f} ms over {len(log)} decisions"


def test_with_two_players_a_forfeit_ends_the_asking_and_the_game_is_played_out_at_random():
    """docs/protocol.md: once fewer than two seats have not forfeited, nobody is asked."""
    bad = ScriptedConnection("bad", [b'{"type":"action","index":999}'])
    good = ScriptedConnection("good", [])

    async def main() -> MatchResult:
        return await play_match(MOUNTAIN_GOATS, [bad, good], seed=4)

    result = trio.run(main)
    assert result.violations[0] is not None and result.violations[0].cause == Cause.ILLEGAL
    sent = [msgspec.json.decode(line)["type"] for line in good.sent]
    assert "decide" not in sent  # seat 0 decides first and forfeits at once
    assert sent[-1] == "end" and result.ranks == [2, 1]
    state = MOUNTAIN_GOATS.new_state(2, 4)
    for action in result.decisions:
        state.apply(action)
    assert state.is_over and len(result.decisions) > 10
