"""What a sandboxed bot sees of the machine's counters in ``/proc``: fixed values, or none.

A counter the whole machine shares is a wire between bots: two allies at one table set
the machine's shared memory (``Shmem``) by what one of them keeps in its own
``/dev/shm`` while it is frozen, and the other reads it in its turn (16 bits of 16, by
``/proc/meminfo``, ``/proc/vmstat``, ``/proc/zoneinfo`` and ``sysinfo(2)`` alike). So
the sandbox covers each such file:

* :data:`STATIC` files get fixed contents made when the bot starts: ``meminfo`` says the
  bot's memory limit (no more than the machine's memory) is its total and all of it is
  available, the rest zero; ``stat`` lists the machine's CPUs with zero counters and its
  boot time; ``loadavg`` says nothing runs; ``uptime`` stays what it was at the start.
  What runtimes read of them (``MemTotal``, ``MemAvailable``, the CPU count) stays
  sensible;
* :data:`CLOSED` files are covered by ``/dev/null`` (which cannot be opened there: a
  device on a mount without devices) and :data:`CLOSED_FOLDERS` are empty folders, as
  on a kernel that lacks them;
* ``sysinfo(2)``, which has no file to cover, is refused by the seccomp filter
  (:mod:`goatarena.referee.seccomp`).

:mod:`goatarena.referee.launcher` writes the fixed contents into pipes
(:func:`open_static_files`) that bubblewrap copies into the sandbox (``--ro-bind-data``);
:mod:`goatarena.referee.sandbox_view` lays :func:`proc_mounts` over the bot's ``/proc``.
"""

from __future__ import annotations

import contextlib
import functools
import os
import time
from collections.abc import Callable, Iterator, Mapping

CLOSED = (
    "vmstat",
    "zoneinfo",
    "buddyinfo",
    "diskstats",
    "interrupts",
    "softirqs",
    "schedstat",
    "swaps",
    "sys/fs/file-nr",
    "sys/fs/inode-nr",
    "sys/fs/inode-state",
    "sys/fs/dentry-state",
    "sys/kernel/pty/nr",
)
"""Machine-wide counts with no fixed value worth keeping: free pages per zone, disk and
interrupt counts, run queues, open files and inodes of the whole machine."""
CLOSED_FOLDERS = ("pressure",)
"""Pressure stall information (how long the machine's tasks waited for CPU, memory, I/O)."""
MASK_BYTES = 4096
MEMINFO_ZERO = [
    "Buffers",
    "Cached",
    "SwapCached",
    "Active",
    "Inactive",
    "Active(anon)",
    "Inactive(anon)",
    "Active(file)",
    "Inactive(file)",
    "Unevictable",
    "Mlocked",
    "SwapTotal",
    "SwapFree",
    "Dirty",
    "Writeback",
    "AnonPages",
    "Mapped",
    "Shmem",
    "KReclaimable",
    "Slab",
    "SReclaimable",
    "SUnreclaim",
    "KernelStack",
    "PageTables",
    "NFS_Unstable",
    "Bounce",
    "WritebackTmp",
    "CommitLimit",
    "Committed_AS",
    "VmallocTotal",
    "VmallocUsed",
    "VmallocChunk",
    "Percpu",
    "HardwareCorrupted",
    "AnonHugePages",
    "ShmemHugePages",
    "ShmemPmdMapped",
    "FileHugePages",
    "FilePmdMapped",
    "HugePages_Total",
    "HugePages_Free",
    "HugePages_Rsvd",
    "HugePages_Surp",
    "Hugepagesize",
    "Hugetlb",
]
"""The lines of the fixed ``/proc/meminfo`` after the three that say the memory: there,
each at zero, for parsers that expect them."""
STAT_COUNTERS = 10
"""Counters on a ``cpu`` line of ``/proc/stat`` (user ... guest_nice)."""


@functools.cache
def machine_memory_kb() -> int:
    """The machine's memory (``MemTotal``), in KiB (0 where it cannot be read); read
    once, as the CPUs and the boot time are."""
    with contextlib.suppress(OSError, ValueError, IndexError), open("/proc/meminfo") as file:
        for line in file:
            if line.startswith("MemTotal:"):
                return int(line.split()[1])
    return 0


@functools.cache
def _boot_time() -> int:
    with contextlib.suppress(OSError, ValueError, IndexError), open("/proc/stat") as file:
        for line in file:
            if line.startswith("btime "):
                return int(line.split()[1])
    return int(time.time() - time.clock_gettime(time.CLOCK_BOOTTIME))


@functools.cache
def _cpu_numbers() -> tuple[int, ...]:
    with contextlib.suppress(OSError), open("/proc/stat") as file:
        found = [line.split()[0][3:] for line in file if line[:3] == "cpu"]
        numbers = tuple(int(word) for word in found if word.isdigit())
        if numbers:
            return numbers
    return tuple(range(os.cpu_count() or 1))


def meminfo(memory_bytes: int | None) -> str:
    """A fixed ``/proc/meminfo``: the bot's memory limit (at most the machine's) as its
    total, all of it free and available; every other line zero."""
    total = machine_memory_kb()
    if memory_bytes is not None:
        total = min(total, memory_bytes >> 10) if total else memory_bytes >> 10
    lines = [f"{name + ':':<16}{total:>8} kB" for name in ("MemTotal", "MemFree", "MemAvailable")]
    lines += [f"{name + ':':<16}{0:>8} kB" for name in MEMINFO_ZERO]
    return "\n".join(lines) + "\n"


def stat() -> str:
    """A fixed ``/proc/stat``: a line per CPU of the machine, every counter zero."""
    zeros = " ".join(["0"] * STAT_COUNTERS)
    lines = [f"cpu  {zeros}"] + [f"cpu{number} {zeros}" for number in _cpu_numbers()]
    lines += ["intr 0", "ctxt 0", f"btime {_boot_time()}", "processes 1"]
    lines += ["procs_running 1", "procs_blocked 0", "softirq 0"]
    return "\n".join(lines) + "\n"


def loadavg() -> str:
    """A fixed ``/proc/loadavg``: nothing waiting, one task (the reader)."""
    return "0.00 0.00 0.00 1/1 1\n"


def uptime() -> str:
    """``/proc/uptime`` as at the bot's start, with no idle time (the machine's idle time
    falls as others compute)."""
    return f"{time.clock_gettime(time.CLOCK_BOOTTIME):.2f} 0.00\n"


STATIC: dict[str, Callable[[int | None], str]] = {
    "meminfo": meminfo,
    "stat": lambda _: stat(),
    "loadavg": lambda _: loadavg(),
    "uptime": lambda _: uptime(),
}
"""The files of ``/proc`` given fixed contents, by the function of the bot's memory limit
that writes them."""


def open_static_files(memory_bytes: int | None) -> dict[str, int]:
    """The fixed files for a bot of this memory limit: for each, a pipe's read end holding
    its contents (for bubblewrap's ``--ro-bind-data``), by its path. The caller closes
    them once the bot has started. A few hundred bytes each, far below a pipe's buffer."""
    opened: dict[str, int] = {}
    try:
        for name, contents in STATIC.items():
            if not os.path.exists(f"/proc/{name}"):
                continue
            read_end, write_end = os.pipe()
            opened[f"/proc/{name}"] = read_end
            try:
                os.write(write_end, contents(memory_bytes).encode())
            finally:
                os.close(write_end)
    except BaseException:
        close_static_files(opened)
        raise
    return opened


def close_static_files(opened: Mapping[str, int]) -> None:
    """Close what :func:`open_static_files` gave (bubblewrap has read its own copies)."""
    for fd in opened.values():
        with contextlib.suppress(OSError):
            os.close(fd)


def proc_mounts(static_files: Mapping[str, int]) -> Iterator[tuple[str, tuple[str, ...]]]:
    """bubblewrap's operations over the bot's ``/proc``: (path, arguments), to be made
    after ``/proc`` is mounted, each read-only."""
    for path, fd in static_files.items():
        yield path, ("--perms", "0444", "--ro-bind-data", str(fd), path)
    for name in CLOSED:
        if os.path.exists(f"/proc/{name}"):
            yield f"/proc/{name}", ("--ro-bind", "/dev/null", f"/proc/{name}")
    for name in CLOSED_FOLDERS:
        path = f"/proc/{name}"
        if os.path.isdir(path):
            yield path, ("--size", str(MASK_BYTES), "--tmpfs", path, "--remount-ro", path)
