"""What isolation this machine gives bots: ``goatarena doctor``."""

from __future__ import annotations

import os
import platform
import subprocess

from goatarena.referee import seccomp
from goatarena.referee.cgroups import detect
from goatarena.referee.latency import referee_priority
from goatarena.referee.sandbox import bot_user, bwrap_options, find_bwrap, probe

UNIFIED_HINT = (
    "as root, `mount -t cgroup2 none /sys/fs/cgroup/unified` gives the v2 freezer,"
    " which pauses and resumes a bot some 30 times cheaper (6 µs against 180 µs measured)"
)
"""What a cgroup v1 machine without the unified hierarchy is told: v1's freezer pauses
and resumes a bot at every decision at 30 times the kernel CPU."""


def _bwrap_version(path: str) -> str:
    try:
        done = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    return done.stdout.strip() or "?"


def _forbids_userns(bwrap: str | None) -> bool:
    return bwrap is not None and "--disable-userns" in bwrap_options(bwrap)


def isolation_report() -> tuple[list[tuple[str, str]], bool]:
    """Lines of (what, what this machine gives), and whether bots can be sandboxed."""
    rows = [("system", f"{platform.system()} {platform.release()}")]
    bwrap = find_bwrap()
    rows.append(("bubblewrap", f"{bwrap} ({_bwrap_version(bwrap)})" if bwrap else "not found"))
    why = probe()
    rows.append(
        (
            "sandbox",
            "yes: pid, network, ipc and uts namespaces, an allow-listed read-only system,"
            " private /tmp, the machine's /proc counters fixed or closed"
            + (", no user namespaces of its own" if _forbids_userns(bwrap) else "")
            if why is None
            else f"NO: {why}; runs refuse unless --sandbox none",
        )
    )
    rows.append(("bots run as", bot_user()))
    program = seccomp.filter_program()
    rows.append(
        (
            "system calls",
            f"seccomp refuses {seccomp.SUMMARY}"
            if program is not None
            else f"no seccomp filter for {platform.machine()}: ptrace, keys and affinity are open",
        )
    )
    support = detect()
    usable = support.controllers
    if support.version is None:
        rows.append(("cgroups", f"none ({support.reason})"))
    else:
        missing = f"; missing: {support.reason}" if support.reason else ""
        rows.append(
            (
                "cgroups",
                f"v{support.version} (checked by statfs), usable:"
                f" {', '.join(usable) or 'none'}{missing}",
            )
        )
    rows.append(
        (
            "memory limit",
            "cgroup: counts shared memory and /tmp"
            if "memory" in usable
            else "RLIMIT_DATA only (weaker: shared memory and /tmp are not counted)",
        )
    )
    rows.append(
        (
            "process limit",
            "pids cgroup"
            if "pids" in usable
            else "none while the bot runs (its pid namespace still ends them all with it)",
        )
    )
    if "freezer" in usable:
        v2 = (support.bases["freezer"] / "cgroup.freeze").exists()
        which = "v2" if support.version == 2 else "v2 (unified hierarchy)" if v2 else "v1"
        pause = (
            f"cgroup {which} freezer (no signal or timer of the bot can wake it;"
            " every pause read back)"
        )
        if which == "v1":
            pause += f"; {UNIFIED_HINT}"
    elif usable:
        pause = "SIGSTOP of every process in the bot's cgroup; a bot that wakes itself forfeits"
    else:
        pause = "SIGSTOP of the bot's process tree, found in /proc (slower, weaker)"
    rows.append(("between turns", pause))
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    how = "cpuset cgroup" if "cpuset" in usable else "sched_setaffinity"
    rows.append(("CPU pinning", f"{how}; {cpus} usable CPUs"))
    rows.append(
        (
            "CPU share",
            "cpu cgroup: one share per bot, however many threads"
            if "cpu" in usable
            else "per thread: a bot's busy threads each take a share of a CPU games share",
        )
    )
    rows.append(("referee's clock", referee_priority()))
    return rows, why is None
