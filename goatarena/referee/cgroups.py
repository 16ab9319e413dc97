"""Control groups for bot processes: limits that count everything, freezing, CPU pinning.

Each bot process gets a cgroup of its own, made before it runs (the child joins it before
it executes anything), so that every process and thread it ever starts is in it:

* ``memory`` caps all its memory, shared memory and its tmpfs ``/tmp`` included, which
  ``RLIMIT_DATA`` does not count;
* ``pids`` caps its processes and threads (a fork bomb stops there);
* the freezer (v2 ``cgroup.freeze``, also in the unified hierarchy a v1 machine mounts
  beside its controllers; else v1 ``freezer.state``) stops all of it between its turns,
  so that it cannot steal CPU from the bot whose turn it is; unlike SIGSTOP, no signal,
  timer or thread of the bot can undo it. A task the v1 freezer has frozen
  cannot die, not even of SIGKILL: a watchdog process of the runner's, outside every
  bot's cgroup, thaws its bots once the runner has gone however it died, so that they
  die with it (v2 needs none: a frozen v2 task dies of SIGKILL);
* ``cpuset`` pins it to the CPU of its game slot;
* ``cpu`` gives each bot one share of the CPU it runs on, however many threads it
  runs: where games share CPUs (more games at once than CPUs), a bot with a hundred busy
  threads in its turn would otherwise take a hundred shares from other games' bots;
* ``cpuacct`` (v1; ``cpu.stat`` in v2) counts the CPU time of all of it, which tells a
  pause by signals that a bot woke itself.

Both cgroup v1 (one hierarchy per controller) and v2 (one unified hierarchy) are
supported. Where the runner may not create cgroups, :func:`detect` says why and the
launcher falls back to rlimits and signals, which are weaker (see docs/referee.md).

Nothing is taken on trust: a hierarchy is used only where ``statfs`` shows a cgroup file
system and each controller's own file is there (an empty folder named ``freezer``, with
no controller mounted, would otherwise take the referee's ``FROZEN`` as a plain file's
text and freeze nothing), and every pause is read back from the kernel
(:meth:`BotCgroup.freeze_state`).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
from pathlib import Path

from goatarena.referee._cgroup_support import (
    ROOT,
    WANTED_V1,
    CgroupSupport,
    detect,
    remove_bases,
    write_value,
)
from goatarena.referee.cgroup_checks import open_state_file, read_freeze_state

__all__ = ["ROOT", "WANTED_V1", "BotCgroup", "CgroupSupport", "detect", "remove_bases"]

FREEZE_FILES = {1: ("freezer.state", "FROZEN", "THAWED"), 2: ("cgroup.freeze", "1", "0")}
"""By cgroup version: the freezer's file, and what freezes and thaws."""
PROCS_READ = 16 << 10
"""Bytes read of a cgroup's process list: 2000 pids. A small buffer is much cheaper."""
_serial = itertools.count(1)


class BotCgroup:
    """The cgroup(s) of one bot process: made with its limits, removed after it."""

    def __init__(self, support: CgroupSupport, folders: dict[str, Path]) -> None:
        self.support = support
        self.folders = folders
        self._frozen = False
        self._freeze_file: Path | None = None
        self._state_file: Path | None = None
        self._freezer_version = 0
        if "freezer" in folders:
            # The v2 freezer where the folder has one (also the unified hierarchy of a v1
            # machine), else v1's.
            v2 = (folders["freezer"] / "cgroup.freeze").exists()
            self._freezer_version = 2 if v2 else 1
            name, self._frozen_word, self._thawed_word = FREEZE_FILES[self._freezer_version]
            self._freeze_file = folders["freezer"] / name
            # What the kernel says it has done: v2 reports it apart from the request.
            self._state_file = folders["freezer"] / ("cgroup.events" if v2 else name)
        self._procs_files = [folder / "cgroup.procs" for folder in dict.fromkeys(folders.values())]
        self._state_fd = -1
        """Open on the freezer's state once checked: read back after every pause."""
        self._tasks_fd = -1
        """Open on the pids count (``pids.current``) once asked: read at every resume."""

    @classmethod
    def create(cls, *, memory_bytes: int | None, processes: int | None) -> BotCgroup | None:
        """A new cgroup with these limits, or None where cgroups are not available."""
        support = detect()
        if not support.bases:
            return None
        name = f"bot-{next(_serial)}"
        folders: dict[str, Path] = {}
        try:
            for controller, base in support.bases.items():
                folder = base / name
                folder.mkdir(exist_ok=True)
                folders[controller] = folder
            cgroup = cls(support, folders)
            cgroup._set_limits(memory_bytes, processes)
        except OSError:
            for folder in set(folders.values()):
                with contextlib.suppress(OSError):
                    folder.rmdir()
            return None
        return cgroup

    def _set_limits(self, memory_bytes: int | None, processes: int | None) -> None:
        v1 = self.support.version == 1
        if memory_bytes is not None and "memory" in self.folders:
            folder = self.folders["memory"]
            write_value(
                folder / ("memory.limit_in_bytes" if v1 else "memory.max"), str(memory_bytes)
            )
            if not v1:
                with contextlib.suppress(OSError):
                    write_value(folder / "memory.swap.max", "0")
        if processes is not None and "pids" in self.folders:
            write_value(self.folders["pids"] / "pids.max", str(processes))
        if v1 and "cpuset" in self.folders:
            base = self.folders["cpuset"].parent
            for key in ("cpuset.cpus", "cpuset.mems"):
                write_value(self.folders["cpuset"] / key, (base / key).read_text().strip())

    @property
    def can_freeze(self) -> bool:
        """Whether :meth:`freeze` uses the freezer (else the caller sends signals)."""
        return self._freeze_file is not None

    def join(self) -> None:
        """Move the calling process into every folder (run in the child before exec)."""
        pid = str(os.getpid())
        for procs in self._procs_files:
            write_value(procs, pid)

    def freeze(self) -> None:
        """Stop every process in the cgroup (no-op if frozen already); whether it took,
        :meth:`freeze_state` says."""
        if self._freeze_file is not None and not self._frozen:
            write_value(self._freeze_file, self._frozen_word)
            self._frozen = True

    def freeze_state(self) -> str:
        """What the kernel says of this cgroup's freezing: ``"frozen"``, ``"freezing"``
        (asked, not every task stopped yet), or why it is neither (not a cgroup file
        system, no freezer's state, thawed): a pause that did not take. One ``pread``
        of a descriptor checked by ``fstatfs`` when first opened."""
        if self._state_file is None:
            return "no freezer"
        if self._state_fd < 0:
            opened = open_state_file(self._state_file, self._freezer_version)
            if isinstance(opened, str):
                return opened
            self._state_fd = opened
        return read_freeze_state(self._state_fd, self._freezer_version, self._state_file.name)

    def thaw(self) -> None:
        """Let every process in the cgroup run again."""
        if self._freeze_file is not None and self._frozen:
            write_value(self._freeze_file, self._thawed_word)
            self._frozen = False

    def pin(self, cpus: str) -> None:
        """Restrict the cgroup to these CPUs (a cpuset list such as ``"1"`` or ``"0-3"``)."""
        if "cpuset" in self.folders:
            with contextlib.suppress(OSError):
                write_value(self.folders["cpuset"] / "cpuset.cpus", cpus)

    def pids(self) -> list[int]:
        """Every process in the cgroup now (each folder holds them all: read one)."""
        # Opened afresh every time: cgroup v1 keeps the list an open file read first, for
        # as long as it is re-read within a second, and would hide newer processes.
        try:
            fd = os.open(self._procs_files[0], os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return []
        try:
            size = PROCS_READ
            while len(data := os.pread(fd, size, 0)) == size:
                size *= 16  # more processes than the limits allow, but read them all
            return [int(pid) for pid in data.split()]
        except OSError:
            return []
        finally:
            os.close(fd)

    def tasks(self) -> int:
        """How many tasks the cgroup holds now: its pids count (threads too), else its
        processes. A microsecond with a pids count (30 for opening the file each time)."""
        folder = self.folders.get("pids")
        if folder is not None:
            with contextlib.suppress(OSError, ValueError):
                if self._tasks_fd < 0:
                    self._tasks_fd = os.open(folder / "pids.current", os.O_RDONLY | os.O_CLOEXEC)
                return int(os.pread(self._tasks_fd, 32, 0))
        return len(self.pids())

    def cpu_ns(self) -> int | None:
        """The CPU time all of the cgroup has used, in nanoseconds (None: not counted)."""
        folder = self.folders.get("cpuacct")
        if folder is None:
            return None
        try:
            if self.support.version == 1:
                return int((folder / "cpuacct.usage").read_bytes())
            for line in (folder / "cpu.stat").read_bytes().splitlines():
                if line.startswith(b"usage_usec "):
                    return int(line.split()[1]) * 1000
        except (OSError, ValueError):
            pass
        return None

    def kill_all(self) -> None:
        """Kill every process in the cgroup (thawed first: a frozen one cannot die)."""
        with contextlib.suppress(OSError):
            self.thaw()
        kill_file = self.folders.get("freezer", Path("/nonexistent")) / "cgroup.kill"
        if kill_file.exists():
            with contextlib.suppress(OSError):
                write_value(kill_file, "1")
                return
        for pid in self.pids():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)

    def remove(self) -> bool:
        """Remove the folders; False while a process is still in them (try again)."""
        for fd in (self._tasks_fd, self._state_fd):
            if fd >= 0:
                os.close(fd)
        self._tasks_fd = self._state_fd = -1
        done = True
        for folder in set(self.folders.values()):
            try:
                folder.rmdir()
            except FileNotFoundError:
                pass
            except OSError:
                done = False
        return done

    def memory_exceeded(self) -> bool:
        """Whether the memory limit was hit (an out-of-memory kill, most likely)."""
        folder = self.folders.get("memory")
        if folder is None:
            return False
        try:
            name = "memory.oom_control" if self.support.version == 1 else "memory.events"
            words = (folder / name).read_text().split()
            counts = dict(zip(words[::2], words[1::2]))
            return int(counts.get("oom_kill", 0)) > 0
        except (OSError, ValueError):
            return False
