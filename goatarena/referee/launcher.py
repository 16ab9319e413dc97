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
from goatarena.referee.spawn import ChildProcess, spawn

STOP_ROUNDS = 4
"""Looks for processes to stop when pausing; a stopped process cannot fork, so few do."""
CGROUP_REMOVE_TRIES = 50
CGROUP_REMOVE_WAIT_S = 0.01


class Confinement:
    """Control over one launched bot: its cgroup (if any) and its process tree.

    Unsandboxed, pausing and pinning do nothing and killing signals the process group, as
    before. Sandboxed, pausing freezes the bot's cgroup (v2), or stops every process in
    its cgroup with SIGSTOP (v1), until no new one appears; without a cgroup it stops the
    process tree found in /proc, which is slower and weaker (a process forked at that
    moment may escape until the next pause). The launched process itself, bubblewrap's
    monitor, is left running: it only waits, and it ends the sandbox if the referee dies.
    """

    def __init__(self, policy: SandboxPolicy, cgroup: BotCgroup | None) -> None:
        self.policy = policy
        self.cgroup = cgroup
        self.pid = 0
        self.paused = False
        self._stopped: set[int] = set()

    @property
    def sandboxed(self) -> bool:
        """Whether the bot runs in a sandbox."""
        return self.policy.enabled

    def pause(self) -> None:
        """Give the bot no CPU until :meth:`resume` (no-op unsandboxed or pondering)."""
        if not self.sandboxed or self.policy.ponder or self.paused or not self.pid:
            return
        self.paused = True
        if self.cgroup is not None and self.cgroup.can_freeze:
            with contextlib.suppress(OSError):
                self.cgroup.freeze()
            return
        stopped = self._stopped
        for _ in range(STOP_ROUNDS):
            # A process forked while the others were being stopped shows in the next look.
            fresh = [pid for pid in self._members() if pid != self.pid and pid not in stopped]
            if not fresh:
                break
            for pid in fresh:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGSTOP)
                stopped.add(pid)

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
    if policy.enabled:
        # Said as plainly as an unsandboxed start would; bubblewrap's own message is longer.
        program = argv[0]
        found = os.path.exists(program) if "/" in program else shutil.which(program)
        if not found:
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", program)
        bwrap = find_bwrap()
        assert bwrap is not None, "require_sandbox found it"
        argv = sandbox_argv(argv, policy, bwrap=bwrap, cwd=Path.cwd())
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
        )
    except BaseException:
        if cgroup is not None:
            cgroup.remove()
        raise
    confinement.pid = process.pid
    return process, confinement
