"""Which processes of a sandboxed bot hold a pipe open, read from ``/proc``.

bubblewrap's monitor, and its init in the bot's pid namespace, keep their own copies of
the bot's stdout for as long as the sandbox lives, so a closed stdout never shows an end
of file: :class:`~goatarena.referee.bot.BotProcess` asks here instead whether a process
of the bot's own still has the pipe open.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from contextlib import suppress


def pipe_name(fd: int) -> str:
    """How ``/proc/PID/fd`` names the pipe open on ``fd``."""
    return f"pipe:[{os.fstat(fd).st_ino}]"


def holds_pipe(members: Iterable[int], leader: int, pipe: str) -> bool:
    """Whether one of ``members`` (the bot's processes) other than ``leader`` and its
    children (bubblewrap's monitor and its init) has ``pipe`` open."""
    for pid in members:
        if pid == leader or _parent(pid) == leader:
            continue
        try:
            names = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue  # gone
        for name in names:
            with suppress(OSError):
                if os.readlink(f"/proc/{pid}/fd/{name}") == pipe:
                    return True
    return False


def _parent(pid: int) -> int:
    """The parent of process ``pid`` (0 once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            return int(file.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0
