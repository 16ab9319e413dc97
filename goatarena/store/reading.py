"""Reading a results database: the full records and the summaries, streamed.

:class:`Reading` is the half of :class:`~goatarena.store.database.Store` that reads: every
query fetches its rows a batch at a time, so that a reader of a million games never holds
them all; damaged records and summaries are one :class:`StoreError` naming the game.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec

from goatarena.errors import StoreError
from goatarena.referee.records import MatchResult
from goatarena.store.problems import (
    explain_sqlite_error,
    record_inconsistency,
    summary_inconsistency,
)
from goatarena.store.schema import has_summaries
from goatarena.store.summary import GameSummary, decode_summary, summary_of


class StoredGame(msgspec.Struct, frozen=True):
    """A finished game as stored: its schedule key, round and the full match result."""

    key: str
    round: int
    result: MatchResult


BATCH = 500
"""Rows fetched from SQLite at a time by the readers that stream."""
_decode_result = msgspec.json.Decoder(MatchResult).decode


class Reading:
    """The reading half of a store: its database connection and file, and the readers."""

    _db: sqlite3.Connection
    path: Path
    _summarised: bool | None

    @contextmanager
    def _errors(self, doing: str = "") -> Iterator[None]:
        """Turn any ``sqlite3`` error into a one-line :class:`StoreError` naming the file."""
        try:
            yield
        except sqlite3.Error as error:
            what = f" ({doing})" if doing else ""
            cause = explain_sqlite_error(error, self.path)
            raise StoreError(f"{self.path} {cause}{what}") from None

    def games(self, *, game: str | None = None) -> Iterator[StoredGame]:
        """Every stored game (of one game type when ``game`` is given), in finishing order,
        streamed: one full record decoded at a time."""
        query = "SELECT key, round, result FROM games"
        params: tuple[Any, ...] = ()
        if game is not None:
            query += " WHERE game = ?"
            params = (game,)
        for key, round_number, result in self._rows(query + " ORDER BY rowid", params):
            yield StoredGame(key=key, round=round_number, result=self._decode(key, result))

    def games_with_keys(self, keys: set[str]) -> Iterator[StoredGame]:
        """The stored games of ``keys`` (those that are stored), in finishing order: the
        few full records a report embeds."""
        wanted = sorted(keys)
        found: list[tuple[int, str, int, str]] = []
        for start in range(0, len(wanted), BATCH):  # SQLite caps a query's parameters
            chunk = tuple(wanted[start : start + BATCH])
            marks = ", ".join("?" * len(chunk))
            query = f"SELECT rowid, key, round, result FROM games WHERE key IN ({marks})"
            found.extend(self._rows(query, chunk))
        for _, key, round_number, result in sorted(found):
            yield StoredGame(key=key, round=round_number, result=self._decode(key, result))

    @property
    def has_summaries(self) -> bool:
        """Whether the database keeps a summary of each game; without (a database of an
        older version opened read-only), :meth:`summaries` derives them from the records."""
        if self._summarised is None:
            with self._errors():
                self._summarised = has_summaries(self._db)
        return self._summarised

    def summaries(
        self, *, game: str | None = None, after: int | None = None, upto: int | None = None
    ) -> Iterator[GameSummary]:
        """The summary of every stored game (of one game type when ``game`` is given), in
        finishing order, streamed without reading any move. ``after`` and ``upto`` bound
        the games' places in that order (:meth:`halfway`), in a database with summaries."""
        where, params = ("", ()) if game is None else (" WHERE game = ?", (game,))
        bounds = [(clause, value) for clause, value in (("seq > ?", after), ("seq <= ?", upto))
                  if value is not None]  # fmt: skip
        if bounds and not self.has_summaries:
            raise ValueError("only a database with summaries is read by places")
        if bounds:
            where += (" AND " if where else " WHERE ") + " AND ".join(c for c, _ in bounds)
            params = (*params, *(value for _, value in bounds))
        if not self.has_summaries:
            query = "SELECT key, round, result, finished_at FROM games" + where
            for key, round_number, record, finished_at in self._rows(
                query + " ORDER BY rowid", params
            ):
                yield summary_of(key, round_number, self._decode(key, record), finished_at)
            return
        self._check_summaries_complete()
        query = "SELECT key, summary FROM summaries" + where + " ORDER BY seq"
        for key, packed in self._rows(query, params):
            yield self._decode_summary(key, packed)

    def halfway(self, *, game: str | None = None) -> tuple[int, int]:
        """How many games are stored (of one game type when ``game`` is given), with
        summaries, and the place in finishing order of the one halfway through them (0
        when there are none): ``summaries(upto=`` it ``)`` and ``summaries(after=`` it ``)``
        are the two halves."""
        where, params = ("", ()) if game is None else (" WHERE game = ?", (game,))
        with self._errors():
            (count,) = self._db.execute(f"SELECT COUNT(*) FROM summaries{where}", params).fetchone()
            row = self._db.execute(
                f"SELECT seq FROM summaries{where} ORDER BY seq LIMIT 1 OFFSET ?",
                (*params, max(count // 2 - 1, 0)),
            ).fetchone()
        return int(count), 0 if row is None else int(row[0])

    def _rows(self, query: str, params: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
        """The rows of a query, fetched a batch at a time (never all at once)."""
        with self._errors():
            cursor = self._db.execute(query, params)
        while True:
            with self._errors():
                batch = cursor.fetchmany(BATCH)
            if not batch:
                return
            yield from batch

    def _check_summaries_complete(self) -> None:
        """A game stored without its summary can only be a record damaged before the
        database was migrated (the migration skips what it cannot decode): name it."""
        with self._errors():
            games = self._db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
            summaries = self._db.execute("SELECT COUNT(*) FROM summaries").fetchone()[0]
            if games == summaries:
                return
            row = self._db.execute(
                "SELECT key, result FROM games WHERE key NOT IN (SELECT key FROM summaries)"
                " ORDER BY rowid LIMIT 1"
            ).fetchone()
        if row is not None:
            self._decode(row[0], row[1])  # raises, naming the game
            raise StoreError(f"{self.path} is damaged: game {row[0]} has no summary")

    def _decode_summary(self, key: str, packed: bytes) -> GameSummary:
        try:
            summary = decode_summary(packed)
        except (msgspec.DecodeError, TypeError) as error:
            problem: str | None = str(error)
        else:
            problem = summary_inconsistency(summary)
        if problem is not None:
            raise StoreError(
                f"{self.path} is damaged: the record of game {key} cannot be read ({problem})"
            )
        return summary

    def find_game(self, key: str) -> StoredGame:
        """A stored game by its key, or by its 1-based number in finishing order."""
        with self._errors():
            row = self._db.execute(
                "SELECT key, round, result FROM games WHERE key = ?", (key,)
            ).fetchone()
            if row is None and key.isdigit() and 0 < int(key) < 1 << 62:
                row = self._db.execute(
                    "SELECT key, round, result FROM games ORDER BY rowid LIMIT 1 OFFSET ?",
                    (int(key) - 1,),
                ).fetchone()
        if row is None:
            raise StoreError(self._no_game(key))
        return StoredGame(key=row[0], round=row[1], result=self._decode(row[0], row[2]))

    def _no_game(self, key: str) -> str:
        """Why ``key`` finds no game: a number says where the numbers start and end."""
        count = self.count()
        if not key.isdigit() or count == 0:
            return f"{self.path} has no game {key!r} ({count} games stored)"
        return (
            f"{self.path} has no game number {key}: the games are numbered from 1 to {count}"
            " in finishing order (goatarena list shows them)"
        )

    def _decode(self, key: str, record: str | bytes) -> MatchResult:
        """A stored record, or a :class:`StoreError` naming the game whose record is
        damaged (edited by hand, or written by another program)."""
        try:
            result = _decode_result(record)
        except (msgspec.DecodeError, TypeError) as error:
            problem: str | None = str(error)
        else:
            problem = record_inconsistency(result)
        if problem is not None:
            raise StoreError(
                f"{self.path} is damaged: the record of game {key} cannot be read ({problem})"
            )
        return result

    def count(self) -> int:
        """The number of stored games."""
        with self._errors():
            return int(self._db.execute("SELECT COUNT(*) FROM games").fetchone()[0])
