"""Tournaments on a Dask cluster: the driver's side.

The driver submits each deal (all its seat rotations) as one Dask task whose only
argument is the msgspec-encoded jobs; the task (:func:`~goatarena.running.worker.
play_on_worker`) runs on a worker, which plays them in its referee and returns the
encoded outcomes. Nothing of goatarena is pickled but the task function itself, by
reference.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import socket
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager, suppress
from functools import partial
from typing import Any

import trio

from goatarena.errors import ClusterError
from goatarena.running.job import GameJob, JobOutcome, decode_outcomes, encode_jobs
from goatarena.running.worker import play_on_worker

CONNECT_TIMEOUT_S = 10
"""How long the driver tries to reach the scheduler before it gives up."""
WORKER_WAIT_S = 30
"""How long the driver waits for a first worker to join before it gives up."""
CLUSTER_CAPACITY = 10_000
"""Deals submitted at once: the scheduler queues them for the workers' slots."""
RESOURCES_VARIABLE = "GOATARENA_CLUSTER_RESOURCES"
"""Dask resources every game needs, as ``NAME=AMOUNT[,NAME=AMOUNT]`` (e.g. ``fast=1``)."""


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
        self._slots = 1

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

    async def slots(self) -> int:
        """The workers' slots now (their threads: a deal is one task), at least 1; the
        last count if the scheduler does not answer."""
        try:
            threads = await trio.to_thread.run_sync(self._client.nthreads, abandon_on_cancel=True)
        except (OSError, TimeoutError):
            return self._slots
        self._slots = max(1, sum(threads.values()))
        return self._slots


def check_scheduler_address(address: str) -> None:
    """Refuse, in one line, what cannot be a scheduler's address (Dask would raise)."""
    from distributed.comm import get_address_host_port

    try:
        get_address_host_port(address)
    except ValueError as error:
        raise ClusterError(
            f"{address!r} is not a scheduler address like tcp://HOST:8786 ({error})"
        ) from None


def check_cluster_settings(address: str) -> None:
    """Refuse a malformed scheduler address or ``GOATARENA_CLUSTER_RESOURCES`` before a
    run makes its database, so that a typo leaves nothing behind."""
    if importlib.util.find_spec("distributed") is None:
        raise ClusterError("playing on a cluster needs Dask: pip install 'goatarena[cluster]'")
    check_scheduler_address(address)
    parse_resources(os.environ.get(RESOURCES_VARIABLE, ""))


SCHEDULER_WAIT_S = 30.0
"""How long a worker tries to reach its scheduler before it gives up (Dask's own wait)."""


def wait_for_scheduler(address: str, *, wait_s: float | None = None) -> None:
    """Return once the scheduler at a TCP ``address`` accepts connections; a
    :class:`ClusterError` in one line if it does not within ``wait_s`` (default
    :data:`SCHEDULER_WAIT_S`), where Dask's worker would end in three tracebacks.

    Other transports (TLS, UCX, ...) are left to Dask."""
    from distributed.comm import get_address_host_port, parse_address

    check_scheduler_address(address)
    if parse_address(address)[0] != "tcp":
        return
    host, port = get_address_host_port(address)
    deadline = time.monotonic() + (SCHEDULER_WAIT_S if wait_s is None else wait_s)
    while True:
        try:
            socket.create_connection((host, port), timeout=2.0).close()
            return
        except OSError as error:
            # Started with its scheduler, a worker may come up first: try again a while
            # (but a name that does not resolve is no scheduler about to start).
            if isinstance(error, socket.gaierror) or time.monotonic() >= deadline:
                cause = error.strerror or str(error) or type(error).__name__
                raise ClusterError(
                    f"cannot reach the Dask scheduler at {address}: {cause}; is it running?"
                ) from None
        time.sleep(0.5)


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
