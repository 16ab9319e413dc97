"""The referee benchmark's table and JSON: values, targets and footnotes."""

from __future__ import annotations

import math
import os
import platform

import msgspec
import trio
from tabulate import tabulate

from goatarena.bench.bots import BENCH_GAME
from goatarena.bench.sandbox import sandbox_rows
from goatarena.bench.sizes import BenchReport


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


SCALING_TARGET = 1.8
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
