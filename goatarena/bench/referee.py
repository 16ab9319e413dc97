"""The referee benchmark: what a decision costs next to the bare pipe, and more.

Everything is measured in one run on one machine, so the numbers can be compared:

- the *floor*: one round trip of a real decide message and a short action reply through
  pipes to the smallest possible Python reader, with trio on this side — the cost no
  referee can beat;
- the referee's cost per decision: :func:`~goatarena.referee.match.play_match` between
  subprocess bots that answer at once (an SDK random bot), wall time over decisions, for
  every registered game, and its ratio to the floor;
- the engines: random games (and decisions) per second in process;
- where a decision goes: engine, encoding, pipe, bot and the rest (:mod:`goatarena.bench.split`);
- bot start-up: process start plus handshake;
- throughput: games per second of a Mountain Goats round-robin through the tournament
  runner, its SQLite store included, at concurrency 1 and 2;
- deadline accuracy: how late the referee cuts off a bot that never answers.

The floor and the referee measurements alternate in rounds and the best round counts
(as :mod:`timeit` does), because other load on the machine can only make a round slower.
During those rounds this process and its bots share one CPU: a round trip between two
CPUs also pays for waking an idle one, which varies far more than the work measured.
"""

from __future__ import annotations

import io
import math
import os
import platform
import random
import shlex
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import msgspec
import trio
from tabulate import tabulate

import goatarena
from goatarena import protocol
from goatarena.bench.isolation import worst_beside_hostile
from goatarena.bench.sandbox import SandboxBench, sandbox_costs, sandbox_rows
from goatarena.bench.split import CpuWatch, engine_and_encoding_s
from goatarena.errors import GoatArenaError
from goatarena.formats.config import GameEntry, TournamentConfig
from goatarena.games import GAMES, GameInfo
from goatarena.referee.bot import BotProcess, BotViolation, open_bot
from goatarena.referee.clock import TimeControl
from goatarena.referee.lineup import open_lineup
from goatarena.referee.match import Connection, play_match
from goatarena.referee.sandbox import probe
from goatarena.referee.spawn import ChildProcess
from goatarena.running.progress import Progress
from goatarena.running.runner import Runner
from goatarena.store.database import open_store
from goatarena.testing import random_playout

# -- the bots ------------------------------------------------------------------------------

_PACKAGE_ROOT = str(Path(goatarena.__file__).resolve().parent.parent)
_IMPORT_PACKAGE = f"import sys; sys.path.insert(0, {_PACKAGE_ROOT!r})\n"

FLOOR_READER = """\
import sys
read, write, flush = sys.stdin.buffer.readline, sys.stdout.buffer.write, sys.stdout.buffer.flush
reply = REPLY
while read():
    write(reply)
    flush()
"""
"""The smallest Python program that answers every line (REPLY is filled in)."""

RANDOM_BOT = (
    _IMPORT_PACKAGE
    + """\
import random
from goatarena.sdk import Bot, run

class RandomBot(Bot):
    name = "random"

    def start(self, game):
        self.rng = random.Random(game.seed)

    def choose(self, request):
        return self.rng.randrange(request.action_count)

run(RandomBot())
"""
)
"""The SDK random bot (as ``bots/python/random_bot.py``), importing this very package."""

MINIMAL_BOT = """\
import sys
read, write, flush = sys.stdin.buffer.readline, sys.stdout.buffer.write, sys.stdout.buffer.flush
while line := read():
    if line.startswith(b'{"type":"decide"'):
        write(b'{"type":"action","index":0}\\n')
        flush()
    elif line.startswith(b'{"type":"hello"'):
        write(b'{"type":"hello","name":"minimal"}\\n')
        flush()
    elif line.startswith(b'{"type":"quit"'):
        break
"""
"""A bot that answers without decoding anything: always the first action."""

SILENT_BOT = """\
import sys
for line in sys.stdin.buffer:
    if line.startswith(b'{"type":"hello"'):
        sys.stdout.buffer.write(b'{"type":"hello","name":"silent"}\\n')
        sys.stdout.buffer.flush()
"""
"""A bot that greets and then never answers."""

ACTION_REPLY = b'{"type":"action","index":3,"decision":41}\n'
BENCH_GAME = "mountain-goats"
BENCH_TIME = TimeControl(move_ms=10_000, startup_ms=30_000)
"""Generous limits: a loaded machine must not turn the measurement into forfeits."""


_Say = Callable[[str], None]


def python_command(code: str) -> str:
    """The command line running ``code`` on this interpreter."""
    return shlex.join([sys.executable, "-c", code])


# -- sizes and results ---------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Sizes:
    """How much to measure.

    The floor and the referee are measured in ``rounds`` short rounds that replay the
    same games, and the tournament ``tournament_repeats`` times; the best of each counts.
    """

    rounds: int
    floor_trips: int
    decisions: int
    playout_s: float
    spawn_samples: int
    deadline_samples: int
    deadline_ms: int
    tournament_bots: int
    tournament_deals: int
    tournament_repeats: int = 1
    concurrency: tuple[int, ...] = (1, 2)
    split_decisions: int = 1000
    """Decisions timed in process per game and round for the engine and encoding shares."""


FULL = Sizes(
    rounds=15,
    floor_trips=1000,
    decisions=600,
    playout_s=1.0,
    spawn_samples=9,
    deadline_samples=9,
    deadline_ms=100,
    tournament_bots=4,
    tournament_deals=20,
    tournament_repeats=3,
)
QUICK = Sizes(
    rounds=5,
    floor_trips=500,
    decisions=300,
    playout_s=0.25,
    spawn_samples=3,
    deadline_samples=3,
    deadline_ms=100,
    tournament_bots=4,
    tournament_deals=5,
)


class GameBench(msgspec.Struct, frozen=True):
    """The measurements of one game."""

    players: int
    decision_us: float
    decision_overhead_ratio: float
    decide_bytes: int
    decisions_per_game: float
    playouts_per_s: float
    decisions_per_s: float = 0.0
    """Decisions per second of the random playouts in process."""
    engine_us: float = 0.0
    encoding_us: float = 0.0
    cpu_us: float | None = None
    """CPU time per decision of the referee and the bot together (None where the system
    does not tell a process's CPU time); it is ``decision_us`` less any wait for other
    work on the machine, and splits into the five shares below."""
    cpu_overhead_ratio: float | None = None
    """``cpu_us`` over the floor's CPU time per round trip: the ratio, load or not."""
    pipe_us: float | None = None
    """The floor's CPU time per round trip (both ends)."""
    bot_us: float | None = None
    """The bot's CPU time per decision, less the floor reader's."""
    other_us: float | None = None
    """The referee's CPU time per decision less engine, encoding and its side of the pipe."""


class BenchReport(msgspec.Struct, frozen=True):
    """One benchmark run; times in microseconds (``_us``) or milliseconds (``_ms``)."""

    floor_us: float
    floor_stream_us: float
    floor_decide_bytes: int
    decision_us: float
    decision_overhead_ratio: float
    decision_minimal_bot_us: float
    games: dict[str, GameBench]
    playouts_per_s: dict[str, float]
    games_per_s: dict[str, float]
    games_per_s_with_startup: dict[str, float]
    spawn_ms: float
    deadline_overshoot_ms: dict[str, float]
    deadline_margin_ms: int
    pinned_cpu: int | None
    machine: dict[str, str]
    sizes: str
    rounds: int
    seconds: float
    sandbox: SandboxBench | None = None
    floor_cpu_us: float | None = None
    """CPU time per raw round trip, both ends (None where unknown)."""
    decision_minimal_bot_cpu_ratio: float | None = None
    """CPU time per decision with the minimal bot over ``floor_cpu_us``."""
    beside_hostile_ms: float = 0.0
    """The slowest decision of a game played beside a hostile bot's
    (:mod:`goatarena.bench.isolation`)."""


# -- the floor -----------------------------------------------------------------------------


def sample_decide(info: GameInfo, players: int, *, seed: int = 1, turns: int = 10) -> bytes:
    """A decide line as the referee sends it, from a random game a few turns in."""
    state = info.new_state(players, seed)
    rng = random.Random(seed)
    for _ in range(turns):
        if state.is_over:
            break
        state.apply_index(rng.randrange(len(state.legal_actions())))
    if state.is_over:
        state = info.new_state(players, seed)
    seat = state.to_act
    assert seat is not None
    last = state.history[-1:]
    request = protocol.Decide(
        decision=len(state.history),
        observation=state.observation(seat),
        actions=state.legal_actions(),
        time_ms=BENCH_TIME.move_ms,
        events=[protocol.Event(seat=(seat - 1) % players, action=action) for action in last],
    )
    return protocol.encode(request)


def mean_decide_bytes(info: GameInfo, players: int, *, seed: int = 1) -> int:
    """The mean size of the decide lines of one random game, as the referee sends them."""
    state = info.new_state(players, seed)
    rng = random.Random(seed)
    sizes = []
    while (seat := state.to_act) is not None:
        request = protocol.Decide(
            decision=len(state.history),
            observation=state.observation(seat),
            actions=state.legal_actions(),
            time_ms=BENCH_TIME.move_ms,
        )
        sizes.append(len(protocol.encode(request)))
        state.apply_index(rng.randrange(len(state.legal_actions())))
    return round(statistics.mean(sizes))


async def raw_round_trips(process: ChildProcess, line: bytes, trips: int) -> float:
    """Seconds per round trip: write, wait until readable, read — nothing else."""
    out, into = _fd(process.stdin), _fd(process.stdout)
    started = time.perf_counter()
    for _ in range(trips):
        await _write_all(out, line)
        reply = b""
        while not reply.endswith(b"\n"):
            await trio.lowlevel.wait_readable(into)
            reply += os.read(into, 1 << 16)
    return (time.perf_counter() - started) / trips


def _fd(stream: object) -> int:
    assert isinstance(stream, trio.lowlevel.FdStream)
    return stream.fileno()


async def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            await trio.lowlevel.wait_writable(fd)


async def stream_round_trips(process: ChildProcess, line: bytes, trips: int) -> float:
    """Seconds per round trip through trio's streams (``send_all``/``receive_some``)."""
    assert process.stdin is not None and process.stdout is not None
    started = time.perf_counter()
    for _ in range(trips):
        await process.stdin.send_all(line)
        reply = b""
        while not reply.endswith(b"\n"):
            reply += await process.stdout.receive_some(1 << 16)
    return (time.perf_counter() - started) / trips


# -- the referee ---------------------------------------------------------------------------


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
class _Rounds:
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


async def measure_rounds(sizes: Sizes, games: Sequence[GameInfo], say: _Say) -> _Rounds:
    """The floor, the referee with a minimal bot and with the random bot, in rounds."""
    floor_line = sample_decide(GAMES[BENCH_GAME], 2)
    reader = FLOOR_READER.replace("REPLY", repr(ACTION_REPLY))
    rounds = _Rounds([], [], [], {info.name: [] for info in games}, {})
    seats = max(table_size(info) for info in games)
    startup_s = BENCH_TIME.startup_ms / 1000
    async with (
        open_lineup([python_command(RANDOM_BOT)] * seats, startup_s=startup_s) as bots,
        open_lineup([python_command(MINIMAL_BOT)] * 2, startup_s=startup_s) as minimal,
        open_bot(python_command(reader)) as floor_process,
    ):
        _check_started([*bots, *minimal])
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
    rounds: _Rounds,
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


def _check_started(bots: Sequence[BotProcess]) -> None:
    for bot in bots:
        if bot.broken is not None:
            raise GoatArenaError(f"benchmark bot did not start: {bot.broken.detail}")


# -- the engines ---------------------------------------------------------------------------


def playouts_per_second(info: GameInfo, players: int, seconds: float) -> tuple[float, float]:
    """In-process random games of ``info``: (games per second, decisions per game)."""
    rng = random.Random(0)
    games = decisions = 0
    started = time.perf_counter()
    while True:
        state = random_playout(info.new_state(players, games), rng)
        games += 1
        decisions += len(state.history)
        elapsed = time.perf_counter() - started
        if elapsed >= seconds:
            return games / elapsed, decisions / games


# -- start-up and deadlines ----------------------------------------------------------------


async def spawn_times(samples: int) -> list[float]:
    """Seconds from starting a random bot's process to the end of its handshake."""
    times = []
    for _ in range(samples):
        started = time.perf_counter()
        async with open_bot(python_command(RANDOM_BOT)) as bot:
            name = await bot.greet(BENCH_TIME.startup_ms / 1000)
            times.append(time.perf_counter() - started)
        if name is None:
            raise GoatArenaError(f"benchmark bot did not start: {bot.broken}")
    return times


class _Stopwatch:
    """A connection that notes when the decide was sent and when its wait was cut off."""

    def __init__(self, bot: BotProcess) -> None:
        self._bot = bot
        self.name = bot.name
        self.sent: float | None = None
        self.cut_off: float | None = None

    @property
    def broken(self) -> BotViolation | None:
        return self._bot.broken

    def mark_broken(self, violation: BotViolation) -> None:
        self._bot.mark_broken(violation)

    async def send_bytes(self, line: bytes) -> None:
        if self.sent is None and line.startswith(b'{"type":"decide"'):
            self.sent = time.perf_counter()
        await self._bot.send_bytes(line)

    async def receive(self) -> protocol.BotHello | protocol.Action:
        try:
            return await self._bot.receive()
        except trio.Cancelled:
            self.cut_off = time.perf_counter()
            raise


async def deadline_overshoots(samples: int, move_ms: int) -> list[float]:
    """Seconds by which a silent bot's cut-off came after its hard deadline."""
    control = TimeControl(move_ms=move_ms, startup_ms=BENCH_TIME.startup_ms)
    deadline_s = (control.move_ms + control.bank_ms + control.margin_ms) / 1000
    overshoots = []
    startup_s = control.startup_ms / 1000
    async with open_lineup([python_command(MINIMAL_BOT)], startup_s=startup_s) as partner:
        _check_started(partner)
        for number in range(samples):
            async with open_lineup([python_command(SILENT_BOT)], startup_s=startup_s) as silent:
                _check_started(silent)
                watched = _Stopwatch(silent[0])
                seats: list[Connection] = [watched, partner[0]]
                result = await play_match(
                    GAMES[BENCH_GAME], seats, seed=number, time_control=control
                )
            violation = result.violations[0]
            if watched.sent is None or watched.cut_off is None or violation is None:
                raise GoatArenaError(f"the silent bot was not cut off: {result.violations}")
            overshoots.append(watched.cut_off - watched.sent - deadline_s)
    return overshoots


# -- throughput ----------------------------------------------------------------------------


class _FinishTimes(Progress):
    """A silent progress that keeps the time every game finished."""

    def __init__(self, total: int) -> None:
        super().__init__(total, stream=io.StringIO())
        self.enabled = False
        self.times: list[float] = []

    def advance(self, games: int = 1, *, result: object = None) -> None:
        self.times.extend([time.perf_counter()] * games)


def tournament_config(sizes: Sizes, concurrency: int) -> TournamentConfig:
    """A Mountain Goats round-robin between random subprocess bots."""
    command = python_command(RANDOM_BOT)
    return TournamentConfig(
        name="bench",
        bots={f"random{number}": command for number in range(sizes.tournament_bots)},
        games=[GameEntry(name=BENCH_GAME, players=2)],
        deals=sizes.tournament_deals,
        concurrency=concurrency,
        time=BENCH_TIME,
        sandbox="bwrap" if probe() is None else "none",
    )


def tournament_rates(sizes: Sizes, concurrency: int) -> tuple[float, float]:
    """Games per second of a whole run: (from the first game finished on, all of it)."""
    config = tournament_config(sizes, concurrency)
    with tempfile.TemporaryDirectory(prefix="goatarena-bench-") as folder:
        store = open_store(Path(folder) / "bench.sqlite")
        try:
            runner = Runner(config, store)
            finished = _FinishTimes(runner.expected_games())
            runner.progress = finished
            started = time.perf_counter()
            trio.run(runner.run)
            elapsed = time.perf_counter() - started
            stored = store.count()
        finally:
            store.close()
    times = finished.times
    if stored != len(times) or len(times) < 2:
        raise GoatArenaError(f"the benchmark tournament stored {stored} of {len(times)} games")
    steady = (len(times) - 1) / max(times[-1] - times[0], 1e-9)
    return steady, len(times) / elapsed


# -- the whole run -------------------------------------------------------------------------


def run_bench(sizes: Sizes, *, say: _Say | None = None) -> BenchReport:
    """Measure everything once with ``sizes``; ``say`` hears what is being measured."""
    say = say or (lambda _message: None)
    started = time.perf_counter()
    machine = describe_machine()
    games = list(GAMES.values())
    playouts = {}
    for info in games:
        say(f"engine: {info.name}")
        playouts[info.name] = playouts_per_second(info, table_size(info), sizes.playout_s)
    rounds = trio.run(measure_rounds, sizes, games, say)
    say("bot start-up")
    spawn = trio.run(spawn_times, sizes.spawn_samples)
    say("deadline accuracy")
    overshoots = trio.run(deadline_overshoots, sizes.deadline_samples, sizes.deadline_ms)
    say("sandbox")
    sandbox = sandbox_costs(
        python_command(RANDOM_BOT),
        python_command(MINIMAL_BOT),
        samples=max(sizes.spawn_samples, 5),  # a ratio of two noisy start-ups needs a few
        trips=sizes.floor_trips,
        deals=sizes.tournament_deals,
    )
    say("a game beside a hostile bot")
    beside_hostile, _ = trio.run(worst_beside_hostile, python_command(RANDOM_BOT))
    rates: dict[str, list[tuple[float, float]]] = {str(key): [] for key in sizes.concurrency}
    for number in range(sizes.tournament_repeats):
        for concurrency in sizes.concurrency:
            say(f"tournament {number + 1}/{sizes.tournament_repeats} at concurrency {concurrency}")
            rates[str(concurrency)].append(tournament_rates(sizes, concurrency))
    report = _report(sizes, rounds, playouts, spawn, overshoots, rates, machine)
    seconds = round(time.perf_counter() - started, 1)
    return msgspec.structs.replace(
        report, seconds=seconds, beside_hostile_ms=beside_hostile, sandbox=sandbox
    )


def _report(
    sizes: Sizes,
    rounds: _Rounds,
    playouts: dict[str, tuple[float, float]],
    spawn: list[float],
    overshoots: list[float],
    rates: dict[str, list[tuple[float, float]]],
    machine: dict[str, str],
) -> BenchReport:
    floor = min(rounds.floor)
    games = {
        name: _game_bench(name, samples, floor, rounds, playouts[name])
        for name, samples in rounds.decision.items()
    }
    bench_game = games[BENCH_GAME]
    floor_cpu = _best_cpu(rounds.floor_cpu)
    minimal_cpu = _best_cpu(rounds.minimal_cpu)
    return BenchReport(
        floor_cpu_us=None if floor_cpu is None else _us(sum(floor_cpu)),
        decision_minimal_bot_cpu_ratio=(
            None
            if floor_cpu is None or minimal_cpu is None
            else round(sum(minimal_cpu) / sum(floor_cpu), 2)
        ),
        floor_us=_us(floor),
        floor_stream_us=_us(min(rounds.floor_stream)),
        floor_decide_bytes=len(sample_decide(GAMES[BENCH_GAME], 2)),
        decision_us=bench_game.decision_us,
        decision_overhead_ratio=bench_game.decision_overhead_ratio,
        decision_minimal_bot_us=_us(min(rounds.minimal)),
        games=games,
        playouts_per_s={name: game.playouts_per_s for name, game in games.items()},
        games_per_s={key: round(max(rate[0] for rate in runs), 1) for key, runs in rates.items()},
        games_per_s_with_startup={
            key: round(max(rate[1] for rate in runs), 1) for key, runs in rates.items()
        },
        spawn_ms=round(statistics.median(spawn) * 1000, 1),
        deadline_overshoot_ms={
            "median": round(statistics.median(overshoots) * 1000, 2),
            "max": round(max(overshoots) * 1000, 2),
        },
        deadline_margin_ms=TimeControl().margin_ms,
        pinned_cpu=rounds.pinned,
        machine=machine,
        sizes="quick" if sizes == QUICK else "full" if sizes == FULL else "custom",
        rounds=sizes.rounds,
        seconds=0.0,
    )


def _best_cpu(samples: list[tuple[float, float]]) -> tuple[float, float] | None:
    """The round with the least CPU time in all (a cache-cold round only costs more)."""
    return min(samples, key=sum) if samples else None


def _game_bench(
    name: str,
    samples: list[float],
    floor: float,
    rounds: _Rounds,
    playouts: tuple[float, float],
) -> GameBench:
    """One game's measurements, with the decision's CPU time split into its shares."""
    decision = min(samples)
    splits = rounds.split[name]
    engine = min(engine for engine, _ in splits)
    encoding = min(encoding for _, encoding in splits)
    cpu = _best_cpu(rounds.cpu.get(name, []))
    floor_cpu = _best_cpu(rounds.floor_cpu)
    shares: dict[str, float | None] = dict.fromkeys(
        ("cpu_us", "cpu_overhead_ratio", "pipe_us", "bot_us", "other_us")
    )
    if cpu is not None and floor_cpu is not None:
        referee, bot = cpu
        floor_own, floor_reader = floor_cpu
        shares = {
            "cpu_us": _us(referee + bot),
            "cpu_overhead_ratio": round((referee + bot) / sum(floor_cpu), 2),
            "pipe_us": _us(sum(floor_cpu)),
            "bot_us": _us(bot - floor_reader),
            "other_us": _us(referee - engine - encoding - floor_own),
        }
    return GameBench(
        players=table_size(GAMES[name]),
        decision_us=_us(decision),
        decision_overhead_ratio=round(decision / floor, 2),
        decide_bytes=mean_decide_bytes(GAMES[name], table_size(GAMES[name])),
        decisions_per_game=round(rounds.decisions_per_game[name], 1),
        playouts_per_s=round(playouts[0], 1),
        decisions_per_s=round(playouts[0] * playouts[1], 1),
        engine_us=_us(engine),
        encoding_us=_us(encoding),
        **shares,
    )


def _us(seconds: float) -> float:
    return round(seconds * 1e6, 1)


def describe_machine() -> dict[str, str]:
    """CPUs, versions and the load average when the run starts (other work slows it)."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else math.nan
    return {
        "cpus": str(os.cpu_count() or 1),
        "load": f"{load:.2f}",
        "python": platform.python_version(),
        "system": f"{platform.system()} {platform.release()}",
        "trio": trio.__version__,
        "msgspec": msgspec.__version__,
    }


# -- the table -----------------------------------------------------------------------------


def render_report(report: BenchReport) -> str:
    """The report as two tables: the referee and the whole system, then each game."""
    floor = report.floor_us
    rows = [
        ("pipe floor: round trip", f"{floor:.1f} µs", f"{report.floor_decide_bytes} B decide"),
        (
            "floor through trio's streams",
            f"{report.floor_stream_us:.1f} µs",
            f"{report.floor_stream_us / floor:.2f} × floor",
        ),
        (
            f"referee per decision ({BENCH_GAME}, random bot)",
            f"{report.decision_us:.1f} µs",
            _against(report.decision_overhead_ratio, RANDOM_BOT_TARGET),
        ),
        (
            "referee per decision, minimal bot",
            f"{report.decision_minimal_bot_us:.1f} µs",
            _against(report.decision_minimal_bot_us / floor, MINIMAL_BOT_TARGET),
        ),
        (
            "  in CPU time (floor: both ends)",
            _maybe(report.floor_cpu_us, "{:.1f} µs floor"),
            _maybe(report.decision_minimal_bot_cpu_ratio, "{:.2f} × floor"),
        ),
        ("bot start-up (process + handshake)", f"{report.spawn_ms:.1f} ms", "median"),
        *(
            (f"tournament, concurrency {key}", f"{rate:.1f} games/s", _startup_note(report, key))
            for key, rate in report.games_per_s.items()
        ),
        *_scaling_rows(report),
        (
            "deadline overshoot",
            f"{report.deadline_overshoot_ms['median']:.2f} ms",
            f"max {report.deadline_overshoot_ms['max']:.2f} ms",
        ),
        ("slowest decision beside a hostile bot", f"{report.beside_hostile_ms:.1f} ms", "1 s move"),
        *sandbox_rows(report.sandbox),
    ]
    per_game = [
        (
            name,
            game.players,
            f"{game.decision_us:.1f}",
            f"{game.decision_overhead_ratio:.2f}",
            game.decide_bytes,
            game.decisions_per_game,
            f"{game.playouts_per_s:,.0f}",
            f"{game.decisions_per_s:,.0f}",
        )
        for name, game in report.games.items()
    ]
    headers = [
        "game",
        "players",
        "µs/decision",
        "× floor",
        "decide bytes",
        "decisions/game",
        "playouts/s",
        "decisions/s",
    ]
    split = [
        (
            name,
            _maybe(game.cpu_us),
            _maybe(game.cpu_overhead_ratio, "{:.2f}"),
            f"{game.engine_us:.1f}",
            f"{game.encoding_us:.1f}",
            _maybe(game.pipe_us),
            _maybe(game.bot_us),
            _maybe(game.other_us),
        )
        for name, game in report.games.items()
    ]
    split_headers = [
        "CPU µs per decision",
        "total",
        "× floor",
        "engine",
        "encoding",
        "pipe",
        "bot",
        "other",
    ]
    return "\n\n".join(
        [
            tabulate(rows, headers=["measurement", "value", ""]),
            tabulate(per_game, headers=headers, disable_numparse=True),
            tabulate(split, headers=split_headers, disable_numparse=True),
            _footnote(report),
        ]
    )


def _maybe(value: float | None, shape: str = "{:.1f}") -> str:
    return "n/a" if value is None else shape.format(value)


def _footnote(report: BenchReport) -> str:
    machine = report.machine
    pinned = (
        f"floor and decisions with referee and bots on CPU {report.pinned_cpu}"
        if report.pinned_cpu is not None
        else "floor and decisions unpinned"
    )
    return (
        f"{machine['cpus']} CPUs (load {machine['load']} at start), Python {machine['python']},"
        f" trio {machine['trio']}; {pinned}, best of {report.rounds} rounds;"
        f" {report.sizes} run in {report.seconds:.0f} s"
    )


MINIMAL_BOT_TARGET = 2.0
"""The referee's cost per decision with the minimal bot, in floors, at most (idle machine)."""
RANDOM_BOT_TARGET = 3.0
"""The same with the SDK's random bot, which decodes and answers like a real bot."""


def _against(ratio: float, target: float) -> str:
    """A ratio to the floor, and whether it is within its target."""
    verdict = "within" if ratio <= target else "over"
    return f"{ratio:.2f} × floor ({verdict} {target:.1f}×)"


SCALING_TARGET = 1.7
"""Concurrency 2 over concurrency 1 expected on two idle CPUs (local referee processes)."""


def _scaling_rows(report: BenchReport) -> list[tuple[str, str, str]]:
    """Concurrency 2 against 1: one trio loop per CPU should nearly double the rate."""
    one, two = report.games_per_s.get("1"), report.games_per_s.get("2")
    if not one or not two:
        return []
    ratio = two / one
    verdict = "meets" if ratio >= SCALING_TARGET else "below"
    note = f"{verdict} {SCALING_TARGET}× target (load {report.machine['load']} at start)"
    return [("scaling, concurrency 2 ÷ 1", f"{ratio:.2f} ×", note)]


def _startup_note(report: BenchReport, key: str) -> str:
    return f"{report.games_per_s_with_startup[key]:.1f} with start-up"


def report_json(report: BenchReport) -> str:
    """The report as one line of JSON."""
    return msgspec.json.encode(report).decode()
