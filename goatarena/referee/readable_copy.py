"""A private copy of a bot's folder that an unprivileged bot can read.

A root runner's bots run as unprivileged users of their own in one group
(:data:`goatarena.referee.bot_uids.BOT_GID`), to whom a folder of root's that is not
readable by all (a checkout made with a strict
umask, a folder of mode 0700) is closed. Such a folder is copied once per referee
run, its runner's files left out, into a folder only root can reach, with every file
made readable by all, and the copy is shown to the bot in the folder's place, read-only.
Only a bot's own folder is copied (:mod:`goatarena.referee.command_paths`), never
following a link out of it, and only up to :data:`COPY_LIMIT_ENTRIES` entries and
:data:`COPY_LIMIT_BYTES`: past either the bot is refused in one line.

The copy is a snapshot, made at pre-flight in a worker thread
(:mod:`goatarena.referee.bot_copies`) and kept while the folder is unchanged (the count,
sizes and change times of its files): a folder edited while a long-lived ladder goes on
is copied again when its new version is checked, so a bot updated in place runs its new
code. The process that made the copies removes them as it ends
(:func:`remove_copies`, called by the command, a referee process and a cluster worker
on their way out, which ``os._exit`` would skip for ``atexit``); the copies of a process
that was killed are removed by the next one that makes copies (:func:`sweep_copies`),
by the lock their maker held. Folders the bot can read already are shown as they are.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import fcntl
import os
import shutil
import stat
import tempfile
import threading
import time
from collections.abc import Sequence

from goatarena.referee.command_paths import inside

COPY_LIMIT_BYTES = 1 << 30
"""The most a copy may hold: a larger folder must be made readable by all instead."""
COPY_LIMIT_ENTRIES = 20_000
"""The most files and folders a copy may hold (copying 100,000 empty files took seconds
of every game's start): a folder with more must be made readable by all instead."""
COPIES_PREFIX = "goatarena-bot-copies-"
"""The name of every folder of copies, in the temporary folder: what a sweep looks at."""
LOCK_NAME = ".maker"
"""A file in each folder of copies, locked by the process that made it while it lives."""
UNLOCKED_GRACE_S = 60.0
"""A folder of copies with no lock file yet is swept only once older than this (its maker
may be between making it and locking it)."""
_lock = threading.Lock()
"""Copies are made in worker threads: one at a time."""
_copies: dict[tuple[str, tuple[str, ...], tuple[int, ...]], str] = {}
_as_they_are: set[str] = set()
"""Folders the bots' group could read whole: shown as they are, never walked again."""
_root: list[tuple[str, int, int]] = []
"""The folder of this process's copies, once made: its path, this process, its lock."""


def readable_folder(folder: str, gid: int, left_out: Sequence[str]) -> str:
    """``folder`` if group ``gid`` (of users who own nothing) can read all of it, else a
    copy it can, without ``left_out`` (the runner's files inside it); PermissionError
    for a folder too large to copy. It walks the folder: call it off the event loop."""
    with _lock:
        return _readable_folder(folder, gid, left_out)


def _readable_folder(folder: str, gid: int, left_out: Sequence[str]) -> str:
    if folder in _as_they_are:
        return folder
    if _readable_by(folder, gid):  # a closed folder fails at its first entry: cheap
        _as_they_are.add(folder)
        return folder
    runners = tuple(sorted(path for path in left_out if inside(path, folder)))
    key = (folder, runners, _state(folder))
    if key in _copies:
        return _copies[key]
    entries, size = key[2][0], key[2][1]
    if entries > COPY_LIMIT_ENTRIES or size > COPY_LIMIT_BYTES:
        bound = (
            f"more than {COPY_LIMIT_ENTRIES} files and folders"
            if entries > COPY_LIMIT_ENTRIES
            else f"more than {COPY_LIMIT_BYTES >> 20} MiB"
        )
        raise PermissionError(
            errno.EACCES,
            f"bots run in group {gid}, which cannot read all of {folder}, and it holds"
            f" {bound}, too large to copy: make it readable by all (chmod -R a+rX {folder})",
        )
    root = _copy_root()
    copy = os.path.join(root, str(len(_copies)))
    # The copies themselves too: a bot folder that holds the temporary folder would
    # otherwise be copied into itself.
    out = (*runners, os.path.realpath(root))
    try:
        shutil.copytree(
            folder,
            copy,
            symlinks=True,  # a link stays a link: nothing it leads to is copied
            ignore=lambda where, names: [n for n in names if _left_out(where, n, out)],
        )
    except (shutil.Error, OSError) as error:
        shutil.rmtree(copy, ignore_errors=True)
        raise PermissionError(
            errno.EACCES, f"{folder} could not be copied for the bots' group ({error})"
        ) from None
    for where, _folders, files in os.walk(copy):
        os.chmod(where, os.stat(where).st_mode | 0o555)
        for name in files:
            path = os.path.join(where, name)
            if not os.path.islink(path):
                os.chmod(path, os.stat(path).st_mode | 0o444)
    _copies[key] = copy
    return copy


def _left_out(where: str, name: str, out: Sequence[str]) -> bool:
    """Whether the entry ``name`` of ``where`` stays out of a copy: the runner's files, and
    whatever is no file, folder or link (a named pipe would hold the copy up for ever, a
    device could fill the disk)."""
    path = os.path.join(where, name)
    if path in out:
        return True
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return True
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode))


def _state(folder: str) -> tuple[int, ...]:
    """What changes when anything in ``folder`` does: its entries, their bytes, and the
    latest change time (``st_ctime_ns``: also moved by a write that keeps the mtime).
    The walk stops once past :data:`COPY_LIMIT_ENTRIES` (a folder that large is refused)."""
    entries, total, latest = 0, 0, 0
    for where, folders, files in os.walk(folder):
        if entries > COPY_LIMIT_ENTRIES:
            break
        for name in (*folders, *files):
            with contextlib.suppress(OSError):
                status = os.lstat(os.path.join(where, name))
                entries += 1
                total += status.st_size if stat.S_ISREG(status.st_mode) else 0
                latest = max(latest, status.st_ctime_ns, status.st_mtime_ns)
    return entries, total, latest


def _readable_by(folder: str, gid: int) -> bool:
    """Whether group ``gid`` may list every folder and read every file in ``folder``."""
    for where, _folders, files in os.walk(folder):
        if not allows(where, gid, 5):
            return False
        for name in files:
            path = os.path.join(where, name)
            if not os.path.islink(path) and not allows(path, gid, 4):
                return False
    return True


def allows(path: str, gid: int, wanted: int) -> bool:
    """Whether a user of group ``gid`` who owns nothing (a bot: not root) has the
    ``wanted`` bits (r=4, w=2, x=1) on ``path`` by its mode (True for what is gone, or
    neither a folder nor a file)."""
    try:
        status = os.lstat(path)
    except OSError:
        return True  # gone: nothing to read
    if not (stat.S_ISDIR(status.st_mode) or stat.S_ISREG(status.st_mode)):
        return True
    bits = status.st_mode >> 3 if status.st_gid == gid else status.st_mode
    return bits & wanted == wanted


def _copy_root() -> str:
    """The folder the copies are made in: root's alone (mode 0700), locked while this
    process lives, removed by :func:`remove_copies` (and at exit, where there is one)."""
    if _root and _root[0][1] != os.getpid():
        _root.clear()  # a forked child: its parent's copies are the parent's to remove
    if not _root:
        sweep_copies()
        folder = tempfile.mkdtemp(prefix=COPIES_PREFIX)
        lock = os.open(
            os.path.join(folder, LOCK_NAME), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600
        )
        fcntl.flock(lock, fcntl.LOCK_EX)
        _root.append((folder, os.getpid(), lock))
        atexit.register(remove_copies)
    return _root[0][0]


def remove_copies() -> None:
    """Remove the copies this process made (none made, or made by a parent: nothing)."""
    with _lock:
        if not _root or _root[0][1] != os.getpid():
            return
        folder, _, lock = _root.pop()
        _copies.clear()
        shutil.rmtree(folder, ignore_errors=True)
        os.close(lock)


def sweep_copies() -> list[str]:
    """Remove the folders of copies that this user's processes made and left (killed
    before they could remove them): those whose lock no process holds. The ones removed."""
    where = tempfile.gettempdir()
    swept = []
    with contextlib.suppress(OSError):
        names = [name for name in os.listdir(where) if name.startswith(COPIES_PREFIX)]
        for name in names:
            folder = os.path.join(where, name)
            if _left_behind(folder):
                shutil.rmtree(folder, ignore_errors=True)
                swept.append(folder)
    return swept


def _left_behind(folder: str) -> bool:
    """Whether ``folder`` is this user's folder of copies whose maker is gone."""
    try:
        status = os.lstat(folder)
    except OSError:
        return False
    if not stat.S_ISDIR(status.st_mode) or status.st_uid != os.geteuid():
        return False
    try:
        lock = os.open(os.path.join(folder, LOCK_NAME), os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW)
    except FileNotFoundError:
        return time.time() - status.st_mtime > UNLOCKED_GRACE_S
    except OSError:
        return False
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False  # its maker holds it
    finally:
        os.close(lock)
    return True
