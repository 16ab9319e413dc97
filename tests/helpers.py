"""Shared helpers: commands for real bot processes used by the referee tests."""

from __future__ import annotations

import shlex
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RANDOM_BOT = f"{shlex.quote(sys.executable)} {ROOT / 'bots' / 'python' / 'random_bot.py'}"


def misbehaving(mode: str, after: int = 0) -> str:
    """The command of a test bot that misbehaves in ``mode`` after ``after`` decisions."""
    script = ROOT / "tests" / "bots" / "misbehaving.py"
    return f"{shlex.quote(sys.executable)} {script} {mode} {after}"


def python_bot(code: str) -> str:
    """The command of a bot whose whole program is ``code``."""
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"


def live_group_members(pgid: int) -> list[int]:
    """The processes of group ``pgid`` that are still alive (zombies do not count)."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # Fields after the parenthesised command: state, ppid, pgrp, ...
        state, _ppid, pgrp = stat.rsplit(")", 1)[1].split()[:3]
        if int(pgrp) == pgid and state not in ("Z", "X"):
            members.append(int(entry.name))
    return members


def group_is_gone(pgid: int, *, wait_s: float = 2.0) -> bool:
    """True once no live process of the group ``pgid`` is left (SIGKILL lands quickly)."""
    deadline = time.monotonic() + wait_s
    while live_group_members(pgid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True
