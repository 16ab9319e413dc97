"""A private copy of a bot's folder that an unprivileged bot can read.

A root runner's bots run as unprivileged users of their own in one group
(:data:`goatarena.referee.bot_uids.BOT_GID`), to whom a folder of root's that is not
readable by all (a checkout made with a strict
umask, a folder of mode 0700) is closed. Such a folder is copied once per referee
process, its runner's files left out, into a folder only root can reach, with every file
made readable by all, and the copy is shown to the bot in the folder's place, read-only.
The copy is a snapshot, made at the bot's first start and kept while the folder is
unchanged (the count, sizes and change times of its files, read at every start): a
folder edited while a long-lived referee (a ladder's, a cluster worker's) goes on is
copied again, so a bot updated in place runs its new code. Copies are removed when the
referee exits. Folders the bot can read already are shown as they are.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Sequence

COPY_LIMIT_BYTES = 1 << 30
"""The most a copy may hold: a larger folder must be made readable by all instead."""
_copies: dict[tuple[str, tuple[str, ...], tuple[int, ...]], str] = {}
_as_they_are: set[str] = set()
"""Folders the bots' group could read whole: shown as they are, never walked again."""
_root: list[str] = []
"""The folder of this process's copies, once made."""


def readable_folder(folder: str, gid: int, left_out: Sequence[str]) -> str:
    """``folder`` if group ``gid`` (of users who own nothing) can read all of it, else a
    copy it can, without ``left_out`` (the runner's files inside it)."""
    if folder in _as_they_are:
        return folder
    if _readable_by(folder, gid):  # a closed folder fails at its first entry: cheap
        _as_they_are.add(folder)
        return folder
    inside = tuple(sorted(path for path in left_out if _inside(path, folder)))
    key = (folder, inside, _state(folder))
    if key in _copies:
        return _copies[key]
    if key[2][1] > COPY_LIMIT_BYTES:
        raise PermissionError(
            errno.EACCES,
            f"bots run in group {gid}, which cannot read all of {folder}, too large to copy:"
            f" make it readable by all (chmod -R a+rX {folder})",
        )
    copy = os.path.join(_copy_root(), str(len(_copies)))
    shutil.copytree(
        folder,
        copy,
        symlinks=True,
        ignore=lambda where, names: [n for n in names if os.path.join(where, n) in inside],
    )
    for where, _folders, files in os.walk(copy):
        os.chmod(where, os.stat(where).st_mode | 0o555)
        for name in files:
            path = os.path.join(where, name)
            if not os.path.islink(path):
                os.chmod(path, os.stat(path).st_mode | 0o444)
    _copies[key] = copy
    return copy


def _state(folder: str) -> tuple[int, ...]:
    """What changes when anything in ``folder`` does: its entries, their bytes, and the
    latest change time (``st_ctime_ns``: also moved by a write that keeps the mtime)."""
    entries, total, latest = 0, 0, 0
    for where, folders, files in os.walk(folder):
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
    """The folder the copies are made in: root's alone (mode 0700), removed at exit."""
    if not _root:
        _root.append(tempfile.mkdtemp(prefix="goatarena-bot-copies-"))
        atexit.register(_remove, _root[0], os.getpid())
    return _root[0]


def _remove(folder: str, owner: int) -> None:
    """Remove ``folder`` if this is the process that made it (not a forked child)."""
    if os.getpid() == owner:
        shutil.rmtree(folder, ignore_errors=True)


def _inside(path: str, folder: str) -> bool:
    return path.startswith(folder.rstrip("/") + "/")
