"""A competition's own database: entrants, submissions, builds and versions.

It lies beside the results database, in the competition's folder (``results/NAME-
competition/competition.sqlite``), so that the ladder's run and its lock are untouched by
the site that takes submissions, and a fresh ladder (``run --fresh``) keeps its entrants.
Like the results database: SQLite in WAL mode, each change one transaction, so a process
killed at any moment loses nothing it acknowledged; every ``sqlite3`` error becomes a
one-line :class:`~goatarena.errors.StoreError`.

Tokens are never stored, only their hashes (the caller hashes: argon2 in
:mod:`goatarena.competition.tokens`).

Schema versions (``meta.schema``):

1. ``entrants``, ``submissions`` (one per upload, with its state, reason, build log and
   the version it became), ``versions``.
2. adds ``submissions.comparison``: how the version compares with the entrant's previous
   one (NULL: not compared). A version-1 database is migrated when it is opened.
3. adds ``sessions`` (:mod:`goatarena.store.competition_sessions`): the site's signed-in
   sessions, by their id's hash. Made when an older database is opened.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import msgspec

from goatarena.errors import StoreError
from goatarena.store.competition_sessions import TABLE as SESSIONS_TABLE
from goatarena.store.competition_sessions import SessionTable
from goatarena.store.problems import explain_sqlite_error

SCHEMA_VERSION = 3
BUSY_TIMEOUT_S = 30.0

TABLES = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entrants (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    token_hash TEXT NOT NULL,
    organiser INTEGER NOT NULL DEFAULT 0,
    suspended TEXT,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY,
    entrant INTEGER NOT NULL REFERENCES entrants (id),
    language TEXT NOT NULL,
    size INTEGER NOT NULL,
    state TEXT NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    build_log TEXT NOT NULL DEFAULT '',
    version TEXT,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS submissions_by_entrant ON submissions (entrant, created_at);
CREATE TABLE IF NOT EXISTS versions (
    name TEXT PRIMARY KEY,
    entrant INTEGER NOT NULL REFERENCES entrants (id),
    submission INTEGER NOT NULL REFERENCES submissions (id),
    command TEXT NOT NULL,
    state TEXT NOT NULL,
    created_at REAL NOT NULL
);
"""

STATES = ("uploaded", "building", "validating", "active", "failed")
"""A submission's course: stored, built, validated, then active in the ladder or failed."""
UNFINISHED = ("uploaded", "building", "validating")
"""The states a submission is resumed from when the server starts again."""


class Entrant(msgspec.Struct, frozen=True, kw_only=True):
    """Someone who submits bots (or the organiser, who sees everything)."""

    id: int
    name: str
    token_hash: str
    organiser: bool
    suspended: str | None


class Submission(msgspec.Struct, frozen=True, kw_only=True):
    """One upload and what became of it."""

    id: int
    entrant: int
    language: str
    size: int
    state: str
    reason: str
    build_log: str
    version: str | None
    created_at: float
    updated_at: float
    comparison: str | None = None


class Version(msgspec.Struct, frozen=True, kw_only=True):
    """A bot in the ladder made from a submission (``NAME@k``)."""

    name: str
    entrant: int
    submission: int
    command: str
    state: str
    created_at: float


class CompetitionStore(SessionTable):
    """An open competition database. Use :func:`open_competition_store`.

    One thread at a time (the site calls it from worker threads, one at a time per call).
    """

    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self._db = connection
        self.path = path

    def close(self) -> None:
        """Close the database."""
        self._db.close()

    @contextlib.contextmanager
    def _errors(self, doing: str = "") -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as error:
            during = f" ({doing})" if doing else ""
            raise StoreError(f"{explain_sqlite_error(error, self.path)}{during}") from None

    # Entrants

    def add_entrant(
        self, name: str, token_hash: Callable[[int], str], *, organiser: bool = False
    ) -> int:
        """A new entrant's number, stored with the hash ``token_hash`` makes of their token
        (given their number) in the same transaction; StoreError if the name is taken."""
        with self._errors("adding an entrant"), self._db:
            taken = self._db.execute("SELECT 1 FROM entrants WHERE name = ?", (name,)).fetchone()
            if taken:
                raise StoreError(f"an entrant named {name!r} exists already")
            cursor = self._db.execute(
                "INSERT INTO entrants (name, token_hash, organiser, created_at)"
                " VALUES (?, '', ?, ?)",
                (name, int(organiser), time.time()),
            )
            number = cursor.lastrowid
            assert number is not None
            self._db.execute(
                "UPDATE entrants SET token_hash = ? WHERE id = ?", (token_hash(number), number)
            )
        return number

    def entrant(self, number: int) -> Entrant | None:
        """Entrant ``number``, or None."""
        with self._errors():
            row = self._db.execute(
                "SELECT id, name, token_hash, organiser, suspended FROM entrants WHERE id = ?",
                (number,),
            ).fetchone()
        return None if row is None else _entrant(row)

    def entrant_named(self, name: str) -> Entrant | None:
        """The entrant called ``name``, or None."""
        with self._errors():
            row = self._db.execute(
                "SELECT id, name, token_hash, organiser, suspended FROM entrants WHERE name = ?",
                (name,),
            ).fetchone()
        return None if row is None else _entrant(row)

    def entrants(self) -> list[Entrant]:
        """Every entrant, the organisers too, in the order they were added."""
        with self._errors():
            rows = self._db.execute(
                "SELECT id, name, token_hash, organiser, suspended FROM entrants ORDER BY id"
            ).fetchall()
        return [_entrant(row) for row in rows]

    def set_suspended(self, number: int, reason: str | None) -> None:
        """Suspend entrant ``number`` with ``reason``, or reinstate them (None)."""
        with self._errors("suspending an entrant"), self._db:
            self._db.execute("UPDATE entrants SET suspended = ? WHERE id = ?", (reason, number))

    # Submissions

    def add_submission(self, entrant: int, language: str, size: int) -> int:
        """Record an upload (its archive is already in place); its number."""
        now = time.time()
        with self._errors("storing a submission"), self._db:
            cursor = self._db.execute(
                "INSERT INTO submissions (entrant, language, size, state, created_at, updated_at)"
                " VALUES (?, ?, ?, 'uploaded', ?, ?)",
                (entrant, language, size, now, now),
            )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def next_submission_number(self) -> int:
        """The number the next submission will get (its archive is named by it first)."""
        with self._errors():
            row = self._db.execute("SELECT COALESCE(MAX(id), 0) + 1 FROM submissions").fetchone()
        return int(row[0])

    def set_state(
        self,
        number: int,
        state: str,
        *,
        reason: str | None = None,
        build_log: str | None = None,
        version: str | None = None,
    ) -> None:
        """Move submission ``number`` on to ``state``, keeping what is given with it."""
        if state not in STATES:
            raise ValueError(f"unknown submission state {state!r}")
        sets = ["state = ?", "updated_at = ?"]
        values: list[object] = [state, time.time()]
        for column, value in (("reason", reason), ("build_log", build_log), ("version", version)):
            if value is not None:
                sets.append(f"{column} = ?")
                values.append(value)
        with self._errors("updating a submission"), self._db:
            self._db.execute(
                f"UPDATE submissions SET {', '.join(sets)} WHERE id = ?", (*values, number)
            )

    def submission(self, number: int) -> Submission | None:
        """Submission ``number``, or None."""
        with self._errors():
            row = self._db.execute(f"{_SUBMISSION} WHERE id = ?", (number,)).fetchone()
        return None if row is None else Submission(**dict(zip(_SUBMISSION_FIELDS, row)))

    def submissions_of(self, entrant: int) -> list[Submission]:
        """Entrant ``entrant``'s submissions, newest first."""
        with self._errors():
            rows = self._db.execute(
                f"{_SUBMISSION} WHERE entrant = ? ORDER BY id DESC", (entrant,)
            ).fetchall()
        return [Submission(**dict(zip(_SUBMISSION_FIELDS, row))) for row in rows]

    def unfinished(self) -> list[Submission]:
        """Submissions a server stopped before they were built and validated, oldest first."""
        marks = ", ".join("?" for _ in UNFINISHED)
        with self._errors():
            rows = self._db.execute(
                f"{_SUBMISSION} WHERE state IN ({marks}) ORDER BY id", UNFINISHED
            ).fetchall()
        return [Submission(**dict(zip(_SUBMISSION_FIELDS, row))) for row in rows]

    def submitted_since(self, entrant: int, since: float) -> int:
        """How many submissions entrant ``entrant`` made since ``since`` (a time stamp)."""
        with self._errors():
            row = self._db.execute(
                "SELECT COUNT(*) FROM submissions WHERE entrant = ? AND created_at >= ?",
                (entrant, since),
            ).fetchone()
        return int(row[0])

    def set_comparison(self, number: int, text: str) -> None:
        """Keep how submission ``number``'s version compares with the one before."""
        with self._errors("keeping a comparison"), self._db:
            self._db.execute("UPDATE submissions SET comparison = ? WHERE id = ?", (text, number))

    def comparisons_left(self) -> list[Submission]:
        """Active submissions whose comparison a stop cut short (resumed on start)."""
        with self._errors():
            rows = self._db.execute(
                f"{_SUBMISSION} WHERE state = 'active' AND comparison LIKE 'comparing%' ORDER BY id"
            ).fetchall()
        return [Submission(**dict(zip(_SUBMISSION_FIELDS, row))) for row in rows]

    # Versions

    def add_version(
        self, name: str, entrant: int, submission: int, command: str, *, comparing: str = ""
    ) -> None:
        """Record ``name`` as an active version, and its submission as active, at once;
        with ``comparing`` (``comparing with NAME@k``) its comparison is due from then on,
        so a stop before it begins leaves it to be played when the server starts again."""
        now = time.time()
        with self._errors("adding a version"), self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO versions"
                " (name, entrant, submission, command, state, created_at)"
                " VALUES (?, ?, ?, ?, 'active', ?)",
                (name, entrant, submission, command, now),
            )
            self._db.execute(
                "UPDATE submissions SET state = 'active', version = ?, updated_at = ?,"
                " comparison = COALESCE(NULLIF(?, ''), comparison) WHERE id = ?",
                (name, now, comparing, submission),
            )

    def set_version_state(self, name: str, state: str) -> None:
        """Mark version ``name`` active, retired or suspended."""
        with self._errors("updating a version"), self._db:
            self._db.execute("UPDATE versions SET state = ? WHERE name = ?", (state, name))

    def version(self, name: str) -> Version | None:
        """Version ``name``, or None (a bot no entrant submitted)."""
        with self._errors():
            row = self._db.execute(f"{_VERSION} WHERE name = ?", (name,)).fetchone()
        return None if row is None else Version(**dict(zip(_VERSION_FIELDS, row)))

    def versions(self) -> list[Version]:
        """Every entrant's versions, oldest first."""
        with self._errors():
            rows = self._db.execute(f"{_VERSION} ORDER BY created_at, name").fetchall()
        return [Version(**dict(zip(_VERSION_FIELDS, row))) for row in rows]

    def set_versions_states(self, states: dict[str, str]) -> None:
        """Set the state of each version named in ``states``, in one transaction."""
        with self._errors("updating versions"), self._db:
            self._db.executemany(
                "UPDATE versions SET state = ? WHERE name = ?",
                [(state, name) for name, state in states.items()],
            )

    def uploads_closed(self) -> str | None:
        """Why the organiser closed uploads (from the site), or None while they are open."""
        with self._errors():
            row = self._db.execute("SELECT value FROM meta WHERE key = 'closed'").fetchone()
        return None if row is None else str(row[0])

    def set_uploads_closed(self, reason: str | None) -> None:
        """Close uploads, saying why, or open them again (None)."""
        with self._errors("closing uploads"), self._db:
            if reason is None:
                self._db.execute("DELETE FROM meta WHERE key = 'closed'")
            else:
                self._db.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES ('closed', ?)", (reason,)
                )

    def versions_of(self, entrant: int) -> list[Version]:
        """Entrant ``entrant``'s versions, oldest first."""
        with self._errors():
            rows = self._db.execute(
                f"{_VERSION} WHERE entrant = ? ORDER BY created_at, name", (entrant,)
            ).fetchall()
        return [Version(**dict(zip(_VERSION_FIELDS, row))) for row in rows]


_SUBMISSION_FIELDS = tuple(Submission.__struct_fields__)
_SUBMISSION = f"SELECT {', '.join(_SUBMISSION_FIELDS)} FROM submissions"
_VERSION_FIELDS = tuple(Version.__struct_fields__)
_VERSION = f"SELECT {', '.join(_VERSION_FIELDS)} FROM versions"


def _entrant(row: tuple[object, ...]) -> Entrant:
    number, name, token_hash, organiser, suspended = row
    return Entrant(
        id=int(str(number)),
        name=str(name),
        token_hash=str(token_hash),
        organiser=bool(organiser),
        suspended=None if suspended is None else str(suspended),
    )


def _add_comparison(connection: sqlite3.Connection) -> None:
    """Version 2: the comparison of each version with the one before."""
    columns = {row[1] for row in connection.execute("PRAGMA table_info(submissions)")}
    if "comparison" not in columns:
        connection.execute("ALTER TABLE submissions ADD COLUMN comparison TEXT")


def open_competition_store(path: Path) -> CompetitionStore:
    """Open (making it, and its folder, if need be) the competition database at ``path``.

    The folder is the runner's alone (0700): bots never see it, nor other entrants' files.
    """
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, check_same_thread=False)
    except (OSError, sqlite3.Error) as error:
        raise StoreError(f"{path}: cannot open the competition database: {error}") from None
    store = CompetitionStore(connection, path)
    try:
        with store._errors("preparing it"):
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            connection.execute("PRAGMA foreign_keys=ON")
            with connection:
                connection.executescript(TABLES + SESSIONS_TABLE)
                row = connection.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
                version = int(row[0]) if row and str(row[0]).isdigit() else 0
                if version > SCHEMA_VERSION:
                    raise StoreError(
                        f"{path} was written by a newer goatarena (competition schema {version})"
                    )
                if version < 2:
                    _add_comparison(connection)
                connection.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema', ?)",
                    (str(SCHEMA_VERSION),),
                )
        path.chmod(0o600)
    except BaseException:
        connection.close()
        raise
    return store
