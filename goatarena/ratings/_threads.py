"""Threads for fits: one BLAS thread per fit, and independent fits side by side.

A fit spends its time in NumPy and LAPACK calls that release the GIL, so the tables of
one standings (overall and per game) or the points of a rating history fit in threads
nearly as fast as in processes, sharing the tally instead of copying it.
"""

from __future__ import annotations

import functools
import os
import threading
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, TypeVar

from threadpoolctl import ThreadpoolController

Item = TypeVar("Item")
Value = TypeVar("Value")


@functools.cache
def _blas() -> ThreadpoolController:
    """The BLAS libraries loaded, found once (finding them reads the process's maps)."""
    return ThreadpoolController()


_lock = threading.Lock()
_holders = 0
_limit: Any = None


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """One BLAS thread while any fit runs: the systems of up to a few thousand bots are
    solved faster alone than by threads that wait for each other, and on a machine whose
    cores are busy playing games (the usual case) threads that spin for a core cost ten
    times the CPU (even a 64-bot inverse took 0.2 s so). Fits in several threads share
    one limit, set by the first and lifted by the last (threadpoolctl's own limit
    restores what it found, which another thread's limit may have set)."""
    global _holders, _limit
    with _lock:
        if not _holders:
            _limit = _blas().limit(limits=1, user_api="blas")
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if not _holders:
                _limit.restore_original_limits()
                _limit = None


def usable_cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def map_in_threads(
    function: Callable[[Item], Value], items: Sequence[Item], workers: int | None = None
) -> list[Value]:
    """``[function(item) for item in items]``, on up to ``workers`` threads (the usable
    CPUs when None), the items started in order (put the largest first); an exception
    of any call is raised here once every call has ended."""
    count = min(len(items), workers or usable_cpus())
    if count <= 1:
        return [function(item) for item in items]
    with one_blas_thread(), ThreadPoolExecutor(count, thread_name_prefix="fit") as pool:
        futures = [pool.submit(function, item) for item in items]
    return [future.result() for future in futures]


class Background:
    """Calls run in threads while the caller goes on (a rating history's fits while its
    games stream by): at most ``workers`` at once (the usable CPUs when None) and as many
    more waiting; :meth:`submit` first waits for the oldest beyond that, so that what the
    calls hold (a tally's snapshot each) stays bounded. Use it in a ``with`` block: its
    end waits for every call (when an error ends it, for those already running only)."""

    def __init__(self, workers: int | None = None) -> None:
        self._workers = workers or usable_cpus()
        self._pool = ThreadPoolExecutor(self._workers, thread_name_prefix="fit")
        self._started: deque[Future[Any]] = deque()
        self._blas = one_blas_thread()

    def submit(self, function: Callable[..., Value], *args: Any) -> Future[Value]:
        """Start ``function(*args)`` (after waiting, if too many calls are started)."""
        while self._started and (
            self._started[0].done() or len(self._started) >= 2 * self._workers
        ):
            self._started.popleft().exception()  # waits; its caller reads the outcome
        future = self._pool.submit(function, *args)
        self._started.append(future)
        return future

    def __enter__(self) -> Background:
        self._blas.__enter__()
        return self

    def __exit__(self, error: type[BaseException] | None, *_: object) -> None:
        self._pool.shutdown(wait=True, cancel_futures=error is not None)
        self._blas.__exit__(None, None, None)
