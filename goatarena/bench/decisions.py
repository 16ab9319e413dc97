"""The referee's cost per decision: ``play_match`` between bots that answer at once, on one CPU."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from goatarena.bench.bots import (
    ACTION_REPLY,
    BENCH_GAME,
    BENCH_TIME,
    FLOOR_READER,
    MINIMAL_BOT,
    RANDOM_BOT,
    python_command,
)
from goatarena.bench.floor import raw_round_trips, sample_decide, stream_round_trips
from goatarena.bench.sizes import Say, Sizes
from goatarena.bench.split import CpuWatch, engine_and_encoding_s
from goatarena.errors import GoatArenaError
from goatarena.games import GAMES, GameInfo
from goatarena.referee.bot import BotProcess, open_bot
from goatarena.referee.lineup import open_lineup
from goatarena.referee.match import play_match
from goatarena.referee.spawn import ChildProcess


def table_size(info: GameInfo) -> int:
    """The player count benchmarked: two where the game allows it."""
    return 2 if 2 in info.player_counts else info.min_players


async def decision_cost(
    info: GameInfo, bots: Sequence[BotProcess], decisions: int
) -> tuple[float, int, int]:
    """Play games until ``decisions`` are made: (seconds per decision, decisions, games).

    The games are seeded 0, 1, 2...: the random bots seed themselves from the game's
    seed, so every call with the same arguments replays the very same games.
    """
    made = games = 0
    elapsed = 0.0
    while made < decisions:
        started = time.perf_counter()
        result = await play_match(info, bots, seed=games, time_control=BENCH_TIME, match_id="bench")
        elapsed += time.perf_counter() - started
        if any(result.violations):
            raise GoatArenaError(f"benchmark bot failed in {info.name}: {result.violations}")
        made += len(result.decisions)
        games += 1
    return elapsed / made, made, games


@dataclass
class Rounds:
    """The samples of the alternating floor and referee rounds."""

    floor: list[float]
    floor_stream: list[float]
    minimal: list[float]
    decision: dict[str, list[float]]
    decisions_per_game: dict[str, float]
    pinned: int | None = None
    floor_cpu: list[tuple[float, float]] = field(default_factory=list)
    """CPU seconds per raw round trip of (this process, the reader), per round."""
    minimal_cpu: list[tuple[float, float]] = field(default_factory=list)
    """CPU seconds per decision of (the referee, the minimal bots), per round."""
    cpu: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    """CPU seconds per decision of (the referee, the random bots), per game and round."""
    split: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    """CPU seconds per decision of (engine, encoding) in process, per game and round."""


async def measure_rounds(sizes: Sizes, games: Sequence[GameInfo], say: Say) -> Rounds:
    """The floor, the referee with a minimal bot and with the random bot, in rounds."""
    floor_line = sample_decide(GAMES[BENCH_GAME], 2)
    reader = FLOOR_READER.replace("REPLY", repr(ACTION_REPLY))
    rounds = Rounds([], [], [], {info.name: [] for info in games}, {})
    seats = max(table_size(info) for info in games)
    startup_s = BENCH_TIME.startup_ms / 1000
    async with (
        open_lineup([python_command(RANDOM_BOT)] * seats, startup_s=startup_s) as bots,
        open_lineup([python_command(MINIMAL_BOT)] * 2, startup_s=startup_s) as minimal,
        open_bot(python_command(reader)) as floor_process,
    ):
        check_started([*bots, *minimal])
        with on_one_cpu([bot.pid for bot in (*bots, *minimal, floor_process)]) as rounds.pinned:
            # Warm up: first round trips and games pay for caches and lazy imports.
            process = floor_process.process
            await raw_round_trips(process, floor_line, max(sizes.floor_trips // 10, 1))
            for info in games:
                await decision_cost(info, bots[: table_size(info)], 1)
            for number in range(sizes.rounds):
                say(f"round {number + 1}/{sizes.rounds}: floor and referee")
                await _one_round(rounds, sizes, games, floor_line, process, bots, minimal)
    return rounds


async def _one_round(
    rounds: Rounds,
    sizes: Sizes,
    games: Sequence[GameInfo],
    floor_line: bytes,
    floor_process: ChildProcess,
    bots: Sequence[BotProcess],
    minimal: Sequence[BotProcess],
) -> None:
    trips = sizes.floor_trips
    watch = CpuWatch([floor_process.pid])
    rounds.floor.append(await raw_round_trips(floor_process, floor_line, trips))
    _add(rounds.floor_cpu, watch.per(trips))
    rounds.floor_stream.append(await stream_round_trips(floor_process, floor_line, trips))
    watch = CpuWatch([bot.pid for bot in minimal])
    cost, made, _ = await decision_cost(GAMES[BENCH_GAME], minimal, sizes.decisions)
    rounds.minimal.append(cost)
    _add(rounds.minimal_cpu, watch.per(made))
    for info in games:
        seated = bots[: table_size(info)]
        watch = CpuWatch([bot.pid for bot in seated])
        cost, made, played = await decision_cost(info, seated, sizes.decisions)
        rounds.decision[info.name].append(cost)
        rounds.decisions_per_game[info.name] = made / played
        _add(rounds.cpu.setdefault(info.name, []), watch.per(made))
        # In the same round and on the same CPU, so that the shares compare with the rest.
        split = engine_and_encoding_s(
            info, table_size(info), sizes.split_decisions, time_ms=BENCH_TIME.move_ms
        )
        rounds.split.setdefault(info.name, []).append(split)


def _add(samples: list[tuple[float, float]], sample: tuple[float, float] | None) -> None:
    if sample is not None:
        samples.append(sample)


@contextmanager
def on_one_cpu(pids: Sequence[int]) -> Iterator[int | None]:
    """Run this thread and the processes ``pids`` on one CPU; yields it (None if unable)."""
    if not hasattr(os, "sched_setaffinity"):
        yield None
        return
    allowed = os.sched_getaffinity(0)
    cpu = max(allowed)
    try:
        for pid in (0, *pids):
            os.sched_setaffinity(pid, {cpu})
    except OSError:
        os.sched_setaffinity(0, allowed)
        yield None
        return
    try:
        yield cpu
    finally:
        os.sched_setaffinity(0, allowed)


def check_started(bots: Sequence[BotProcess]) -> None:
    for bot in bots:
        if bot.broken is not None:
            raise GoatArenaError(f"benchmark bot did not start: {bot.broken.detail}")
