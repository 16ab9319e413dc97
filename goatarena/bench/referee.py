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

import statistics
import time

import msgspec
import trio

from goatarena.bench.bots import BENCH_GAME, MINIMAL_BOT, RANDOM_BOT, python_command
from goatarena.bench.clocks import deadline_overshoots, spawn_times
from goatarena.bench.decisions import Rounds, measure_rounds, table_size
from goatarena.bench.engines import playouts_per_second
from goatarena.bench.floor import mean_decide_bytes, sample_decide
from goatarena.bench.isolation import worst_beside_hostile
from goatarena.bench.sandbox import sandbox_costs
from goatarena.bench.sizes import FULL, QUICK, BenchReport, GameBench, Say, Sizes
from goatarena.bench.table import describe_machine
from goatarena.bench.throughput import tournament_rates
from goatarena.games import GAMES
from goatarena.referee.clock import TimeControl


def run_bench(sizes: Sizes, *, say: Say | None = None) -> BenchReport:
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
    rounds: Rounds,
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
    rounds: Rounds,
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
