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
from collections.abc import Iterable
from pathlib import Path
from typing import IO

import msgspec

from goatarena.errors import StoreError
from goatarena.referee.records import MatchResult
from goatarena.store.lock import HeldElsewhere, lock_identity
from goatarena.store.problems import (
    explain_sqlite_error,
    free_name,
    same_file_as,
)
from goatarena.store.reading import BATCH, Reading, StoredGame
from goatarena.store.schema import (
    INSERT_GAME,
    INSERT_SUMMARY,
)
from goatarena.store.summary import encode_summary, summary_of

__all__ = ["BUSY_TIMEOUT_S", "Store", "StoredGame", "explain_sqlite_error"]

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
            # Readable by the runner alone, as the database is (bots never see it).
            lock = os.fdopen(os.open(lock_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600), "a")
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
