"""The watchdog that thaws a runner's v1-frozen bots once the runner has gone.

A task the v1 freezer has frozen cannot die, not even of SIGKILL: a runner that died
with its bots frozen would leave them for ever. So each runner that freezes by v1 starts
a watchdog process, outside every bot's cgroup, that waits on a pipe only the runner
holds and, once it ends (however the runner ended), thaws and kills the runner's bots.
:mod:`goatarena.referee.cgroups` starts it; v2 needs none (a frozen v2 task dies of
SIGKILL).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path


def _write(path: Path, value: str) -> None:
    with open(path, "w") as file:
        file.write(value)


_WATCHDOG = """
import glob, os, sys
sys.stdin.buffer.read()
for folder in glob.glob(os.path.join(sys.argv[1], "bot-*")):
    try:
        with open(os.path.join(folder, "freezer.state"), "w") as state:
            state.write("THAWED")
        with open(os.path.join(folder, "cgroup.procs")) as procs:
            for pid in procs.read().split():
                os.kill(int(pid), 9)
    except OSError:
        pass
"""
"""The watchdog's program: self-contained (:func:`thaw_and_kill`, without imports), so
that nothing it would import can keep it from thawing."""
_watchdogs: list[subprocess.Popen[bytes]] = []


def start_watchdog(base: Path) -> bool:
    """Start the process that thaws and kills the bots of ``base`` once this runner has
    gone: it waits for the end of a pipe only this process holds, which comes however it
    ends, even of SIGKILL. False if it cannot be started."""
    try:
        watchdog = subprocess.Popen(
            [sys.executable, "-c", _WATCHDOG, str(base)],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # Ctrl-C on the runner's terminal must not stop it first
        )
    except OSError:
        return False
    _watchdogs.append(watchdog)  # its pipe stays open for as long as this process lives
    return True


def thaw_and_kill(base: Path) -> None:
    """Thaw every v1-frozen bot cgroup in ``base`` and kill what is in it: the bots of a
    runner that has gone (a frozen task cannot die until it is thawed)."""
    for folder in base.glob("bot-*"):
        with contextlib.suppress(OSError):
            _write(folder / "freezer.state", "THAWED")
        with contextlib.suppress(OSError, ValueError):
            for pid in (folder / "cgroup.procs").read_text().split():
                with contextlib.suppress(OSError):
                    os.kill(int(pid), signal.SIGKILL)
