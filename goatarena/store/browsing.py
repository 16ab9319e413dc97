"""Reading a results database by the games' numbers: what a site that follows a running
tournament asks of it.

A game's number is its place in finishing order: the ``seq`` of its summary, 1 for the
first game stored (the numbers ``goatarena list`` and ``replay`` show). These readers
need the summaries (a database of version 2 or later): they stream the games stored
after a number (:func:`numbered_summaries`), fetch the summaries of a page of numbers
(:func:`summaries_numbered`) and one game's full record (:func:`record_numbered`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from goatarena.errors import StoreError
from goatarena.store.database import Store
from goatarena.store.opening import connect_to_read, require_readable_file
from goatarena.store.reading import BATCH, Reading, StoredGame
from goatarena.store.summary import GameSummary


def require_summaries(store: Reading) -> None:
    """Refuse, in one line, a database of an older version (no summaries to page by)."""
    if not store.has_summaries:
        raise StoreError(
            f"{store.path} is from an older goatarena and has no game summaries; run into"
            " it once with this version (goatarena run) to add them"
        )


def numbered_summaries(store: Reading, *, after: int = 0) -> Iterator[tuple[int, GameSummary]]:
    """Every game stored after number ``after``, with its number, in finishing order,
    streamed a batch at a time."""
    query = "SELECT seq, key, summary FROM summaries WHERE seq > ? ORDER BY seq"
    for number, key, packed in store._rows(query, (after,)):
        yield int(number), store._decode_summary(key, packed)


def summaries_numbered(store: Reading, numbers: Sequence[int]) -> list[tuple[int, GameSummary]]:
    """The summaries of the games ``numbers`` that are stored, in the order asked."""
    found: dict[int, GameSummary] = {}
    for start in range(0, len(numbers), BATCH):  # SQLite caps a query's parameters
        chunk = tuple(numbers[start : start + BATCH])
        marks = ", ".join("?" * len(chunk))
        query = f"SELECT seq, key, summary FROM summaries WHERE seq IN ({marks})"
        for number, key, packed in store._rows(query, chunk):
            found[int(number)] = store._decode_summary(key, packed)
    return [(number, found[number]) for number in numbers if number in found]


def record_numbered(store: Reading, number: int) -> StoredGame | None:
    """The full record of game ``number``, or None when there is no such game."""
    query = (
        "SELECT games.key, games.round, games.result FROM summaries"
        " JOIN games ON games.key = summaries.key WHERE summaries.seq = ?"
    )
    with store._errors():
        row = store._db.execute(query, (number,)).fetchone()
    if row is None:
        return None
    return StoredGame(key=row[0], round=row[1], result=store._decode(row[0], row[2]))


def ladder_choices_of(store: Reading, deals: Sequence[str]) -> dict[str, tuple[str, str]]:
    """Why a ladder chose each of ``deals`` (its rule and reason), for those it chose."""
    with store._errors():
        found = store._db.execute(
            "SELECT name FROM sqlite_master WHERE name = 'ladder_choices'"
        ).fetchone()
    if found is None:
        return {}
    chosen: dict[str, tuple[str, str]] = {}
    unique = sorted(set(deals))
    for start in range(0, len(unique), BATCH):  # SQLite caps a query's parameters
        chunk = tuple(unique[start : start + BATCH])
        marks = ", ".join("?" * len(chunk))
        query = f"SELECT deal, rule, reason FROM ladder_choices WHERE deal IN ({marks})"
        for deal, rule, reason in store._rows(query, chunk):
            chosen[str(deal)] = (str(rule), str(reason))
    return chosen


def newest_number(store: Reading) -> int:
    """The number of the last game stored (0 when there is none)."""
    with store._errors():
        row = store._db.execute("SELECT MAX(seq) FROM summaries").fetchone()
    return 0 if row is None or row[0] is None else int(row[0])


def open_to_follow(path: Path) -> Store:
    """Open ``path`` read-only to follow a run that may be writing it (or start writing
    later): unlike :func:`~goatarena.store.opening.open_store`'s readers, never as an
    immutable file, whose reader would not see the games stored after it opened. Where
    SQLite's side files cannot be made (a read-only folder), nothing can write the
    database either, and it is read as immutable."""
    require_readable_file(path)  # every check, once, and one clear line on a failure
    return Store(connect_to_read(path, immutable=False), path)
