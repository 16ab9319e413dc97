"""Start child processes from one thread that lives as long as the referee.

A process started with bubblewrap's ``--die-with-parent`` (``PR_SET_PDEATHSIG``) dies
when the *thread* that started it exits, not the process. trio starts processes from its
worker threads, which exit after ten idle seconds: every bot would be killed ten seconds
into its life. Here every process is started by one thread that never exits before the
interpreter does, so a bot dies exactly when its referee does.

:class:`ChildProcess` is the little of :class:`trio.Process` that the referee uses: pid,
piped stdin, stdout and stderr as trio streams, ``wait()`` and ``returncode``.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack

import trio

_SPAWNER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="goatarena-spawner")
"""Its one thread blocks on its queue when idle and never times out."""


class ChildProcess:
    """A started child process with piped stdio; reaped by :meth:`wait`."""

    def __init__(
        self,
        popen: subprocess.Popen[bytes],
        stdin: trio.lowlevel.FdStream,
        stdout: trio.lowlevel.FdStream,
        stderr: trio.lowlevel.FdStream,
    ) -> None:
        self._popen = popen
        self.pid = popen.pid
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr
        self._pidfd = os.pidfd_open(popen.pid)
        self._wait_lock = trio.Lock()
        self._status: int | None = None

    @property
    def returncode(self) -> int | None:
        """The exit status once it has exited (negative: killed by that signal), else None."""
        return self._popen.returncode if self._popen.returncode is not None else self._status

    @property
    def reaped(self) -> bool:
        """Whether its pid has been given back: from then on it may name another process."""
        return self._popen.returncode is not None

    async def wait_exited(self) -> int:
        """Wait for the process to exit and return its status, without reaping it.

        Until :meth:`wait` reaps it, its pid stays taken, and so does its process group's
        id: signals sent to the group meanwhile cannot reach a process that got the number
        next (with 32768 pids, a long game's worth of bot start-ups may wrap around).
        """
        async with self._wait_lock:
            return await self._until_exited()

    async def wait(self) -> int:
        """Wait for the process to exit, reap it and return its status."""
        async with self._wait_lock:
            await self._until_exited()
            if self._popen.returncode is None:
                self._popen.wait()
                os.close(self._pidfd)
                self._pidfd = -1
        code = self._popen.returncode
        assert code is not None
        return code

    async def _until_exited(self) -> int:
        while self.returncode is None:
            await trio.lowlevel.wait_readable(self._pidfd)
            self._status = _peek_status(self.pid)
        return self.returncode


def _peek_status(pid: int) -> int | None:
    """The exit status of child ``pid`` if it has exited, leaving it unreaped."""
    info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT | os.WNOHANG)
    if info is None or info.si_pid == 0:
        return None
    return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status


async def spawn(
    argv: Sequence[str],
    preexec: Callable[[], None],
    *,
    env: Mapping[str, str] | None = None,
    pass_fds: Sequence[int] = (),
) -> ChildProcess:
    """Start ``argv`` in a new session with fresh pipes for its stdio; OSError if it cannot.

    ``preexec`` runs in the child before it executes ``argv``. ``env`` is its whole
    environment (None: the referee's own); ``pass_fds`` are descriptors it inherits
    beyond its stdio (none by default).
    """
    with ExitStack() as cleanup:
        child_ends = []
        ours = []
        for _ in range(3):
            read_end, write_end = os.pipe()
            cleanup.callback(os.close, read_end)
            cleanup.callback(os.close, write_end)
            child_ends.append((read_end, write_end))
        stdin = (child_ends[0][0], child_ends[0][1])
        stdout, stderr = child_ends[1], child_ends[2]
        popen = await trio.to_thread.run_sync(
            lambda: _SPAWNER.submit(
                subprocess.Popen,
                list(argv),
                stdin=stdin[0],
                stdout=stdout[1],
                stderr=stderr[1],
                start_new_session=True,
                preexec_fn=preexec,
                env=env,
                pass_fds=tuple(pass_fds),
            ).result()
        )
        # The child has its ends; ours become trio streams, which own them from now on.
        cleanup.pop_all()
        for kept, dropped in ((stdin[1], stdin[0]), (stdout[0], stdout[1]), (stderr[0], stderr[1])):
            os.close(dropped)
            ours.append(trio.lowlevel.FdStream(kept))
    return ChildProcess(popen, ours[0], ours[1], ours[2])
