"""What the referee benchmark measures, how much of it (its sizes), and what it reports."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import msgspec

from goatarena.bench.sandbox import SandboxBench

Say = Callable[[str], None]


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
    # 720 games: long enough that the second referee's bots starting (at most one start
    # per two CPUs at a time) is not a good part of concurrency 2's run.
    tournament_deals=60,
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
