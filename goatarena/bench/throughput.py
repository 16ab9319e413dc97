"""Tournament throughput: games per second through the runner and its store (concurrency 1, 2)."""

from __future__ import annotations

import io
import tempfile
import time
from pathlib import Path

import trio

from goatarena.bench.bots import BENCH_GAME, BENCH_TIME, RANDOM_BOT, python_command
from goatarena.bench.sizes import Sizes
from goatarena.errors import GoatArenaError
from goatarena.formats.config import GameEntry, TournamentConfig
from goatarena.referee.sandbox import probe
from goatarena.running.progress import Progress
from goatarena.running.runner import Runner
from goatarena.store.opening import open_store


class FinishTimes(Progress):
    """A silent progress that keeps the time every game finished."""

    def __init__(self, total: int) -> None:
        super().__init__(total, stream=io.StringIO())
        self.enabled = False
        self.times: list[float] = []

    def advance(self, games: int = 1, *, result: object = None, key: str | None = None) -> None:
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
            finished = FinishTimes(runner.expected_games())
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
