"""The tables of a results database, and the migration of databases of older versions.

Schema versions:

1. ``meta``, ``games`` (the full record of each game as JSON), ``disqualified``, ``failed``.
2. adds ``summaries``: each game's :class:`~goatarena.store.summary.GameSummary` as
   MessagePack, written in the same transaction as its full record. ``seq`` keeps the
   finishing order (an ``INTEGER PRIMARY KEY``, so ``VACUUM`` never renumbers it).

A database of version 1 is migrated the first time a writer opens it (``run`` into it):
the summaries of its games are derived from their records in one transaction, so a
migration is complete or absent. A reader never alters a file; it reads a version-1
database the slow way instead (every full record), and the command says so in one line.
A version-2 database is refused by goatarena versions that know only version 1, so that
none of them can add a game without its summary.
"""

from __future__ import annotations

import sqlite3

import msgspec

from goatarena.referee.records import MatchResult
from goatarena.store.summary import encode_summary, summary_of

APPLICATION = "goatarena"
SCHEMA_VERSION = 2

TABLES = """
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
CREATE TABLE IF NOT EXISTS failed (
    key TEXT PRIMARY KEY,
    reason TEXT NOT NULL,
    failed_at REAL NOT NULL
);
"""
"""Version 1's tables, as every version since creates them."""

SUMMARIES = """
CREATE TABLE IF NOT EXISTS summaries (
    seq INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    game TEXT NOT NULL,
    summary BLOB NOT NULL
)
"""
"""Version 2's table of per-game summaries."""

INSERT_GAME = (
    "INSERT INTO games (key, game, round, seed, players, result, finished_at)"
    " VALUES (?, ?, ?, ?, ?, ?, ?)"
)
INSERT_SUMMARY = "INSERT INTO summaries (key, game, summary) VALUES (?, ?, ?)"

_MIGRATION_BATCH = 2_000
_decode_result = msgspec.json.Decoder(MatchResult).decode


def stored_version(connection: sqlite3.Connection) -> int:
    """The schema version a database says it has (0 when it says nothing)."""
    row = connection.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    text = "0" if row is None else str(row[0])
    return int(text) if text.isdigit() else 0


def has_summaries(connection: sqlite3.Connection) -> bool:
    """Whether the database keeps a summary of every game (version 2 or later)."""
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
    return "summaries" in tables and stored_version(connection) >= 2


def create_or_migrate(connection: sqlite3.Connection) -> None:
    """Create the tables of a new database, or bring an older one up to this version, in
    one transaction (the caller's ``with connection``)."""
    connection.executescript(TABLES)  # first: it commits what is pending
    connection.execute(
        "INSERT OR IGNORE INTO meta (key, value) VALUES ('application', ?)", (APPLICATION,)
    )
    version = stored_version(connection)
    if version < 2:
        connection.execute(SUMMARIES)
        connection.execute("DELETE FROM summaries")  # left by a migration cut short
        _summarise_every_game(connection)
    connection.execute(
        "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema', ?)",
        (str(max(version, SCHEMA_VERSION)),),
    )


def _summarise_every_game(connection: sqlite3.Connection) -> None:
    """Write the summary of every stored game, in finishing order.

    A record that cannot be decoded gets no summary: readers then report it as damaged
    (they find a game without its summary), as they did before.
    """
    rows = connection.execute("SELECT key, round, result, finished_at FROM games ORDER BY rowid")
    while batch := rows.fetchmany(_MIGRATION_BATCH):
        values = []
        for key, round_number, record, finished_at in batch:
            try:
                result = _decode_result(record)
            except (msgspec.DecodeError, TypeError):
                continue
            summary = summary_of(key, round_number, result, finished_at)
            values.append((key, result.game, encode_summary(summary)))
        connection.executemany(INSERT_SUMMARY, values)
