"""Running work beside games with what the games leave: idle CPU and disk priority.

A build shares the machine with the games, whose referees keep each bot's clock to the
millisecond. ``nice`` is not enough for that: a nice-19 task still takes a share of a
busy CPU (it weighs 15 to an ordinary task's 1024), a waking referee may still wait for
its slice to end, and nice counts for nothing across sessions or cgroups, which the
scheduler weighs as wholes (a sandboxed process has a cgroup of its own). So work that
must never cost a bot time runs at the machine's lowest priority where the kernel has one:

* the CPU scheduling policy ``SCHED_IDLE`` (:func:`run_idle`, inherited by every
  process it starts): it runs only on a CPU nothing else wants, and any other task
  that wakes takes the CPU from it at once;
* the ``idle`` I/O class (``ioprio_set``): its reads and writes wait while others'
  are queued (where the I/O scheduler knows priorities);
* the ``cpu`` cgroup in which this process makes its sandboxes' cgroups marked
  ``cpu.idle`` (:func:`idle_cgroups`): the scheduler compares a cgroup with other tasks
  as a whole, so a ``SCHED_IDLE`` task in a cgroup of ordinary weight would still take
  that cgroup's share; marked idle, the whole cgroup yields as an idle task does.
  A kernel without ``cpu.idle`` (before 5.15) gives it the least weight instead.

What the machine refuses falls back (``nice`` 19 for the policy), and is said in words.
Work at idle priority waits while every CPU is busy: what limits its time must not count
that wait (see :mod:`goatarena.competition.build_child`).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import platform

from goatarena.referee.cgroups import detect

IOPRIO_SET = {"x86_64": 251, "aarch64": 30, "i686": 289, "armv7l": 314}
"""The ``ioprio_set`` system call's number by machine (no libc wraps it)."""
IOPRIO_WHO_PROCESS = 1
IOPRIO_CLASS_IDLE = 3
IOPRIO_CLASS_SHIFT = 13
LEAST_WEIGHT = {"cpu.shares": "2", "cpu.weight": "1"}
"""A cgroup's least CPU weight, for kernels without ``cpu.idle`` (v1, then v2 file)."""
_LIBC = ctypes.CDLL(None, use_errno=True)
"""Loaded once, in the parent: a child between ``fork`` and ``exec`` must not load it."""


def run_idle() -> list[str]:
    """Make the calling process (and all it starts from now on) the machine's lowest
    priority for CPU and disk; what could not be done, in words. Safe between ``fork``
    and ``exec``: it only makes system calls."""
    return [said for said in (_idle_policy(), _idle_io()) if said]


def _idle_policy() -> str:
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        return ""
    except (AttributeError, OSError) as error:
        with contextlib.suppress(OSError):
            os.nice(19 - os.nice(0))
        return f"no SCHED_IDLE ({error}): nice 19 instead"


def _idle_io() -> str:
    number = IOPRIO_SET.get(platform.machine())
    if number is None:
        return f"no idle I/O class: ioprio_set is not known on {platform.machine()}"
    priority = IOPRIO_CLASS_IDLE << IOPRIO_CLASS_SHIFT
    if _LIBC.syscall(number, IOPRIO_WHO_PROCESS, 0, priority) != 0:
        return f"no idle I/O class: {os.strerror(ctypes.get_errno())}"
    return ""


def idle_cgroups() -> str:
    """Mark the ``cpu`` cgroup in which this process makes its sandboxes' cgroups idle
    (else give it the least weight): every process sandboxed from now on, and every one
    it starts, yields the CPU as one idle task would. For a process that sandboxes
    background work only (a build), never a referee's bots. What could not be done."""
    base = detect().bases.get("cpu")
    if base is None:
        return "no cpu cgroup: only the processes' own policy is idle"
    try:
        (base / "cpu.idle").write_text("1")
        return ""
    except OSError:
        pass
    for name, least in LEAST_WEIGHT.items():
        with contextlib.suppress(OSError):
            (base / name).write_text(least)
            return f"no cpu.idle: the cgroup's {name} is {least} instead"
    return "the cpu cgroup's weight could not be lowered"
