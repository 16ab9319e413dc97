"""A referee that plays jobs: one trio loop, one bot pool per tournament.

The driver's own loop, a local referee process and a Dask worker each keep one
:class:`JobHost`. Bot processes are reused between the games of a tournament, never
across tournaments; a pool that has had no game for a while is closed, its bots stopped.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import trio

from goatarena.referee.limits import BotLimits
from goatarena.referee.sandbox import SandboxPolicy
from goatarena.referee.stderr_log import StderrLog
from goatarena.running.job import GameJob, JobOutcome, play_job
from goatarena.running.pool import BotPool

IDLE_POOL_S = 60.0
"""How long a tournament's bots are kept after its last game on this referee."""


class HostClosed(Exception):
    """Raised by :meth:`JobHost.play` once the host is closed: its games are not played."""


class _Tournament:
    """The pool of one tournament on this referee, and its own task group."""

    def __init__(self, pool: BotPool, scope: trio.CancelScope) -> None:
        self.pool = pool
        self.scope = scope
        self.games = 0
        self.last_used = time.monotonic()


class JobHost:
    """Plays :class:`GameJob` s inside the trio loop of ``nursery``.

    ``log_dir`` receives each bot's stderr log, in a folder per tournament when the host
    serves several (a worker); ``None`` keeps no logs. ``log_factory`` instead makes the
    log of a bot (from its name and limits) kept elsewhere: a referee process forwards
    its bots' output to the driver, which keeps one log per bot for all processes.
    """

    def __init__(
        self,
        nursery: trio.Nursery,
        *,
        log_dir: Path | None = None,
        folder_per_tournament: bool = True,
        idle_pool_s: float = IDLE_POOL_S,
        log_factory: Callable[[str, BotLimits], StderrLog] | None = None,
        cpus: Sequence[int] = (),
    ) -> None:
        self._log_factory = log_factory
        self._cpus = list(cpus)
        """Free CPUs, one per game slot, to pin a game's bots to (none: not pinned)."""
        self._nursery = nursery
        self._log_dir = log_dir
        self._folder_per_tournament = folder_per_tournament
        self._idle_pool_s = idle_pool_s
        self._tournaments: dict[str, _Tournament] = {}
        self._sweeper: trio.CancelScope | None = None
        self._closed = False

    async def play(self, jobs: Sequence[GameJob]) -> list[JobOutcome]:
        """Play ``jobs`` one after another (the rotations of one deal, say) on this host.

        Raises :class:`HostClosed` if the host is closed before they are all played: a
        game whose bots were stopped under it has no meaningful record.
        """
        outcomes = []
        for job in jobs:
            if self._closed:
                raise HostClosed()
            tournament = await self._tournament(job)
            tournament.games += 1
            start_failures: dict[str, str] = {}
            cpu = self._cpus.pop() if self._cpus else None
            try:
                result = await play_job(
                    job, tournament.pool, start_failures=start_failures, cpu=cpu
                )
            finally:
                if cpu is not None:
                    self._cpus.append(cpu)
                tournament.games -= 1
                tournament.last_used = time.monotonic()
            if self._closed:
                raise HostClosed()
            outcomes.append(
                JobOutcome(
                    key=job.key,
                    result=result,
                    disqualified=dict(tournament.pool.disqualified),
                    start_failures=start_failures,
                )
            )
        return outcomes

    def processes_started(self) -> tuple[int, int]:
        """Bot processes started so far, and of them those started only because every idle
        process of the bot had played the deal already."""
        pools = [tournament.pool for tournament in self._tournaments.values()]
        return sum(p.started for p in pools), sum(p.started_for_deals for p in pools)

    def close(self) -> None:
        """Stop every bot of every tournament; games still being played are abandoned."""
        self._closed = True
        for tournament in self._tournaments.values():
            tournament.pool.close()
            tournament.scope.cancel()
        self._tournaments.clear()
        if self._sweeper is not None:
            self._sweeper.cancel()

    async def _tournament(self, job: GameJob) -> _Tournament:
        tournament = self._tournaments.get(job.tournament)
        if tournament is None:
            tournament = await self._nursery.start(self._keep_pool, job)
            self._tournaments[job.tournament] = tournament
            if self._sweeper is None and math.isfinite(self._idle_pool_s):
                self._sweeper = trio.CancelScope()
                self._nursery.start_soon(self._sweep, self._sweeper)
        tournament.pool.add_bots({seat.name: seat.command for seat in job.seats}, self._hiding(job))
        return tournament

    def _hiding(self, job: GameJob) -> dict[str, SandboxPolicy]:
        """The job's sandboxes, hiding this host's log folder too: a worker's holds every
        tournament's bot logs, which its driver does not know of."""
        if self._log_dir is None:
            return dict(job.sandboxes)
        folder = os.path.abspath(self._log_dir)
        return {
            name: replace(policy, hidden=(*policy.hidden, folder))
            for name, policy in job.sandboxes.items()
        }

    async def _keep_pool(self, job: GameJob, *, task_status: trio.TaskStatus[_Tournament]) -> None:
        """Own the processes of one tournament's pool until the pool is closed."""
        log_dir = self._log_dir
        if log_dir is not None and self._folder_per_tournament:
            log_dir = log_dir / job.tournament
            log_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        async with trio.open_nursery() as nursery:
            pool = BotPool(
                nursery,
                {},
                startup_s=job.time.startup_ms / 1000,
                limits=job.limits,
                log_dir=log_dir,
                disqualified=job.disqualified,
                log_factory=self._pool_log_factory(job),
            )
            task_status.started(_Tournament(pool, nursery.cancel_scope))
            await trio.sleep_forever()

    def _pool_log_factory(self, job: GameJob) -> Callable[[str], StderrLog] | None:
        make = self._log_factory
        if make is None:
            return None
        limits = job.limits
        return lambda name: make(name, limits)

    async def _sweep(self, scope: trio.CancelScope) -> None:
        """Close the pools of tournaments that have not played here for a while."""
        with scope:
            while True:
                await trio.sleep(self._idle_pool_s / 4)
                now = time.monotonic()
                for name, tournament in list(self._tournaments.items()):
                    if tournament.games == 0 and now - tournament.last_used > self._idle_pool_s:
                        del self._tournaments[name]
                        tournament.pool.close()
                        tournament.scope.cancel()
