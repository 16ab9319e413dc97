"""Start a bot process under its sandbox and limits, with the control over all of it.

This is the one place where bot processes are started. :func:`launch` turns a command,
:class:`~goatarena.referee.bot.BotLimits`-like limits and a
:class:`~goatarena.referee.sandbox.SandboxPolicy` into a running process and a
:class:`~goatarena.referee.confinement.Confinement` that controls all of it (pauses,
pins, kills): every process the bot starts, not just the first.
"""

from __future__ import annotations

import errno
import os
import resource
import shutil
from collections.abc import Sequence
from pathlib import Path

import trio

from goatarena.referee.bot_copies import with_copy
from goatarena.referee.bot_uids import claim_uid
from goatarena.referee.cgroups import BotCgroup
from goatarena.referee.confinement import Confinement
from goatarena.referee.idle import run_idle
from goatarena.referee.proc_view import close_static_files, open_static_files
from goatarena.referee.sandbox import (
    SandboxPolicy,
    find_bwrap,
    require_sandbox,
    runs_as_root,
    sandbox_argv,
)
from goatarena.referee.sandbox_view import bot_environment
from goatarena.referee.seccomp import open_filter
from goatarena.referee.spawn import ChildProcess, spawn

PER_USER_SHARES = {resource.RLIMIT_SIGPENDING: 1024, resource.RLIMIT_MSGQUEUE: 100 << 10}
"""A sandboxed bot's part of what the kernel counts per user, machine-wide: pending
signals (every POSIX timer takes one, of 96,363 here) and POSIX message queue bytes (of
800 KiB; one queue of ten 8 KiB messages fits). A bot's limit bounds what it takes of its
user's count too, so where bots share a user (the runner's, when it is not root) one of
them cannot take it all: one that made timers until refused left the others none."""


def _set_limits(
    memory_bytes: int | None,
    sandboxed: bool,
    *,
    open_files: int | None,
    file_bytes: int | None,
    processes: int | None,
    cgroup: BotCgroup | None,
    own_uid: bool,
    idle: bool = False,
) -> None:
    """In the child before it executes the bot: join the cgroup, set the rlimits."""
    if cgroup is not None:
        cgroup.join()
    if idle:
        run_idle()
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
        *PER_USER_SHARES.items(),
    ):
        if value is not None:
            resource.setrlimit(which, (value, value))
    if own_uid and processes is not None:
        # It counts the tasks of the uid, machine-wide: with a uid of the bot's own, its
        # own, which bounds a fork bomb even without a pids cgroup (bubblewrap, still
        # root, is not counted). Of the runner's own uid it would count the runner's too.
        resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))


async def launch(
    argv: Sequence[str],
    *,
    memory_bytes: int | None,
    processes: int | None,
    open_files: int | None,
    file_bytes: int | None,
    policy: SandboxPolicy,
    idle: bool = False,
) -> tuple[ChildProcess, Confinement]:
    """Start ``argv`` with piped stdin, stdout and stderr, confined by ``policy``; at the
    machine's idle priority for CPU and disk if ``idle`` (:mod:`~goatarena.referee.idle`:
    background work such as a build, never a bot in a game).

    Raises :class:`~goatarena.referee.sandbox.SandboxUnavailable` if the policy asks for
    a sandbox that this machine cannot give, and OSError if the command cannot start.
    """
    require_sandbox(policy)
    cgroup = None
    seccomp = None
    static_files: dict[str, int] = {}
    uid = None
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
        if runs_as_root():
            # Normally made at pre-flight and named in the policy; a walk and a copy of a
            # large folder never run on the event loop every game of the referee shares.
            policy = await trio.to_thread.run_sync(with_copy, policy, argv, Path.cwd())
        uid = claim_uid() if runs_as_root() else None
        try:
            seccomp = open_filter()
            static_files = open_static_files(memory_bytes)
            argv = sandbox_argv(
                argv,
                policy,
                bwrap=bwrap,
                cwd=Path.cwd(),
                seccomp_fd=seccomp,
                bot_uid=None if uid is None else uid.uid,
                static_files=static_files,
            )
        except BaseException:
            if uid is not None:
                uid.release()
            if seccomp is not None:
                os.close(seccomp)
            close_static_files(static_files)
            raise
        cgroup = BotCgroup.create(memory_bytes=memory_bytes, processes=processes)
    confinement = Confinement(policy, cgroup, uid)
    try:
        process = await spawn(
            argv,
            lambda: _set_limits(
                memory_bytes,
                policy.enabled,
                open_files=open_files,
                file_bytes=file_bytes,
                processes=processes,
                cgroup=cgroup,
                own_uid=uid is not None,
                idle=idle,
            ),
            env=bot_environment(os.environ) if policy.enabled else None,
            pass_fds=(*([] if seccomp is None else [seccomp]), *static_files.values()),
        )
    except BaseException:
        if cgroup is not None:
            cgroup.remove()
        if uid is not None:
            uid.release()
        raise
    finally:
        if seccomp is not None:
            os.close(seccomp)  # bubblewrap has its own copy, read before the bot runs
        close_static_files(static_files)  # and has copied these
    confinement.pid = process.pid
    return process, confinement
