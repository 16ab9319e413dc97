"""What can be wrong with a results database, said in words a user can act on.

SQLite's errors explained (locked, read-only, full, corrupt, ...), files that are no
database at all (a folder, a device, a pipe), a new database left empty by a failure,
and stored records that cannot be what goatarena wrote. Used by :mod:`goatarena.store.database`,
which alone opens the database.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

from goatarena.errors import StoreError
from goatarena.referee.records import MatchResult
from goatarena.store.summary import GameSummary

SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")
"""What SQLite keeps beside a database, named by adding these to the database's name."""

CAUSES = {
    "SQLITE_BUSY": "is locked by another process",
    "SQLITE_LOCKED": "is locked by another process",
    "SQLITE_READONLY": "is read-only",
    "SQLITE_FULL": "cannot be written: the disk is full",
    "SQLITE_IOERR": "cannot be read or written: disk I/O error",
    "SQLITE_CORRUPT": "is corrupt (the database disk image is malformed)",
    "SQLITE_NOTADB": "is not a goatarena results database (not an SQLite file)",
    "SQLITE_CANTOPEN": "cannot be opened",
    "SQLITE_PERM": "cannot be opened: permission denied",
}
"""What each SQLite error class means to a user (extended codes fall in their class)."""


def explain_sqlite_error(error: sqlite3.Error, path: Path | None = None) -> str:
    """What went wrong with the database ``path``, in words a user can act on: locked,
    read-only, full, corrupt..."""
    name = getattr(error, "sqlite_errorname", "") or ""
    if name.startswith("SQLITE_IOERR") and path is not None and disk_is_full(path):
        # SQLite says only "disk I/O error" when it cannot grow its side files.
        return CAUSES["SQLITE_FULL"]
    for prefix, cause in CAUSES.items():
        if name == prefix or name.startswith(prefix + "_"):
            return f"{cause} ({error})" if prefix == "SQLITE_CANTOPEN" else cause
    return f"database error: {error}"


def disk_is_full(path: Path) -> bool:
    """Whether the file system that holds ``path`` has no space left for us."""
    try:
        return os.statvfs(path.resolve().parent).f_bavail == 0
    except OSError:
        return False


def record_inconsistency(result: MatchResult) -> str | None:
    """What makes a decoded record impossible (seats that do not add up, a rank past the
    last seat), or None: what goatarena writes is always consistent, but a file edited by
    hand need not be, and every reader counts on it."""
    seats = len(result.players)
    if seats < 2:
        return f"{seats} players"
    for field in ("scores", "ranks", "violations"):
        if len(getattr(result, field)) != seats:
            return f"{len(getattr(result, field))} {field} for {seats} players"
    for field in ("latency", "all_violations"):  # empty in records from older versions
        if len(getattr(result, field)) not in (0, seats):
            return f"{len(getattr(result, field))} {field} entries for {seats} players"
    if any(not 1 <= rank <= seats for rank in result.ranks):
        return f"ranks {result.ranks} for {seats} players"
    return None


def summary_inconsistency(summary: GameSummary) -> str | None:
    """What makes a decoded summary impossible (as :func:`record_inconsistency`), or None."""
    seats = len(summary.players)
    ranks = summary.ranks
    if (  # every reader of every game comes through here: the usual case in one test
        seats >= 2
        and len(ranks) == len(summary.scores) == len(summary.violations) == seats
        and len(summary.forfeits) == len(summary.latency) == seats
        and min(ranks) >= 1
        and max(ranks) <= seats
    ):
        return None
    if seats < 2:
        return f"{seats} players"
    for field in ("scores", "ranks", "violations", "forfeits", "latency"):
        if len(getattr(summary, field)) != seats:
            return f"{len(getattr(summary, field))} {field} for {seats} players"
    return f"ranks {summary.ranks} for {seats} players"


def remove_if_empty(path: Path) -> None:
    """Remove a database this process began to make and could not finish (a full disk,
    say): an empty file would only be mistaken for a results database later. Never one
    that holds anything, which another process may have made at the same moment."""
    sides = [path.with_name(path.name + end) for end in SQLITE_SIDE_FILES]
    try:
        if path.stat().st_size or any(side.stat().st_size for side in sides[:1] if side.exists()):
            return
        for file in (path, *sides):
            file.unlink(missing_ok=True)
    except OSError:
        pass  # left as it is: a later run opens an empty file as a new database


_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
)


def require_regular_file(path: Path, mode: int) -> None:
    """Refuse anything but a plain file (a folder, /dev/null, a pipe) as a database."""
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "not a file")
        raise StoreError(f"{path} is not a goatarena results database ({kind})")


def explain_opening(error: sqlite3.Error, path: Path) -> str:
    """Why a database cannot be opened to write; a read-only folder is the usual cause of
    a valid database that cannot be opened (SQLite must create its side files there)."""
    name = getattr(error, "sqlite_errorname", "")
    if name.startswith(("SQLITE_CANTOPEN", "SQLITE_READONLY")):
        folder = path.resolve().parent
        if not folder.is_dir():  # a symbolic link into a folder that does not exist
            return f"cannot be opened: the folder {folder} does not exist"
        if not os.access(folder, os.W_OK):
            return "cannot be written: its folder is read-only"
    return explain_sqlite_error(error, path)


def same_file_as(fd: int, path: Path) -> bool:
    """Whether ``path`` still names the file open as ``fd`` (not deleted, not replaced)."""
    try:
        held, named = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (held.st_dev, held.st_ino) == (named.st_dev, named.st_ino)


def free_name(path: Path) -> Path:
    """``path`` if nothing has that name, else the first free ``<name>.rescued-<n>``."""
    candidate, number = path, 0
    while os.path.lexists(candidate):
        number += 1
        candidate = path.with_name(f"{path.name}.rescued-{number}")
    return candidate
