"""The site's sessions in a competition's database, so that a restart signs no one out.

A session is kept by the SHA-256 hash of its id alone (the id is the cookie: a stolen
database signs no one in), with its entrant, its CSRF token and when it ends (wall-clock
seconds, so that it outlives the process). :class:`SessionTable` is a part of
:class:`~goatarena.store.competition.CompetitionStore`, which holds the connection.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable

import msgspec

TABLE = """
CREATE TABLE IF NOT EXISTS sessions (
    id_hash TEXT PRIMARY KEY,
    entrant INTEGER NOT NULL REFERENCES entrants (id),
    csrf TEXT NOT NULL,
    ends REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_by_entrant ON sessions (entrant, ends);
"""


class StoredSession(msgspec.Struct, frozen=True, kw_only=True):
    """A signed-in session: whose, its CSRF token, when it ends (``time.time()``)."""

    entrant: int
    csrf: str
    ends: float


class SessionTable:
    """The sessions' part of a competition's database."""

    _db: sqlite3.Connection
    _errors: Callable[..., contextlib.AbstractContextManager[None]]

    def add_session(
        self, id_hash: str, session: StoredSession, *, now: float, kept_per_entrant: int
    ) -> None:
        """Keep a new session; drop the ended ones, and the entrant's oldest beyond
        ``kept_per_entrant`` (signing in again and again cannot fill the database)."""
        with self._errors("keeping a session"), self._db:
            self._db.execute("DELETE FROM sessions WHERE ends < ?", (now,))
            self._db.execute(
                "INSERT INTO sessions (id_hash, entrant, csrf, ends) VALUES (?, ?, ?, ?)",
                (id_hash, session.entrant, session.csrf, session.ends),
            )
            self._db.execute(
                "DELETE FROM sessions WHERE entrant = ? AND id_hash NOT IN (SELECT id_hash"
                " FROM sessions WHERE entrant = ? ORDER BY ends DESC, rowid DESC LIMIT ?)",
                (session.entrant, session.entrant, kept_per_entrant),
            )

    def session(self, id_hash: str) -> StoredSession | None:
        """The session kept by that hash, ended or not; None when there is none."""
        with self._errors():
            row = self._db.execute(
                "SELECT entrant, csrf, ends FROM sessions WHERE id_hash = ?", (id_hash,)
            ).fetchone()
        if row is None:
            return None
        return StoredSession(entrant=int(row[0]), csrf=str(row[1]), ends=float(row[2]))

    def delete_session(self, id_hash: str) -> None:
        """End one session (signing out, or found ended)."""
        with self._errors("ending a session"), self._db:
            self._db.execute("DELETE FROM sessions WHERE id_hash = ?", (id_hash,))

    def delete_sessions_of(self, entrant: int) -> None:
        """End every session of ``entrant`` (suspended)."""
        with self._errors("ending sessions"), self._db:
            self._db.execute("DELETE FROM sessions WHERE entrant = ?", (entrant,))

    def session_count(self) -> int:
        """How many sessions are kept, ended ones not yet dropped included."""
        with self._errors():
            return int(self._db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0])
