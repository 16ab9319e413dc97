"""Start a bot process under its sandbox and limits; pause, resume, pin and kill it whole.

This is the one place where bot processes are started. :func:`launch` turns a command,
:class:`~goatarena.referee.bot.BotLimits`-like limits and a
:class:`~goatarena.referee.sandbox.SandboxPolicy` into a running process and a
:class:`Confinement` that controls all of it: every process the bot starts, not just the
first.
"""

from __future__ import annotations

import contextlib
import errno
import os
import resource
import shutil
import signal
from collections.abc import Sequence
from pathlib import Path

import trio

from goatarena.referee.cgroups import BotCgroup
from goatarena.referee.sandbox import SandboxPolicy, find_bwrap, require_sandbox, sandbox_argv
from goatarena.referee.sandbox_view import bot_environment
from goatarena.referee.seccomp import open_filter
from goatarena.referee.spawn import ChildProcess, spawn

SWEEP_FIRST_WAIT_S = 0.0005
SWEEP_LONGEST_WAIT_S = 0.01
"""How often a pause stopped by signals is checked until all of the bot has stopped."""
SETTLED_STATES = frozenset(b"tTZX")
"""States in /proc of a process that can no longer fork: stopped, or dead."""
CGROUP_REMOVE_TRIES = 50
CGROUP_REMOVE_WAIT_S = 0.01


class Confinement:
    """Control over one launched bot: its cgroup (if any) and its process tree.

    Unsandboxed, pausing and pinning do nothing and killing signals the process group, as
    before. Sandboxed, pausing freezes the bot's cgroup (v2), or stops every process in
    its cgroup with SIGSTOP (v1); without a cgroup it stops the process tree found in
    /proc, which is slower. The launched process itself, bubblewrap's
    monitor, is left running: it only waits, and it ends the sandbox if the referee dies.

    A process sent SIGSTOP in the middle of a fork finishes the fork before it stops, and
    its new child was in no list yet: so where pausing is done by signals, a pause stops
    what it finds at once, and :meth:`keep_stopped` (run beside the bot) goes on stopping
    newcomers until every process of the bot is seen stopped, which no fork can outrun.
    """

    def __init__(self, policy: SandboxPolicy, cgroup: BotCgroup | None) -> None:
        self.policy = policy
        self.cgroup = cgroup
        self.pid = 0
        self.paused = False
        self._stopped: set[int] = set()
        self._paused_lot = trio.lowlevel.ParkingLot()

    @property
    def sandboxed(self) -> bool:
        """Whether the bot runs in a sandbox."""
        return self.policy.enabled

    @property
    def pauses(self) -> bool:
        """Whether :meth:`pause` stops the bot (False: unsandboxed, or allowed to ponder)."""
        return self.policy.enabled and not self.policy.ponder

    @property
    def stops_by_signal(self) -> bool:
        """Whether pausing sends SIGSTOP (so :meth:`keep_stopped` must run beside the bot)."""
        frozen = self.cgroup is not None and self.cgroup.can_freeze
        return self.pauses and not frozen

    def pause(self) -> None:
        """Give the bot no CPU until :meth:`resume` (no-op unsandboxed or pondering)."""
        if not self.pauses or self.paused or not self.pid:
            return
        self.paused = True
        if self.cgroup is not None and self.cgroup.can_freeze:
            with contextlib.suppress(OSError):
                self.cgroup.freeze()
            return
        # What was forked meanwhile, or is being forked now, keep_stopped stops: it looks
        # again until all is stopped, which this pause need not wait for.
        self._stop_newcomers()
        self._paused_lot.unpark_all()

    def _stop_newcomers(self) -> list[int]:
        """Send SIGSTOP to every process of the bot not sent one in this pause."""
        members = self._members()
        fresh = [pid for pid in members if pid != self.pid and pid not in self._stopped]
        for pid in fresh:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGSTOP)
            self._stopped.add(pid)
        return fresh

    def _all_stopped(self) -> bool:
        """Whether every process of the bot is stopped or dead, and none is new; stops
        again any that a process still running has woken."""
        # States first: a process seen stopped forks no more, so a child of one that was
        # forking shows in the list read after.
        running = [pid for pid in self._stopped if _state(pid) not in SETTLED_STATES]
        for pid in running:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGSTOP)
        return not self._stop_newcomers() and not running

    async def keep_stopped(self) -> None:
        """Run for the bot's life: after each pause, stop what a fork in flight let slip
        until all of the bot is stopped, or it resumes (only where pausing is by signal)."""
        while True:
            await self._paused_lot.park()
            wait = SWEEP_FIRST_WAIT_S
            while self.paused and not self._all_stopped():
                await trio.sleep(wait)
                wait = min(2 * wait, SWEEP_LONGEST_WAIT_S)

    def _members(self) -> list[int]:
        if self.cgroup is not None:
            return self.cgroup.pids()
        return process_tree(self.pid)

    def resume(self) -> None:
        """Let the bot run again."""
        if not self.paused:
            return
        self.paused = False
        if self.cgroup is not None and self.cgroup.can_freeze:
            with contextlib.suppress(OSError):
                self.cgroup.thaw()
            return
        for pid in self._stopped:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGCONT)
        self._stopped = set()

    def pin(self, cpu: int | None) -> None:
        """Run the bot only on ``cpu`` (None: on every CPU the referee may use)."""
        if not self.sandboxed or not self.pid:
            return
        cpus = sorted(os.sched_getaffinity(0)) if cpu is None else [cpu]
        if self.cgroup is not None and "cpuset" in self.cgroup.folders:
            self.cgroup.pin(",".join(str(number) for number in cpus))
            return
        for pid in process_tree(self.pid):
            for task in _tasks(pid):
                with contextlib.suppress(OSError):
                    os.sched_setaffinity(task, cpus)

    def kill_all(self) -> None:
        """Kill every process of the bot at once."""
        self.resume()
        if self.cgroup is not None:
            self.cgroup.kill_all()
        if self.pid:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)

    def exit_status(self, code: int) -> int:
        """The bot's own exit status: bubblewrap reports a death by signal N as 128+N."""
        if self.sandboxed and code > 128:
            return -(code - 128)
        return code

    def exceeded_memory(self) -> bool:
        """Whether the bot's cgroup ran out of memory (so a SIGKILL was the OOM killer's)."""
        return self.cgroup is not None and self.cgroup.memory_exceeded()

    async def release(self) -> None:
        """Remove the cgroup once the last process in it has gone."""
        if self.cgroup is None:
            return
        for _ in range(CGROUP_REMOVE_TRIES):
            if self.cgroup.remove():
                return
            self.cgroup.kill_all()
            await trio.sleep(CGROUP_REMOVE_WAIT_S)


def process_tree(root: int) -> list[int]:
    """``root`` and all its descendants now, parents before children (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as file:
                stat = file.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(b")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def _state(pid: int) -> int:
    """The state letter of ``pid`` in /proc as a byte (``X``, dead, once it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            stat = file.read()
    except OSError:
        return ord("X")
    return stat[stat.rindex(b")") + 2]


def _tasks(pid: int) -> list[int]:
    try:
        return [int(name) for name in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        return [pid]


def _set_limits(
    memory_bytes: int | None,
    sandboxed: bool,
    *,
    open_files: int | None,
    file_bytes: int | None,
    cgroup: BotCgroup | None,
) -> None:
    """In the child before it executes the bot: join the cgroup, set the rlimits."""
    if cgroup is not None:
        cgroup.join()
    if memory_bytes is not None:
        # RLIMIT_DATA rather than RLIMIT_AS: runtimes such as the JVM reserve large address
        # ranges they never touch, and fail under an address-space limit of this size.
        resource.setrlimit(resource.RLIMIT_DATA, (memory_bytes, memory_bytes))
    if not sandboxed:
        return
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    for which, value in (
        (resource.RLIMIT_NOFILE, open_files),
        (resource.RLIMIT_FSIZE, file_bytes),
    ):
        if value is not None:
            resource.setrlimit(which, (value, value))
    # No RLIMIT_NPROC: it counts every process of the user (the referee's too) and root
    # is exempt, so only a pids cgroup bounds a fork bomb; without one, the pid namespace
    # still ends it with the bot.


async def launch(
    argv: Sequence[str],
    *,
    memory_bytes: int | None,
    processes: int | None,
    open_files: int | None,
    file_bytes: int | None,
    policy: SandboxPolicy,
) -> tuple[ChildProcess, Confinement]:
    """Start ``argv`` with piped stdin, stdout and stderr, confined by ``policy``.

    Raises :class:`~goatarena.referee.sandbox.SandboxUnavailable` if the policy asks for
    a sandbox that this machine cannot give, and OSError if the command cannot start.
    """
    require_sandbox(policy)
    cgroup = None
    seccomp = None
    if policy.enabled:
        # Said as plainly as an unsandboxed start would; bubblewrap's own message is longer.
        program = argv[0]
        found = os.path.exists(program) if "/" in program else shutil.which(program)
        if not found:
            # Not "No such file or directory": that would read as the sandbox hiding it.
            missing = "file not found" if "/" in program else "program not found on PATH"
            raise FileNotFoundError(errno.ENOENT, missing, program)
        bwrap = find_bwrap()
        assert bwrap is not None, "require_sandbox found it"
        seccomp = open_filter()
        argv = sandbox_argv(argv, policy, bwrap=bwrap, cwd=Path.cwd(), seccomp_fd=seccomp)
        cgroup = BotCgroup.create(memory_bytes=memory_bytes, processes=processes)
    confinement = Confinement(policy, cgroup)
    try:
        process = await spawn(
            argv,
            lambda: _set_limits(
                memory_bytes,
                policy.enabled,
                open_files=open_files,
                file_bytes=file_bytes,
                cgroup=cgroup,
            ),
            env=bot_environment(os.environ) if policy.enabled else None,
            pass_fds=() if seccomp is None else (seccomp,),
        )
    except BaseException:
        if cgroup is not None:
            cgroup.remove()
        raise
    finally:
        if seccomp is not None:
            os.close(seccomp)  # bubblewrap has its own copy, read before the bot runs
    confinement.pid = process.pid
    return process, confinement
