"""Opening a results database: to run into or to read, checked and prepared; the files
kept beside it; putting it aside for a fresh run."""

from __future__ import annotations

import contextlib
import itertools
import os
import sqlite3
import time
import urllib.parse
from pathlib import Path

from goatarena.errors import StoreError
from goatarena.store.database import BUSY_TIMEOUT_S, Store
from goatarena.store.problems import (
    SQLITE_SIDE_FILES,
    explain_opening,
    explain_sqlite_error,
    remove_if_empty,
    require_regular_file,
)
from goatarena.store.schema import (
    APPLICATION,
    SCHEMA_VERSION,
    create_or_migrate,
)


def database_files(path: Path) -> list[Path]:
    """The results database ``path`` and the side files SQLite and a run keep beside it."""
    return [path, *(path.with_name(path.name + end) for end in (*SQLITE_SIDE_FILES, ".lock"))]


SQLITE_HEADER = b"SQLite format 3\x00"
"""How every SQLite database file begins."""
BESIDE_LOOKED_AT = 1000
"""How many entries of a database's folder :func:`results_beside` looks at, at most."""


def results_beside(path: Path) -> list[Path]:
    """The other results databases in the folder of ``path`` (every SQLite database there,
    by its first bytes; among the first :data:`BESIDE_LOOKED_AT` entries), each with its
    side files and its log folder: what a bot must not read where the folder itself is
    shown to it (it is the bot's own)."""
    found: list[Path] = []
    try:
        with os.scandir(path.parent) as entries:
            for entry in itertools.islice(entries, BESIDE_LOOKED_AT):
                if entry.name == path.name or not entry.is_file(follow_symlinks=False):
                    continue
                with contextlib.suppress(OSError), open(entry.path, "rb") as file:
                    if file.read(len(SQLITE_HEADER)) == SQLITE_HEADER:
                        other = Path(entry.path)
                        found += [*database_files(other), other.with_name(f"{other.stem}-logs")]
    except OSError:
        return found
    return found


def open_store(path: Path, *, create: bool = True, busy_timeout_s: float = BUSY_TIMEOUT_S) -> Store:
    """Open a results database: to run into (``create``: made if missing) or to read.

    Opened to read (``create=False``), the file is never created or altered, not even
    by SQLite's side files. A foreign, corrupt, locked or unreadable file is a
    :class:`StoreError` saying which.
    """
    if not create:
        return _open_to_read(path)
    try:
        # The runner's alone (the database holds the deal secret; the folder, maybe other
        # tournaments'): a folder made here is 0700, a database 0600, and SQLite gives
        # its side files the database's mode.
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as error:
        raise StoreError(f"{path}: cannot create its folder: {error.strerror or error}") from None
    made = False
    try:
        info = path.stat()
    except FileNotFoundError:
        made = True
        with contextlib.suppress(FileExistsError, OSError):
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError as error:  # SQLite would only say "unable to open database file"
        raise StoreError(f"{path} cannot be opened: {error.strerror or error}") from None
    else:
        # SQLite would open a device too, and make its journal beside it (/dev/null-journal).
        require_regular_file(path, info.st_mode)
    try:
        connection = sqlite3.connect(
            path, timeout=busy_timeout_s, isolation_level=None, check_same_thread=False
        )
    except sqlite3.Error as error:
        raise StoreError(f"{path} {explain_opening(error, path)}") from None
    connection.isolation_level = "DEFERRED"
    try:
        _prepare(connection, path)
    except sqlite3.Error as error:
        connection.close()
        cause = explain_opening(error, path)
        if made:
            remove_if_empty(path)
        raise StoreError(f"{path} {cause}") from None
    except StoreError:
        connection.close()
        raise
    return Store(connection, path)


def _open_to_read(path: Path) -> Store:
    """Open read-only. Without a ``-wal`` file nobody has the database open, so it is
    read as immutable, which needs no side files; with one, a run may be writing, and
    SQLite's read-only mode uses the side files that run made (or, where they cannot be
    used, such as in a read-only folder, the database is read as immutable after all)."""
    require_readable_file(path)
    wal = path.with_name(path.name + "-wal").exists()
    return Store(connect_to_read(path, immutable=not wal), path)


def require_readable_file(path: Path) -> None:
    """Refuse in one line a database path that is missing, cannot be looked at, is no
    regular file or is empty (SQLite would take an empty file for a new database)."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise StoreError(f"{path}: no such results database") from None
    except OSError as error:  # a name too long, a folder we may not enter, ...
        raise StoreError(f"{path}: cannot be read: {error.strerror or error}") from None
    require_regular_file(path, info.st_mode)
    if info.st_size == 0:
        raise StoreError(f"{path} is not a goatarena results database (an empty file)")


def connect_to_read(path: Path, *, immutable: bool) -> sqlite3.Connection:
    """A read-only connection to ``path``, checked to be goatarena's (once): as an
    immutable file when asked, else through SQLite's side files, or as immutable after
    all where those cannot be used (a read-only folder). A :class:`StoreError` saying
    what is wrong otherwise."""
    try:
        try:
            return _connect_to_read(path, immutable=immutable)
        except sqlite3.Error as error:
            name = getattr(error, "sqlite_errorname", "")
            if immutable or not name.startswith(("SQLITE_CANTOPEN", "SQLITE_READONLY")):
                raise
            return _connect_to_read(path, immutable=True)
    except sqlite3.Error as error:
        raise StoreError(f"{path} {explain_sqlite_error(error, path)}") from None


def _connect_to_read(path: Path, *, immutable: bool) -> sqlite3.Connection:
    # Quoted as bytes: a file name that is not UTF-8 still names the right file.
    uri = f"file:{urllib.parse.quote(os.fsencode(path.resolve()))}?mode=ro"
    connection = sqlite3.connect(
        uri + ("&immutable=1" if immutable else ""), uri=True, check_same_thread=False
    )
    try:
        _check(connection, path)
    except BaseException:
        connection.close()
        raise
    return connection


def _check(connection: sqlite3.Connection, path: Path) -> None:
    """Refuse a database that goatarena did not write (or that a newer one did)."""
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    if "meta" not in tables:
        detail = "foreign tables" if tables else "no tables"
        raise StoreError(f"{path} is not a goatarena results database ({detail})")
    try:
        rows = dict(connection.execute("SELECT key, value FROM meta").fetchall())
    except sqlite3.OperationalError:  # a table named meta, but not ours
        raise StoreError(f"{path} is not a goatarena results database (foreign tables)") from None
    if rows.get("application") != APPLICATION:
        raise StoreError(f"{path} is not a goatarena results database")
    schema = str(rows.get("schema", "0"))
    if not schema.isdigit() or int(schema) > SCHEMA_VERSION:
        raise StoreError(f"{path}: written by a newer goatarena (schema {schema!r})")


def _prepare(connection: sqlite3.Connection, path: Path) -> None:
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    if tables:
        _check(connection, path)
    # WAL with synchronous=NORMAL survives a killed process (not a power cut) and keeps
    # commits cheap enough to store every game the moment it ends.
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=NORMAL")
    with connection:
        create_or_migrate(connection)


def put_database_aside(db: Path) -> Path | None:
    """Rename the database ``db`` (and its WAL files) out of the way, to a name of its own
    that says when (``<name>.<UTC time>.old``); the new name, or None if there was none.

    Refused while a run writes to it. A name already taken (two in the same second) gets
    a number rather than replacing the database put aside before.
    """
    try:
        if not db.exists():
            return None
    except OSError as error:  # a name too long, a folder we may not enter, ...
        raise StoreError(f"{db} cannot be opened: {error.strerror or error}") from None
    store = open_store(db, create=False)
    try:
        store.lock_for_run()  # never move a database a run is writing to
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
        sides = ("", *SQLITE_SIDE_FILES)
        for number in itertools.count():
            aside = db.with_name(f"{db.name}.{stamp}{f'-{number}' if number else ''}.old")
            if not any(os.path.lexists(f"{aside}{side}") for side in sides):
                break
        for side in sides:
            source = db.with_name(db.name + side)
            if source.exists():
                try:
                    source.rename(f"{aside}{side}")
                except OSError as error:
                    raise StoreError(f"cannot put {source} aside: {error.strerror}") from None
    finally:
        store.close()
    return aside
