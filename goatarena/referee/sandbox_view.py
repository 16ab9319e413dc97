"""What a sandboxed bot sees: the mounts of its file system, and its environment.

The system read-only (and of ``/etc`` only what runtimes read), the Python install and
the goatarena package the referee runs on, its own folders (every folder a word of its
command names), the paths it is given, private size-capped ``/tmp`` and ``/dev/shm``,
and nothing the runner owns: its files inside a given folder are masked. Everything else
is read-only. Of the referee's environment it keeps only ``PATH`` and the locale.

:mod:`goatarena.referee.sandbox` puts these mounts into bubblewrap's command line.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

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


def bot_environment(referee: Mapping[str, str]) -> dict[str, str]:
    """The whole environment of a sandboxed bot, given the referee's."""
    kept = {name: referee[name] for name in PASSED_VARIABLES if name in referee}
    return {**kept, **SET_VARIABLES}


def view_args(
    argv: Sequence[str],
    *,
    tmp_bytes: int,
    read_paths: Sequence[str],
    write_paths: Sequence[str],
    hidden: Sequence[str],
    cwd: Path,
) -> list[str]:
    """bubblewrap's options that build the file system ``argv`` sees when run from ``cwd``.

    The working folder has the same path as the referee's, so relative paths in the
    command work, but it holds only the bot's own folders (read-only), never the rest.
    """
    args: list[str] = []
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
        args += ["--size", str(tmp_bytes), "--tmpfs", scratch]
    read = _code_paths() + bot_paths(argv, cwd) + _mount_sources(read_paths, cwd)
    # Binds come after the private /tmp, so a folder under the host's /tmp shows through.
    for path in dict.fromkeys(read):
        args += ["--ro-bind-try", path, path]
    for path in dict.fromkeys(_mount_sources(write_paths, cwd)):
        args += ["--bind-try", path, path]
    args += _masks(read + list(write_paths), hidden, cwd)
    args += ["--dir", str(cwd)]
    # bubblewrap's root and /dev are tmpfs of no size limit, writable by the bot: a way
    # past the capped scratch space, and to fill the machine's memory without cgroups.
    for path in READ_ONLY_MOUNTS:
        args += ["--remount-ro", path]
    return args


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
