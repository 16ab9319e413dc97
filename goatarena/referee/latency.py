"""A referee's thread asks the scheduler to be woken promptly: a short time slice.

A referee sleeps until a bot answers or its deadline passes, then works for a fraction of
a millisecond. How late a cut-off comes is how long the woken thread waits for a CPU.
Linux's scheduler (EEVDF, from 6.6; the request is heeded from 6.12) lets an ordinary
thread ask for a shorter slice (``sched_attr.sched_runtime``, between 0.1 and 100 ms):
its deadlines come sooner, so on waking it takes a busy CPU from a thread with a longer
slice at once, instead of waiting for that slice to end. It gains no greater share of
the CPU, needs no privilege, and is not inherited (``SCHED_FLAG_RESET_ON_FORK``): the
bots a referee starts get the ordinary slice.

A thread whose whole work is refereeing (a run's referee process, a Dask worker's
referee, ``play``) goes further where it may (root, or a ``RLIMIT_RTPRIO`` of 1 or more):
while :func:`clocks_first` lasts it is a real-time thread at the lowest real-time
priority (``SCHED_FIFO`` 1), which takes a CPU from any ordinary task the moment it
wakes, whatever runs beside it: builds, a site, other sessions' work. Its bots, and the
threads it starts, are ordinary (not inherited). A referee's work is small and bounded by
what its bots send, and the kernel keeps a share of every second for ordinary tasks
(``sched_rt_runtime_us``), so a referee never holds a CPU from its bots for long.

A kernel or machine that refuses (an older kernel, a seccomp filter, no privilege)
leaves the thread as it was: each request is a hint, never a condition.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import platform
import struct
import threading
from collections.abc import Iterator

SCHED_SETATTR = {"x86_64": 314, "aarch64": 274, "i686": 351, "armv7l": 380}
"""The ``sched_setattr`` system call's number by machine (no libc wraps it)."""
SLICE_NS = 100_000
"""The slice asked for: the least the kernel grants (0.1 ms)."""
SCHED_FLAG_RESET_ON_FORK = 0x01
SCHED_RESET_ON_FORK = 0x40000000
"""The same flag, as ``sched_setscheduler`` takes it (or'ed into the policy)."""
REAL_TIME_PRIORITY = 1
"""The lowest real-time priority: above every ordinary task, below the kernel's own."""
_ATTR = struct.Struct("IIQiIQQQ")
"""``struct sched_attr`` as of Linux 3.14 (size, policy, flags, nice, priority, runtime,
deadline, period): the fields an ordinary thread's request uses."""
_LIBC = ctypes.CDLL(None, use_errno=True)
_thread = threading.local()


def ask_prompt_wakeups() -> str:
    """Ask for a short slice for the calling thread, once per thread; what could not be
    done, in words ("" when granted)."""
    said: str | None = getattr(_thread, "said", None)
    if said is None:
        said = _thread.said = _ask_short_slice()
    return said


def _ask_short_slice() -> str:
    number = SCHED_SETATTR.get(platform.machine())
    if number is None:
        return f"no short slice: sched_setattr is not known on {platform.machine()}"
    try:
        nice = os.getpriority(os.PRIO_PROCESS, 0)
        policy = _policy()
    except OSError as error:
        return f"no short slice: {error}"
    if policy != os.SCHED_OTHER:  # an idle or real-time thread keeps what it was given
        return "no short slice: the thread is not of the ordinary policy"
    attr = ctypes.create_string_buffer(
        _ATTR.pack(_ATTR.size, policy, SCHED_FLAG_RESET_ON_FORK, nice, 0, SLICE_NS, 0, 0)
    )
    if _LIBC.syscall(number, 0, attr, 0) != 0:
        return f"no short slice: {os.strerror(ctypes.get_errno())}"
    return ""


def _policy() -> int:
    """The calling thread's scheduling policy, without the reset-on-fork flag."""
    return os.sched_getscheduler(0) & ~SCHED_RESET_ON_FORK


@contextlib.contextmanager
def clocks_first() -> Iterator[str]:
    """While the block runs, the calling thread is a real-time thread (the lowest
    priority, not inherited) where the machine allows it, else it asks for the short
    slice; the block gets what could not be done, in words. The thread is ordinary again
    after, with the short slice."""
    try:
        before = _policy()
        nice = os.getpriority(os.PRIO_PROCESS, 0)
    except OSError as error:
        yield f"no real-time priority: {error}"
        return
    if before != os.SCHED_OTHER:
        yield "no real-time priority: the thread is not of the ordinary policy"
        return
    try:
        os.sched_setscheduler(
            0, os.SCHED_FIFO | SCHED_RESET_ON_FORK, os.sched_param(REAL_TIME_PRIORITY)
        )
    except OSError as error:
        instead = ask_prompt_wakeups() or "a short slice instead"
        yield f"no real-time priority ({os.strerror(error.errno or 0)}): {instead}"
        return
    try:
        yield ""
    finally:
        with contextlib.suppress(OSError):
            os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
            os.setpriority(os.PRIO_PROCESS, 0, nice)
        _thread.said = _ask_short_slice()


def referee_priority() -> str:
    """What a referee thread gets on this machine, in words (``goatarena doctor``): tried
    in a thread of its own, which is gone after."""
    said: list[str] = []

    def probe() -> None:
        with clocks_first() as refused:
            said.append(refused)

    thread = threading.Thread(target=probe)
    thread.start()
    thread.join()
    if not said[0]:
        return (
            f"real-time (SCHED_FIFO {REAL_TIME_PRIORITY}) while a referee keeps clocks;"
            " its bots are ordinary"
        )
    return f"{said[0]}; `ulimit -r 1` (or root) gives referees real-time priority"
