"""A zoo of misbehaving bot processes: every game ends promptly, with the right cause,
with the referee's memory bounded and no process of the bot left behind."""

from __future__ import annotations

import os
import time
import tracemalloc
from pathlib import Path

import pytest
import trio

from goatarena import protocol
from goatarena.games import find_game
from goatarena.referee import (
    BotLimits,
    BotViolation,
    MatchResult,
    Penalty,
    TimeControl,
    ViolationPolicy,
    play_match,
)
from goatarena.referee.lineup import open_lineup
from tests.helpers import RANDOM_BOT, group_is_gone, misbehaving

MOUNTAIN_GOATS = find_game("mountain-goats")
CONTROL = TimeControl(move_ms=250, startup_ms=3000)
MIB = 1 << 20


class Played:
    """A finished game, how long it took until every bot was stopped, its process groups."""

    def __init__(self, result: MatchResult, elapsed_s: float, pids: list[int]) -> None:
        self.result = result
        self.elapsed_s = elapsed_s
        self.pids = pids

    @property
    def violation(self):
        return self.result.violations[0]


def play(
    commands: list[str],
    *,
    control: TimeControl = CONTROL,
    limits: BotLimits | None = None,
    policy: ViolationPolicy | None = None,
    log_dir: Path | None = None,
) -> Played:
    """Play one Mountain Goats game, timing it from the first request to the last reaping."""

    async def main() -> Played:
        async with open_lineup(
            commands, startup_s=control.startup_ms / 1000, limits=limits, log_dir=log_dir
        ) as bots:
            pids = [bot.pid for bot in bots]
            started = time.monotonic()
            result = await play_match(
                MOUNTAIN_GOATS, bots, seed=1, time_control=control, policy=policy
            )
        return Played(result, time.monotonic() - started, pids)

    return trio.run(main)


@pytest.mark.parametrize(
    ("mode", "arg", "cause", "detail"),
    [
        ("hang", None, "timeout", "no answer within 250 ms"),
        ("hang-ignore-term", None, "timeout", "no answer within 250 ms"),
        ("orphan", None, "crash", "exited with code 0"),
        ("close-stdout", None, "crash", "closed its stdout"),
        ("late", 60, "timeout", "no answer within 250 ms"),
        ("stale-flood", None, "malformed", "answered decision -1, expected 4"),
    ],
)
def test_a_misbehaving_process_loses_promptly_and_is_cleaned_up(mode, arg, cause, detail):
    played = play([misbehaving(mode, 2, arg), RANDOM_BOT])
    assert played.violation is not None
    assert (played.violation.cause, played.violation.detail) == (cause, detail)
    assert played.result.ranks == [2, 1]
    # One deadline at most, plus the terminate grace for a bot that ignores SIGTERM.
    assert played.elapsed_s < 1.5
    assert all(group_is_gone(pid) for pid in played.pids)


def test_an_endless_line_is_refused_at_the_cap_without_buffering_it():
    tracemalloc.start()
    try:
        played = play([misbehaving("endless-line", 2, 64 * MIB), RANDOM_BOT])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert played.violation is not None and played.violation.cause == "malformed"
    assert f"longer than {protocol.MAX_LINE_BYTES} bytes" in played.violation.detail
    assert peak < 8 * MIB  # the line cap (64 KiB) and a read chunk, not the 64 MiB
    assert played.elapsed_s < 1.5
    assert group_is_gone(played.pids[0])


def test_a_bot_flooding_stderr_plays_unpunished_and_its_log_stays_capped(tmp_path):
    cap = 64 << 10
    tracemalloc.start()
    try:
        played = play(
            [misbehaving("stderr-flood", 0, MIB), RANDOM_BOT],
            limits=BotLimits(stderr_log_bytes=cap),
            log_dir=tmp_path,
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    latency = played.result.latency[0]
    assert latency is not None and latency.decisions > 10  # so > 10 MiB went through stderr
    assert played.result.violations == [None, None]
    log = (tmp_path / "seat0.log").read_bytes()
    marker = b"\n[goatarena: log truncated]\n"
    assert log == b"e" * cap + marker
    assert peak < 8 * MIB
    assert all(group_is_gone(pid) for pid in played.pids)


@pytest.mark.parametrize("policy", [None, ViolationPolicy(timeout=Penalty.RANDOM_MOVE)])
def test_a_bot_that_never_reads_its_input_forfeits_whatever_the_policy(policy):
    played = play([misbehaving("no-read", 0, 5), RANDOM_BOT], policy=policy)
    assert played.violation is not None and played.violation.cause == "timeout"
    assert played.violation.detail == "does not read its input"
    assert played.elapsed_s < 1.5
    assert all(group_is_gone(pid) for pid in played.pids)


def test_a_bot_hoarding_memory_hits_its_limit_and_crashes():
    control = TimeControl(move_ms=2000, startup_ms=3000)
    played = play(
        [misbehaving("memory", 2), RANDOM_BOT],
        control=control,
        limits=BotLimits(memory_bytes=64 * MIB),
    )
    assert played.violation is not None and played.violation.cause == "crash"
    assert played.violation.detail == "exited with code 1: MemoryError"
    assert played.elapsed_s < 2
    assert group_is_gone(played.pids[0])


def test_a_bot_slow_to_start_is_fine_within_the_start_up_limit_and_broken_past_it():
    async def greet(command: str, startup_s: float) -> tuple[BotViolation | None, int, float]:
        started = time.monotonic()
        async with open_lineup([command], startup_s=startup_s) as bots:
            broken, pid = bots[0].broken, bots[0].pid
        return broken, pid, time.monotonic() - started

    broken, _, _ = trio.run(greet, misbehaving("slow-start", 0, 300), 2.0)
    assert broken is None
    broken, pid, elapsed = trio.run(greet, misbehaving("slow-start", 0, 5000), 0.4)
    assert broken is not None and broken.cause == "timeout"
    assert broken.detail == "no hello within 400 ms"
    assert elapsed < 1.2
    assert group_is_gone(pid)


def test_an_answer_just_inside_the_time_told_is_accepted():
    played = play([misbehaving("just-in-time", 2, 20), RANDOM_BOT])
    assert played.result.violations == [None, None]
    latency = played.result.latency[0]
    assert latency is not None and 230 <= latency.max_ms < 250 + CONTROL.margin_ms


@pytest.mark.parametrize("mode", ["late-once", "late-once-no-echo"])
def test_under_random_move_a_late_answer_costs_a_strike_and_is_discarded(mode):
    # The late answer names an impossible index: had it been taken for the next request,
    # it would show as an illegal action.
    policy = ViolationPolicy(timeout=Penalty.RANDOM_MOVE)
    played = play([misbehaving(mode, 2, 60), RANDOM_BOT], policy=policy)
    strikes = played.result.all_violations[0]
    assert [(v.cause, v.decision, v.penalty) for v in strikes] == [("timeout", 4, "random-move")]
    assert played.result.violations == [None, None]
    assert all(group_is_gone(pid) for pid in played.pids)


def test_under_random_move_a_bot_always_late_forfeits_at_the_third_strike():
    policy = ViolationPolicy(timeout=Penalty.RANDOM_MOVE)
    played = play([misbehaving("late", 2, 60), RANDOM_BOT], policy=policy)
    strikes = played.result.all_violations[0]
    assert [v.penalty for v in strikes] == ["random-move", "random-move", "forfeit"]
    assert played.violation == strikes[-1]
    assert played.elapsed_s < 3 * 0.3 + 1
    assert group_is_gone(played.pids[0])


def test_many_games_at_once_with_short_clocks_lose_no_time():
    """Twice as many games as CPUs, 50 ms a decision, in one referee: no timeouts.

    Each game starts its own bots, one start-up per two CPUs at a time, as docs/referee.md
    advises: start-ups burn CPU that bots already playing would otherwise wait for.
    """
    control = TimeControl(move_ms=50, startup_ms=10_000)
    cpus = os.cpu_count() or 1
    games = 2 * cpus
    limiter = trio.CapacityLimiter(max(1, cpus // 2))
    results: list[MatchResult] = []

    async def one_slot(slot: int) -> None:
        for round_ in range(2):
            async with open_lineup([RANDOM_BOT] * 3, startup_s=10, startup_limiter=limiter) as bots:
                seed = 100 * slot + round_
                results.append(
                    await play_match(MOUNTAIN_GOATS, bots, seed=seed, time_control=control)
                )

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            for slot in range(games):
                nursery.start_soon(one_slot, slot)

    trio.run(main)
    assert len(results) == 2 * games
    worst = max(latency.max_ms for result in results for latency in result.latency if latency)
    violations = [v for result in results for v in result.violations if v is not None]
    assert violations == [], f"slowest answer {worst:.1f} ms"


def test_a_startup_limiter_holds_a_lineup_back_until_it_has_room():
    started: list[float] = []

    async def lineup(limiter: trio.CapacityLimiter) -> None:
        async with open_lineup([RANDOM_BOT], startup_s=10, startup_limiter=limiter) as bots:
            assert bots[0].broken is None
            started.append(trio.current_time())

    async def main() -> float:
        limiter = trio.CapacityLimiter(1)
        async with trio.open_nursery() as nursery:
            await limiter.acquire_on_behalf_of("test")
            nursery.start_soon(lineup, limiter)
            await trio.sleep(0.3)
            assert started == []
            released = trio.current_time()
            limiter.release_on_behalf_of("test")
        return released

    released = trio.run(main)
    assert len(started) == 1 and started[0] > released
