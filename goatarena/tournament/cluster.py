"""Tournaments on a Dask cluster: the driver's executor and the workers' referee.

The driver submits each deal (all its seat rotations) as one Dask task whose only
argument is the msgspec-encoded jobs; the task runs on a worker, which plays them in its
referee — one trio loop in a thread of the worker process, with a bot pool per
tournament — and returns the encoded outcomes. Nothing of goatarena is pickled but the
task function itself, by reference.

This module is also the worker's preload (``dask worker --preload
goatarena.tournament.cluster``; ``goatarena worker`` passes it): its ``dask_teardown``
stops the referee, and with it every bot, when the worker closes.
"""

from __future__ import annotations

import logging
import os
import threading
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager, suppress
from functools import partial
from pathlib import Path
from typing import Any

import msgspec
import trio

from goatarena.errors import ClusterError
from goatarena.tournament.host import HostClosed, JobHost
from goatarena.tournament.job import (
    GameJob,
    JobOutcome,
    check_runtimes,
    decode_jobs,
    decode_outcomes,
    encode_jobs,
    encode_outcomes,
)

CONNECT_TIMEOUT_S = 10
"""How long the driver tries to reach the scheduler before it gives up."""
WORKER_WAIT_S = 30
"""How long the driver waits for a first worker to join before it gives up."""
CLUSTER_CAPACITY = 10_000
"""Deals submitted at once: the scheduler queues them for the workers' slots."""
LOG_DIR_VARIABLE = "GOATARENA_WORKER_LOGS"
"""Where a worker keeps bots' stderr logs (a folder per tournament); unset keeps none."""
RESOURCES_VARIABLE = "GOATARENA_CLUSTER_RESOURCES"
"""Dask resources every game needs, as ``NAME=AMOUNT[,NAME=AMOUNT]`` (e.g. ``fast=1``)."""


# -- the worker's side -----------------------------------------------------------------------


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
    """Preload hook: the worker is closing, so stop the referee and every bot it holds."""
    global _referee
    with _referee_lock:
        if _referee is not None:
            _referee.stop()
            _referee = None


# -- the driver's side -----------------------------------------------------------------------


def parse_resources(text: str) -> dict[str, float]:
    """``fast=1,gpu=2`` as a dict; :class:`ClusterError` naming a malformed item."""
    resources = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, _, amount = item.partition("=")
        try:
            resources[name.strip()] = float(amount)
        except ValueError:
            raise ClusterError(f"resources: {item!r} is not NAME=AMOUNT") from None
        if not name.strip():
            raise ClusterError(f"resources: {item!r} has no name")
    return resources


class DaskExecutor:
    """Plays each deal as one Dask task; results come back through a done-callback."""

    groups_deals = True

    def __init__(self, client: Any, capacity: int, resources: dict[str, float]) -> None:
        self._client = client
        self._token = trio.lowlevel.current_trio_token()
        self._resources = resources or None
        self.capacity = capacity

    async def play(self, jobs: Sequence[GameJob]) -> list[JobOutcome]:
        """Submit the jobs as one task and wait for it without holding a thread."""
        from distributed import KilledWorker

        future = self._client.submit(
            play_on_worker,
            encode_jobs(jobs),
            key=f"goatarena-{uuid.uuid4().hex}",
            pure=False,
            resources=self._resources,
        )
        done = trio.Event()

        def finished(_future: Any) -> None:
            # Runs in a thread of the client, also when the client closes.
            with suppress(trio.RunFinishedError):  # the run is over: nobody waits
                self._token.run_sync_soon(done.set)

        future.add_done_callback(finished)
        await done.wait()
        if future.status == "cancelled":
            raise ClusterError(f"the Dask scheduler dropped the deal {jobs[0].deal}")
        # Fetching a result may wait on the network: in a thread given up on cancellation.
        error = await trio.to_thread.run_sync(future.exception, abandon_on_cancel=True)
        if isinstance(error, KilledWorker):
            reason = f"it ended the worker process every time it was tried ({error})"
            return [JobOutcome(key=job.key, failed=reason) for job in jobs]
        if error is not None:
            raise ClusterError(f"a worker failed to play {jobs[0].deal}: {error!r}")
        payload = await trio.to_thread.run_sync(future.result, abandon_on_cancel=True)
        return decode_outcomes(payload)


def check_scheduler_address(address: str) -> None:
    """Refuse, in one line, what cannot be a scheduler's address (Dask would raise)."""
    from distributed.comm import get_address_host_port

    try:
        get_address_host_port(address)
    except ValueError as error:
        raise ClusterError(
            f"{address!r} is not a scheduler address like tcp://HOST:8786 ({error})"
        ) from None


@asynccontextmanager
async def open_dask_executor(
    address: str, *, capacity: int = CLUSTER_CAPACITY
) -> AsyncIterator[DaskExecutor]:
    """Connect to the scheduler at ``address``; one clear error if it cannot be reached."""
    try:
        from distributed import Client
    except ImportError:
        raise ClusterError(
            "playing on a cluster needs Dask: pip install 'goatarena[cluster]'"
        ) from None
    check_scheduler_address(address)
    resources = parse_resources(os.environ.get(RESOURCES_VARIABLE, ""))
    # Dask logs what it recovers from (a lost worker, a result fetched again) as warnings;
    # the driver reports what matters itself, in one line.
    logging.getLogger("distributed").setLevel(logging.ERROR)
    connect = partial(Client, address, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
    try:
        client = await trio.to_thread.run_sync(connect)
    except (OSError, TimeoutError, ValueError) as error:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {error}") from None
    try:
        try:
            await trio.to_thread.run_sync(
                partial(client.wait_for_workers, 1, timeout=WORKER_WAIT_S)
            )
        except TimeoutError:
            raise ClusterError(
                f"no worker has joined the scheduler at {address} within {WORKER_WAIT_S} s;"
                f" start some with: goatarena worker {address}"
            ) from None
        yield DaskExecutor(client, capacity, resources)
    finally:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(client.close)
