"""Where the games of a run are played: in the driver's loop, in local referee
processes, or on a Dask cluster. Each executor takes jobs and gives back outcomes; the
driver alone stores them.
"""

from __future__ import annotations

import math
import os
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Protocol

import trio

from goatarena.formats.config import TournamentConfig
from goatarena.running.host import JobHost
from goatarena.running.job import GameJob, JobOutcome


class Executor(Protocol):
    """Plays jobs somewhere and returns their outcomes, in the order of the jobs.

    ``capacity`` is how many calls of :meth:`play` the driver should have out at once
    (on a cluster more than can run: the scheduler queues them); ``groups_deals`` asks
    the driver to hand over all rotations of a deal in one call, so that they are played
    on one machine.
    """

    capacity: int
    groups_deals: bool

    async def play(self, jobs: Sequence[GameJob]) -> list[JobOutcome]: ...

    async def slots(self) -> int:
        """How many calls of :meth:`play` run at once now, not queued (a ladder keeps
        no more deals than that in flight: each next table is chosen from the latest
        games)."""
        ...


class InProcess:
    """Plays jobs in the driver's own trio loop (one referee: no parallelism beyond it)."""

    groups_deals = False

    def __init__(self, host: JobHost, capacity: int) -> None:
        self.host = host
        self.capacity = capacity

    async def play(self, jobs: Sequence[GameJob]) -> list[JobOutcome]:
        """Play the jobs here."""
        return await self.host.play(jobs)

    async def slots(self) -> int:
        """The games played at once: the capacity."""
        return self.capacity


def referee_processes(config: TournamentConfig) -> int:
    """Local referee processes for a run: one per CPU that concurrency can keep busy.

    At concurrency 1 (or on one CPU) the driver plays the games itself and starts no
    process; beyond that one trio loop is the bottleneck, so games spread over processes.
    """
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(config.workers, cpus or 1))


def slot_cpus(config: TournamentConfig) -> list[int]:
    """One CPU per game slot, to pin sandboxed bots to, when there are enough CPUs."""
    if config.sandbox == "none" or not hasattr(os, "sched_getaffinity"):
        return []
    cpus = sorted(os.sched_getaffinity(0))
    return cpus[: config.workers] if config.workers <= len(cpus) else []


@asynccontextmanager
async def open_executor(
    config: TournamentConfig, *, cluster: str | None = None, log_dir: Path | None = None
) -> AsyncIterator[Executor]:
    """The executor for a run: the Dask cluster at ``cluster``, else local referees."""
    if cluster:
        from goatarena.running.cluster import open_dask_executor

        # The workers' slots decide how many games run at once; the driver keeps them fed.
        async with open_dask_executor(cluster) as executor:
            yield executor
        return
    processes = referee_processes(config)
    if processes > 1:
        from goatarena.running.procs import open_process_executor

        async with open_process_executor(
            processes,
            capacity=config.workers,
            log_dir=log_dir,
            log_cap=config.limits.stderr_log_bytes,
            log_game_cap=config.limits.stderr_game_bytes,
            cpus=slot_cpus(config) if processes == config.workers else [],
        ) as executor:
            yield executor
        return
    async with trio.open_nursery() as nursery:
        host = JobHost(
            nursery,
            log_dir=log_dir,
            folder_per_tournament=False,
            idle_pool_s=math.inf,
            cpus=slot_cpus(config),
        )
        try:
            yield InProcess(host, config.workers)
        finally:
            host.close()
