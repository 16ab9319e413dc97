"""The results database: the only module that touches it (SQLite, WAL mode).

Every finished game is one row written in its own transaction, so a game is stored
completely or not at all, and a run killed at any moment loses nothing that finished.
A database belongs to one tournament: the file's fingerprint must match the
configuration that opens it.
"""

from __future__ import annotations

import fcntl
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import msgspec

from goatarena.errors import StoreError
from goatarena.referee.match import MatchResult

APPLICATION = "goatarena"
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    key TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    round INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    players TEXT NOT NULL,
    result TEXT NOT NULL,
    finished_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS disqualified (
    bot TEXT PRIMARY KEY,
    reason TEXT NOT NULL
);
"""


class StoredGame(msgspec.Struct, frozen=True):
    """A finished game as stored: its schedule key, round and the full match result."""

    key: str
    round: int
    result: MatchResult


_encode = msgspec.json.encode
_decode_result = msgspec.json.Decoder(MatchResult).decode


class Store:
    """An open results database. Use :func:`open_store`."""

    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self._db = connection
        self.path = path
        self._lock: IO[str] | None = None

    def close(self) -> None:
        """Close the database (and release the run lock, if held)."""
        self._db.close()
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def lock_for_run(self) -> None:
        """Make sure no other process is running games into this database."""
        lock = open(self.path.with_name(self.path.name + ".lock"), "a")  # noqa: SIM115
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            raise StoreError(f"{self.path} is in use by another goatarena run") from None
        self._lock = lock

    def meta(self, key: str) -> str | None:
        """A metadata value (tournament name, fingerprint, ...)."""
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def claim(self, *, tournament: str, fingerprint: str, config_json: str) -> None:
        """Bind the database to a tournament, or refuse one it does not belong to."""
        stored = self.meta("fingerprint")
        if stored is None:
            with self._db:
                self._db.executemany(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                    [
                        ("tournament", tournament),
                        ("fingerprint", fingerprint),
                        ("config", config_json),
                        ("created_at", str(time.time())),
                    ],
                )
            return
        if stored != fingerprint:
            name = self.meta("tournament") or "?"
            raise StoreError(
                f"{self.path} holds results of tournament {name!r} with another"
                " configuration; pass --db to use another file, or delete this one"
            )

    def update_claim(self, *, fingerprint: str, config_json: str) -> None:
        """Rebind the database to a grown version of its tournament file."""
        with self._db:
            self._db.executemany(
                "UPDATE meta SET value = ? WHERE key = ?",
                [(fingerprint, "fingerprint"), (config_json, "config")],
            )

    def finished_keys(self) -> set[str]:
        """The schedule keys of every stored game."""
        return {row[0] for row in self._db.execute("SELECT key FROM games")}

    def add_game(self, key: str, round_number: int, result: MatchResult) -> None:
        """Store one finished game in its own transaction."""
        with self._db:
            self._db.execute(
                "INSERT INTO games (key, game, round, seed, players, result, finished_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    result.game,
                    round_number,
                    result.seed,
                    _encode(result.players).decode(),
                    _encode(result).decode(),
                    time.time(),
                ),
            )

    def games(self, *, game: str | None = None) -> Iterator[StoredGame]:
        """Every stored game (of one game type when ``game`` is given), in finishing order."""
        query = "SELECT key, round, result FROM games"
        params: tuple[Any, ...] = ()
        if game is not None:
            query += " WHERE game = ?"
            params = (game,)
        for key, round_number, result in self._db.execute(query + " ORDER BY rowid", params):
            yield StoredGame(key=key, round=round_number, result=_decode_result(result))

    def find_game(self, key: str) -> StoredGame:
        """A stored game by its key, or by its 1-based number in finishing order."""
        row = self._db.execute(
            "SELECT key, round, result FROM games WHERE key = ?", (key,)
        ).fetchone()
        if row is None and key.isdigit() and int(key) > 0:
            row = self._db.execute(
                "SELECT key, round, result FROM games ORDER BY rowid LIMIT 1 OFFSET ?",
                (int(key) - 1,),
            ).fetchone()
        if row is None:
            raise StoreError(f"{self.path} has no game {key!r} ({self.count()} games stored)")
        return StoredGame(key=row[0], round=row[1], result=_decode_result(row[2]))

    def count(self) -> int:
        """The number of stored games."""
        return int(self._db.execute("SELECT COUNT(*) FROM games").fetchone()[0])

    def disqualify(self, bot: str, reason: str) -> None:
        """Record that ``bot`` is out of the tournament."""
        with self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO disqualified (bot, reason) VALUES (?, ?)", (bot, reason)
            )

    def disqualified(self) -> dict[str, str]:
        """Disqualified bots with the reason."""
        return dict(self._db.execute("SELECT bot, reason FROM disqualified").fetchall())


def open_store(path: Path, *, create: bool = True) -> Store:
    """Open (or create) a results database; a foreign or corrupt file is a :class:`StoreError`."""
    if not create and not path.exists():
        raise StoreError(f"{path}: no such results database")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(path, timeout=30, isolation_level=None)
    except (OSError, sqlite3.Error) as error:
        raise StoreError(f"{path}: cannot open: {error}") from None
    connection.isolation_level = "DEFERRED"
    try:
        _prepare(connection, path)
    except sqlite3.DatabaseError as error:
        connection.close()
        raise StoreError(f"{path}: not a goatarena results database ({error})") from None
    except StoreError:
        connection.close()
        raise
    return Store(connection, path)


def _prepare(connection: sqlite3.Connection, path: Path) -> None:
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    if tables and "meta" not in tables:
        raise StoreError(f"{path}: not a goatarena results database (foreign tables)")
    if "meta" in tables:
        rows = dict(connection.execute("SELECT key, value FROM meta").fetchall())
        if rows.get("application") != APPLICATION:
            raise StoreError(f"{path}: not a goatarena results database")
        if int(rows.get("schema", 0)) > SCHEMA_VERSION:
            raise StoreError(f"{path}: written by a newer goatarena (schema {rows['schema']})")
    # WAL with synchronous=NORMAL survives a killed process (not a power cut) and keeps
    # commits cheap enough to store every game the moment it ends.
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=NORMAL")
    with connection:
        connection.executescript(_SCHEMA)
        connection.execute(
            "INSERT OR IGNORE INTO meta (key, value) VALUES ('application', ?)", (APPLICATION,)
        )
        connection.execute(
            "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),)
        )
