"""What the sandbox costs, for ``goatarena bench``: start-up, pipe, pausing, restarts.

Measured side by side in one run, so that the ratios hold on a busy machine: a bot's
start-up and a decision's round trip with and without the sandbox, what pausing and
resuming a bot add to each decision, and how many extra processes the rule "no process
plays a deal twice" starts in a small round-robin tournament.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Iterator
from contextlib import contextmanager

import msgspec
import trio

from goatarena.errors import GoatArenaError
from goatarena.formats.config import GameEntry, TournamentConfig
from goatarena.formats.schedule import round_robin_schedule
from goatarena.referee.bot import BotProcess, open_bot
from goatarena.referee.sandbox import NO_SANDBOX, SandboxPolicy, probe
from goatarena.running.job import deal_of
from goatarena.running.pool import BotPool

STARTUP_S = 30.0
LINE = b'{"type":"decide","decision":1,"observation":{},"actions":[0,1],"time_ms":1000}\n'


class SandboxBench(msgspec.Struct, frozen=True):
    """The sandbox's costs; times in milliseconds (``_ms``) or microseconds (``_us``)."""

    spawn_ms: float
    spawn_sandboxed_ms: float
    trip_us: float
    trip_sandboxed_us: float
    pause_resume_us: float
    starts: int
    starts_for_deals: int
    games: int


async def _spawn(command: str, policy: SandboxPolicy) -> float:
    started = time.perf_counter()
    async with open_bot(command, sandbox=policy) as bot:
        if await bot.greet(STARTUP_S) is None:
            raise GoatArenaError(f"benchmark bot did not start: {bot.broken}")
        return time.perf_counter() - started


async def _trips(bot: BotProcess, trips: int) -> float:
    started = time.perf_counter()
    for _ in range(trips):
        await bot.send_bytes(LINE)
        await bot.receive_line()
    return (time.perf_counter() - started) / trips


async def _pause_resume(bot: BotProcess, cycles: int) -> float:
    started = time.perf_counter()
    for _ in range(cycles):
        bot.resume()
        bot.pause()
    return (time.perf_counter() - started) / cycles


async def _measure(
    command: str, answering: str, samples: int, trips: int
) -> tuple[list[float], ...]:
    sandboxed = SandboxPolicy()
    spawn, spawn_boxed = [], []
    for _ in range(samples):  # interleaved: a change in the machine's load hits both
        spawn.append(await _spawn(command, NO_SANDBOX))
        spawn_boxed.append(await _spawn(command, sandboxed))
    trip, trip_boxed, pause = [], [], []
    async with (
        open_bot(answering, sandbox=NO_SANDBOX) as plain,
        open_bot(answering, sandbox=SandboxPolicy(ponder=True)) as boxed,
        open_bot(answering, sandbox=sandboxed) as frozen,
    ):
        for bot in (plain, boxed, frozen):
            if await bot.greet(STARTUP_S) is None:
                raise GoatArenaError(f"benchmark bot did not start: {bot.broken}")
        with _on_one_cpu(plain, boxed, frozen):
            for _ in range(samples):
                trip.append(await _trips(plain, trips))
                trip_boxed.append(await _trips(boxed, trips))
                pause.append(await _pause_resume(frozen, trips))
    return spawn, spawn_boxed, trip, trip_boxed, pause


@contextmanager
def _on_one_cpu(plain: BotProcess, *sandboxed: BotProcess) -> Iterator[None]:
    """This thread and the bots on one CPU, as a tournament's game slot runs them: a round
    trip between two CPUs costs a cross-CPU wake-up or not as the scheduler places the
    processes, which would swamp the sandbox's own cost in the ratio."""
    if not hasattr(os, "sched_setaffinity"):
        yield
        return
    allowed = os.sched_getaffinity(0)
    cpu = max(allowed)
    try:
        os.sched_setaffinity(0, {cpu})
        os.sched_setaffinity(plain.pid, {cpu})
        for bot in sandboxed:
            bot.pin(cpu)
        yield
    finally:
        os.sched_setaffinity(0, allowed)


async def _restarts(command: str, deals: int) -> tuple[int, int, int]:
    """Processes started, those started only because of the deal rule, and games, for a
    round-robin of three sandboxed bots taken game by game from one pool (the bots are
    started and greeted; no game is played)."""
    config = TournamentConfig(
        name="sandbox-bench",
        bots={f"bot{number}": command for number in range(3)},
        games=[GameEntry(name="mountain-goats", players=2)],
        deals=deals,
    )
    schedule = round_robin_schedule(config)
    async with trio.open_nursery() as nursery:
        pool = BotPool(nursery, config.bots, startup_s=STARTUP_S, sandboxes=config.sandboxes())
        try:
            for game in schedule:
                seats = [await pool.acquire(name, deal_of(game.key)) for name in game.seating]
                for seat in seats:
                    pool.release(seat)
        finally:
            pool.close()
    return pool.started, pool.started_for_deals, len(schedule)


def sandbox_costs(
    command: str, answering: str, *, samples: int, trips: int, deals: int
) -> SandboxBench | None:
    """Measure the sandbox with the bot ``command`` (start-up, tournament) and the bot
    ``answering`` (which answers any decide at once); None where bots cannot be sandboxed.
    """
    if probe() is not None:
        return None
    spawn, spawn_boxed, trip, trip_boxed, pause = trio.run(
        _measure, command, answering, samples, trips
    )
    starts, for_deals, games = trio.run(_restarts, command, deals)
    return SandboxBench(
        spawn_ms=round(statistics.median(spawn) * 1000, 1),
        spawn_sandboxed_ms=round(statistics.median(spawn_boxed) * 1000, 1),
        trip_us=round(min(trip) * 1e6, 1),
        trip_sandboxed_us=round(min(trip_boxed) * 1e6, 1),
        pause_resume_us=round(min(pause) * 1e6, 1),
        starts=starts,
        starts_for_deals=for_deals,
        games=games,
    )


def sandbox_rows(report: SandboxBench | None) -> list[tuple[str, str, str]]:
    """Rows for the bench table."""
    if report is None:
        return [("sandbox", "not measured", "bots cannot be sandboxed here")]
    return [
        (
            "bot start-up, sandboxed",
            f"{report.spawn_sandboxed_ms:.1f} ms",
            f"{report.spawn_sandboxed_ms / report.spawn_ms:.2f} × {report.spawn_ms:.1f} ms"
            " unsandboxed",
        ),
        (
            "round trip, sandboxed (one CPU)",
            f"{report.trip_sandboxed_us:.1f} µs",
            f"{report.trip_sandboxed_us / report.trip_us:.2f} × {report.trip_us:.1f} µs"
            " unsandboxed",
        ),
        ("pause + resume per decision", f"{report.pause_resume_us:.1f} µs", "freezing off-turn"),
        (
            "start-ups for no repeated deal",
            f"+{report.starts_for_deals}",
            f"{report.starts} processes for {report.games} games",
        ),
    ]
