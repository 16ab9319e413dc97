"""The Dask worker's side of a cluster: a referee in the worker process that plays jobs.

Each worker process keeps one referee — a trio loop in a thread of its own, with one bot
pool per tournament — and Dask tasks hand it encoded jobs through :func:`play_on_worker`.
This module is also the worker's preload (``dask worker --preload
goatarena.running.worker``; ``goatarena worker`` passes it): ``dask_setup`` turns off
Dask's profiler and ``dask_teardown`` stops the referee, and with it every bot, when the
worker closes.
"""

from __future__ import annotations

import atexit
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec
import trio

from goatarena.errors import ClusterError
from goatarena.referee.latency import clocks_first
from goatarena.referee.readable_copy import remove_copies, sweep_copies
from goatarena.running.dask_worker import exit_at_once
from goatarena.running.host import HostClosed, JobHost
from goatarena.running.job import (
    GameJob,
    JobOutcome,
    check_runtimes,
    decode_jobs,
    encode_outcomes,
)

LOG_DIR_VARIABLE = "GOATARENA_WORKER_LOGS"
"""Where a worker keeps bots' stderr logs (a folder per tournament); unset keeps none."""


class _Referee:
    """The worker's referee: a trio loop in a thread of its own, playing jobs for tasks."""

    def __init__(self, log_dir: Path | None) -> None:
        self._log_dir = log_dir
        self._ready = threading.Event()
        self._token: trio.lowlevel.TrioToken | None = None
        self._host: JobHost | None = None
        self._stop: trio.Event | None = None
        self._thread = threading.Thread(
            target=trio.run, args=(self._serve,), name="goatarena-referee", daemon=True
        )
        self._thread.start()
        self._ready.wait()

    async def _serve(self) -> None:
        with clocks_first():  # this thread keeps its bots' clocks
            await self._host_jobs()

    async def _host_jobs(self) -> None:
        async with trio.open_nursery() as nursery:
            self._host = JobHost(nursery, log_dir=self._log_dir)
            self._token = trio.lowlevel.current_trio_token()
            self._stop = trio.Event()
            self._ready.set()
            await self._stop.wait()
            self._host.close()
            nursery.cancel_scope.cancel()

    def play(self, jobs: Sequence[GameJob]) -> list[JobOutcome]:
        """Play ``jobs`` in the referee's loop; blocks the calling (task) thread.

        A game whose bots were stopped under it because the worker is closing would come
        back with every seat crashed: Dask is asked to play the deal elsewhere instead.
        """
        from distributed import Reschedule

        assert self._host is not None
        try:
            outcomes = trio.from_thread.run(self._host.play, jobs, trio_token=self._token)
        except (HostClosed, trio.RunFinishedError, trio.Cancelled):  # the worker is closing
            raise Reschedule() from None
        return outcomes

    def stop(self) -> None:
        """Stop every bot and the loop."""
        assert self._stop is not None
        try:
            trio.from_thread.run_sync(self._stop.set, trio_token=self._token)
        except trio.RunFinishedError:
            return
        self._thread.join()


_referee: _Referee | None = None
_referee_lock = threading.Lock()


def _worker_referee() -> _Referee:
    global _referee
    with _referee_lock:
        if _referee is None:
            sweep_copies()  # those of a worker that was killed before it could remove them
            log_dir = os.environ.get(LOG_DIR_VARIABLE)
            _referee = _Referee(Path(log_dir) if log_dir else None)
        return _referee


class _Keys(msgspec.Struct):
    key: str = ""


def play_on_worker(payload: bytes) -> bytes:
    """The Dask task: play encoded jobs on this worker, return the encoded outcomes.

    A job this worker must not play — made by another goatarena version, or naming a
    program this machine lacks — comes back refused with the reason, for the driver to
    show; it is never played with other rules or forfeited for want of a runtime.
    """
    try:
        jobs = decode_jobs(payload)
        for job in jobs:
            check_runtimes(job)
    except ClusterError as error:
        keys = msgspec.json.decode(payload, type=list[_Keys])
        return encode_outcomes([JobOutcome(key=one.key, refused=str(error)) for one in keys])
    return encode_outcomes(_worker_referee().play(jobs))


PROFILER_CALLBACKS = ("profile", "profile-cycle")
"""The worker's statistical profiler: it takes the GIL every 10 ms to sample the
threads, and a referee that waits for that GIL after every pipe round trip plays games
three times slower (measured: 450 against 135 ms for a deal of two games)."""


def dask_setup(worker: Any) -> None:
    """Preload hook: stop the worker's profiler, which slows the referee's thread down."""
    # The worker starts its periodic callbacks after its preloads: dropped now, they never
    # start.
    for name in PROFILER_CALLBACKS:
        callback = getattr(worker, "periodic_callbacks", {}).pop(name, None)
        if callback is not None:
            callback.stop()


def dask_teardown(worker: Any) -> None:
    """Preload hook: the worker is closing, so stop the referee and every bot it holds;
    and once the worker has closed, let its process end at once."""
    global _referee
    with _referee_lock:
        if _referee is not None:
            _referee.stop()
            _referee = None
    remove_copies()  # the bots are gone: the copies of their folders this worker made
    # The worker process (which the nanny joins before it goes itself) has nothing left
    # to do once it has closed: its interpreter's teardown of Dask's modules would take
    # a good part of a second of CPU. Status 0 is what a worker that closed exits with.
    atexit.register(exit_at_once, 0)
