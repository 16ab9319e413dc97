"""A lock held on a file itself, so that every name of the file finds it.

A lock file beside a database follows the database's resolved path, which covers
symbolic links and other spellings of the path but not hard links: two names of one
file in different folders resolve to different paths. Two runs writing one database
through two names would also use two WAL files, which corrupts it. A lock on the
database file itself follows its identity (device and inode) whatever its name.

The lock is an open-file-description lock (Linux ``F_OFD_SETLK``) on one byte far past
the bytes SQLite locks (around 1 GiB), so it never meets SQLite's own locks. Unlike a
process-associated lock it excludes a second opening in the same process too. Elsewhere
(no ``F_OFD_SETLK``) there is no identity lock and the path lock alone applies.
"""

from __future__ import annotations

import errno
import fcntl
import os
import struct
from pathlib import Path

LOCK_BYTE = 1 << 62
"""The byte locked: far beyond any database and beyond SQLite's lock bytes at 1 GiB."""

_REFUSED = (errno.EAGAIN, errno.EACCES)
"""What a lock held by another open file description fails with."""


class HeldElsewhere(Exception):
    """The file is locked through another opening of it (another run). ``fd`` is this
    opening's descriptor, still open: close it once the database is closed."""

    def __init__(self, path: Path, fd: int) -> None:
        super().__init__(str(path))
        self.fd = fd


def lock_identity(path: Path) -> int | None:
    """Lock ``path`` itself for writing; return the descriptor that holds the lock.

    Raises :class:`HeldElsewhere` if another opening holds it. Returns None where no
    descriptor could be opened: no ``F_OFD_SETLK`` on this system, or a file this process
    cannot open for writing (then it cannot write into it either). On a file system
    without such locks the descriptor is returned unlocked.

    Keep the descriptor open until the database is closed, and close it after: closing
    any descriptor of a file drops every POSIX lock this process holds on it, SQLite's
    included.
    """
    command = getattr(fcntl, "F_OFD_SETLK", None)
    if command is None:
        return None
    try:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        return None
    # struct flock: type, whence, start, length, pid (0 for an OFD lock); the spare bytes
    # cover any trailing padding of the C struct.
    request = struct.pack("hhqqi", fcntl.F_WRLCK, os.SEEK_SET, LOCK_BYTE, 1, 0) + bytes(8)
    try:
        fcntl.fcntl(fd, command, request)
    except OSError as error:
        if error.errno in _REFUSED:
            raise HeldElsewhere(path, fd) from None
    return fd
