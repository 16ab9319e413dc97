"""The results database: the only module that touches it (SQLite, WAL mode).

Every finished game is one row written in its own transaction, so a game is stored
completely or not at all, and a run killed at any moment loses nothing that finished.
A database belongs to one tournament: the file's fingerprint must match the
configuration that opens it.

Every ``sqlite3`` error becomes a :class:`StoreError` of one line that names the file and
tells apart the causes a user can act on: locked by another process, read-only, full
disk, not a goatarena database, corrupt. Readers (``standings``, ``replay``) open a
database read-only and never create or alter a file.
"""

from __future__ import annotations

import errno
import fcntl
import importlib.metadata
import itertools
import os
import secrets
import sqlite3
import time
import urllib.parse
from collections.abc import Iterable
from pathlib import Path
from typing import IO

import msgspec

from goatarena.errors import StoreError
from goatarena.referee.records import MatchResult
from goatarena.store.lock import HeldElsewhere, lock_identity
from goatarena.store.problems import (
    SQLITE_SIDE_FILES,
    explain_opening,
    explain_sqlite_error,
    free_name,
    remove_if_empty,
    require_regular_file,
    same_file_as,
)
from goatarena.store.reading import BATCH, Reading, StoredGame
from goatarena.store.schema import (
    APPLICATION,
    INSERT_GAME,
    INSERT_SUMMARY,
    SCHEMA_VERSION,
    create_or_migrate,
)
from goatarena.store.summary import encode_summary, summary_of

__all__ = ["BUSY_TIMEOUT_S", "Store", "StoredGame", "database_files", "open_store",
           "put_database_aside", "explain_sqlite_error"]  # fmt: skip

_encode = msgspec.json.encode

BUSY_TIMEOUT_S = 30.0
"""How long a write waits for another process's lock on the database before failing."""


class Store(Reading):
    """An open results database. Use :func:`open_store`.

    A store may be used from one thread at a time, any thread: a run writes from a
    worker thread so that a slow disk or a lock never holds up the games.
    """

    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self._db = connection
        self.path = path
        self._lock: IO[str] | None = None
        self._identity: int | None = None
        self._summarised: bool | None = None

    def close(self) -> None:
        """Close the database (and release the run lock, if held)."""
        self._db.close()
        if self._lock is not None:
            self._lock.close()
            self._lock = None
        if self._identity is not None:
            # Only now: closing it earlier would drop SQLite's own locks on the file.
            os.close(self._identity)
            self._identity = None

    def lock_for_run(self) -> None:
        """Make sure no other process is running games into this database.

        The lock follows the file, not the name it was given: a symbolic link, another
        spelling of the path or a hard link finds the same lock.
        """
        real = Path(os.path.realpath(self.path))
        lock_path = real.with_name(real.name + ".lock")
        try:
            lock = open(lock_path, "a")  # noqa: SIM115
        except OSError as error:
            # A read-only folder (or a stray folder of that name): one line, not a traceback.
            if error.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
                message = f"{self.path} cannot be written: its folder is read-only"
                raise StoreError(message) from None
            raise StoreError(
                f"{self.path} cannot be locked for a run: {lock_path}: {error.strerror or error}"
            ) from None
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            raise StoreError(f"{self.path} is in use by another goatarena run") from None
        self._lock = lock
        try:
            self._identity = lock_identity(self.path)
        except HeldElsewhere as held:
            self._identity = held.fd
            raise StoreError(f"{self.path} is in use by another goatarena run") from None

    def meta(self, key: str) -> str | None:
        """A metadata value (tournament name, fingerprint, ...)."""
        with self._errors():
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def claim(self, *, tournament: str, fingerprint: str, config_json: str) -> None:
        """Bind the database to a tournament, or refuse one it does not belong to."""
        stored = self.meta("fingerprint")
        if stored is None:
            with self._errors("binding it to the tournament"), self._db:
                self._db.executemany(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                    [
                        ("tournament", tournament),
                        ("fingerprint", fingerprint),
                        ("config", config_json),
                        ("created_at", str(time.time())),
                        # For the report's header; stores bound before it was kept
                        # simply lack it.
                        ("goatarena_version", goatarena_version()),
                        # Made with the binding: a run never has to write to learn it.
                        ("deal_secret", secrets.token_hex(16)),
                    ],
                )
            return
        if stored != fingerprint:
            name = self.meta("tournament") or "?"
            raise StoreError(
                f"{self.path} holds results of tournament {name!r} with another"
                " configuration; pass --db to use another file, or delete this one"
            )

    def deal_secret(self) -> str:
        """This tournament's deal secret: random, made on first use, then always the same.

        Bots never see it (the database is outside their sandbox), so they cannot rebuild
        the deals from the tournament file.
        """
        stored = self.meta("deal_secret")
        if stored is not None:
            return stored
        with self._errors("keeping its deal secret"), self._db:
            self._db.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('deal_secret', ?)",
                (secrets.token_hex(16),),
            )
        stored = self.meta("deal_secret")
        assert stored is not None
        return stored

    def remember(self, key: str, value: str) -> None:
        """Keep a fact about the tournament (the names its bots gave, say) in the metadata,
        replacing the value kept before; facts the games do not depend on."""
        if key in ("application", "schema", "fingerprint", "config", "tournament", "deal_secret"):
            raise ValueError(f"{key!r} is not for remember(): it binds the database")
        with self._errors(f"keeping its {key}"), self._db:
            self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def update_claim(self, *, fingerprint: str, config_json: str) -> None:
        """Rebind the database to a grown version of its tournament file."""
        with self._errors(), self._db:
            self._db.executemany(
                "UPDATE meta SET value = ? WHERE key = ?",
                [(fingerprint, "fingerprint"), (config_json, "config")],
            )

    def finished_keys(self) -> set[str]:
        """The schedule keys of every stored game."""
        with self._errors():
            return {row[0] for row in self._db.execute("SELECT key FROM games")}

    def add_game(self, key: str, round_number: int, result: MatchResult) -> None:
        """Store one finished game, its full record and its summary, in one transaction."""
        finished_at = time.time()
        summary = encode_summary(summary_of(key, round_number, result, finished_at))
        with self._errors(f"storing game {key}"), self._db:
            self._db.execute(
                INSERT_GAME,
                (
                    key,
                    result.game,
                    round_number,
                    result.seed,
                    _encode(result.players).decode(),
                    _encode(result).decode(),
                    finished_at,
                ),
            )
            self._db.execute(INSERT_SUMMARY, (key, result.game, summary))
        self._check_still_there()

    def add_games(self, games: Iterable[tuple[str, int, MatchResult]]) -> int:
        """Store many finished games (key, round, result) in one transaction: all or none.
        Made for building large databases (benchmarks); a run stores each game alone.
        Returns how many were stored."""
        stored = 0
        rows = iter(games)
        with self._errors("storing games"), self._db:
            while batch := list(itertools.islice(rows, BATCH)):
                finished_at = time.time()
                self._db.executemany(
                    INSERT_GAME,
                    [
                        (key, r.game, n, r.seed, _encode(r.players).decode(),
                         _encode(r).decode(), finished_at)
                        for key, n, r in batch
                    ],
                )  # fmt: skip
                self._db.executemany(
                    INSERT_SUMMARY,
                    [
                        (key, r.game, encode_summary(summary_of(key, n, r, finished_at)))
                        for key, n, r in batch
                    ],
                )
                stored += len(batch)
        return stored

    def _check_still_there(self) -> None:
        """Stop a run whose database was deleted or replaced under it (``rm -r results``
        in another terminal): it would go on storing games in a file nobody can open.
        Its games are written back first, to its name if that is free, else beside it."""
        if self._identity is None or same_file_as(self._identity, self.path):
            return
        rescue = free_name(self.path)
        with self._errors("writing its games back"):
            rescue.parent.mkdir(parents=True, exist_ok=True)
            self._db.execute("VACUUM INTO ?", (str(rescue),))
        how = "deleted" if rescue == self.path else "replaced by another file"
        raise StoreError(
            f"{self.path} was {how} during the run: its {self.count()} games are written"
            f" back to {rescue}"
        )

    def disqualify(self, bot: str, reason: str) -> None:
        """Record that ``bot`` is out of the tournament."""
        with self._errors(f"disqualifying {bot}"), self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO disqualified (bot, reason) VALUES (?, ?)", (bot, reason)
            )

    def add_failed(self, key: str, reason: str) -> None:
        """Record that game ``key`` could not be played (it is not stored; a rerun tries it
        again)."""
        with self._errors(f"recording the failure of game {key}"), self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO failed (key, reason, failed_at) VALUES (?, ?, ?)",
                (key, reason, time.time()),
            )

    def failed(self) -> dict[str, str]:
        """Games recorded as failed and still not stored, with the reason."""
        query = "SELECT key, reason FROM failed WHERE key NOT IN (SELECT key FROM games)"
        with self._errors():
            tables = {row[0] for row in self._db.execute("SELECT name FROM sqlite_master")}
            if "failed" not in tables:  # written before failures were recorded
                return {}
            return dict(self._db.execute(query).fetchall())

    def disqualified(self) -> dict[str, str]:
        """Disqualified bots with the reason."""
        with self._errors():
            return dict(self._db.execute("SELECT bot, reason FROM disqualified").fetchall())

    # A ladder's choices: why each deal was played, for ``goatarena ladder why``. A side
    # table made on first use, so databases of other formats are unchanged.

    def add_ladder_choice(self, deal: str, rule: str, reason: str) -> None:
        """Record why the ladder chose deal ``deal`` (before its games are played)."""
        with self._errors(f"recording the choice of {deal}"), self._db:
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS ladder_choices"
                " (deal TEXT PRIMARY KEY, rule TEXT NOT NULL, reason TEXT NOT NULL,"
                " chosen_at REAL NOT NULL)"
            )
            self._db.execute(
                "INSERT OR REPLACE INTO ladder_choices (deal, rule, reason, chosen_at)"
                " VALUES (?, ?, ?, ?)",
                (deal, rule, reason, time.time()),
            )

    def ladder_choices(self) -> dict[str, tuple[str, str]]:
        """Every recorded ladder choice: deal -> (rule, reason); empty for other formats."""
        with self._errors():
            tables = {row[0] for row in self._db.execute("SELECT name FROM sqlite_master")}
            if "ladder_choices" not in tables:
                return {}
            rows = self._db.execute("SELECT deal, rule, reason FROM ladder_choices").fetchall()
        return {deal: (rule, reason) for deal, rule, reason in rows}


def goatarena_version() -> str:
    """The installed goatarena's version ("0.1.0"), or "unknown" when run from a tree
    that was never installed."""
    try:
        return importlib.metadata.version("goatarena")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def database_files(path: Path) -> list[Path]:
    """The results database ``path`` and the side files SQLite and a run keep beside it."""
    return [path, *(path.with_name(path.name + end) for end in (*SQLITE_SIDE_FILES, ".lock"))]


def open_store(path: Path, *, create: bool = True, busy_timeout_s: float = BUSY_TIMEOUT_S) -> Store:
    """Open a results database: to run into (``create``: made if missing) or to read.

    Opened to read (``create=False``), the file is never created or altered, not even
    by SQLite's side files. A foreign, corrupt, locked or unreadable file is a
    :class:`StoreError` saying which.
    """
    if not create:
        return _open_to_read(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StoreError(f"{path}: cannot create its folder: {error.strerror or error}") from None
    made = False
    try:
        info = path.stat()
    except FileNotFoundError:
        made = True
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
    try:
        info = path.stat()
    except FileNotFoundError:
        raise StoreError(f"{path}: no such results database") from None
    except OSError as error:  # a name too long, a folder we may not enter, ...
        raise StoreError(f"{path}: cannot be read: {error.strerror or error}") from None
    require_regular_file(path, info.st_mode)
    size = info.st_size
    if size == 0:
        raise StoreError(f"{path} is not a goatarena results database (an empty file)")
    wal = path.with_name(path.name + "-wal").exists()
    try:
        try:
            connection = _connect_to_read(path, immutable=not wal)
        except sqlite3.Error as error:
            name = getattr(error, "sqlite_errorname", "")
            if not wal or not name.startswith(("SQLITE_CANTOPEN", "SQLITE_READONLY")):
                raise
            connection = _connect_to_read(path, immutable=True)
    except sqlite3.Error as error:
        raise StoreError(f"{path} {explain_sqlite_error(error, path)}") from None
    return Store(connection, path)


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
