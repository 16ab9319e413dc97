"""The results database under failure: locked, full, read-only, foreign, corrupt, linked.

A failing store stops a run in one line naming the cause and the file, keeps every game
stored before, and the game it could not store is played on resume. Readers never
create or alter a file.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import msgspec
import pytest
import trio
from click.testing import CliRunner

from goatarena.cli import main
from goatarena.errors import StoreError
from goatarena.formats.tournament_file import load_config
from goatarena.running.runner import Runner
from goatarena.store import opening as store_module
from goatarena.store import problems as store_problems
from goatarena.store.database import explain_sqlite_error
from goatarena.store.opening import open_store, put_database_aside
from tests.helpers import RANDOM_BOT
from tests.test_replay import finished_game
from tests.test_tournament import write_config


def run_tournament(config_path: Path, db: Path, **store_options) -> tuple[Runner, list[str]]:
    """Run (or resume) a tournament into ``db``; the runner and the stored keys after."""
    store = open_store(db, **store_options)
    try:
        runner = Runner(load_config(config_path), store)
        try:
            trio.run(runner.run)
        finally:
            keys = sorted(store.finished_keys())
    finally:
        store.close()
    return runner, keys


def hold_lock(
    db: Path,
    seconds: float,
    *,
    taken: threading.Event,
    release: threading.Event | None = None,
) -> threading.Thread:
    """Another process's writer: an exclusive transaction on ``db`` for ``seconds``, or
    until ``release`` is set when one is given (``seconds`` then only bounds the wait)."""

    def hold() -> None:
        connection = sqlite3.connect(db, isolation_level=None)
        connection.execute("BEGIN EXCLUSIVE")
        taken.set()
        if release is None:
            time.sleep(seconds)
        else:
            release.wait(seconds)
        connection.execute("COMMIT")
        connection.close()

    thread = threading.Thread(target=hold)
    thread.start()
    return thread


def test_a_database_locked_at_start_is_said_to_be_locked(tmp_path):
    db = tmp_path / "t.sqlite"
    open_store(db).close()
    taken = threading.Event()
    holder = hold_lock(db, 1.0, taken=taken)
    taken.wait()
    with pytest.raises(StoreError) as caught:
        open_store(db, busy_timeout_s=0.1)
    holder.join()
    assert str(caught.value) == f"{db} is locked by another process"


def test_a_database_locked_mid_run_stops_it_in_one_line_and_resume_completes_it(tmp_path):
    config = load_config(write_config(tmp_path / "t.toml", extra="deals = 2"))
    db = tmp_path / "t.sqlite"
    store = open_store(db, busy_timeout_s=0.2)
    store.claim(tournament="t", fingerprint=config.fingerprint(), config_json="{}")
    taken, release = threading.Event(), threading.Event()
    # Held until the run has given up, however slowly a loaded machine starts its bots.
    holder = hold_lock(db, 120.0, taken=taken, release=release)
    taken.wait()
    try:
        with pytest.raises(BaseException) as caught:
            trio.run(Runner(config, store).run)
    finally:
        release.set()
        store.close()
        holder.join()
    error = caught.value
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    assert isinstance(error, StoreError)
    assert str(error).startswith(f"{db} is locked by another process (storing game 0.")
    assert "run the same command again to resume" in str(error)
    assert "\n" not in str(error)
    _, keys = run_tournament(tmp_path / "t.toml", db)
    assert len(keys) == 12  # 3 pairs x 2 deals x 2 seatings, each stored once


def test_a_lock_held_for_a_while_does_not_freeze_the_games(tmp_path):
    """Writes wait for the lock in a worker thread: the games go on meanwhile, and the
    event loop that plays them never waits for the disk."""
    # One referee, in the runner's own event loop: the loop a blocking write would freeze.
    config = write_config(tmp_path / "t.toml", extra="deals = 2", concurrency=1)
    config.write_text(config.read_text().replace("move_ms = 2000", "move_ms = 300"))
    db = tmp_path / "t.sqlite"
    # Opened and bound first, so that the run's first write is a game's.
    store = open_store(db, busy_timeout_s=20)
    store.claim(tournament="t", fingerprint=load_config(config).fingerprint(), config_json="{}")
    taken, release = threading.Event(), threading.Event()
    holder = hold_lock(db, 120.0, taken=taken, release=release)
    taken.wait()
    add_game = store.add_game
    writes: list[str] = []

    def add_game_after_the_lock(key, *args):
        # The first write meets the lock, held 1.5 s more, however late the write comes.
        if not writes:
            threading.Timer(1.5, release.set).start()
        writes.append(key)
        add_game(key, *args)

    store.add_game = add_game_after_the_lock  # type: ignore[method-assign]
    runner = Runner(load_config(config), store)
    gaps: list[float] = []

    async def run_and_watch_the_loop() -> None:
        async with trio.open_nursery() as nursery:

            async def watch() -> None:
                last = trio.current_time()
                while True:
                    await trio.sleep(0.01)
                    now = trio.current_time()
                    gaps.append(now - last)
                    last = now

            nursery.start_soon(watch)
            await runner.run()
            nursery.cancel_scope.cancel()

    try:
        trio.run(run_and_watch_the_loop)
    finally:
        release.set()
        holder.join()
    results = [stored.result for stored in store.games()]
    store.close()
    assert len(results) == 12
    assert all(violation is None for result in results for violation in result.violations)
    assert max(gaps) < 0.6  # a write on the loop would have stopped it for 1.5 s


def test_a_full_disk_stops_the_run_keeping_what_was_stored(tmp_path):
    config = write_config(tmp_path / "t.toml", extra="deals = 2", concurrency=1)
    db = tmp_path / "t.sqlite"
    store = open_store(db)
    store.add_game("earlier", 0, finished_game("mountain-goats", 2, seed=1))
    # SQLite's own page limit fails a write as a full disk would (SQLITE_FULL).
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count = {pages}")
    runner = Runner(load_config(config), store)
    with pytest.raises(BaseException) as caught:
        trio.run(runner.run)
    store.close()
    error = caught.value
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    assert isinstance(error, StoreError)
    assert "the disk is full" in str(error) and str(db) in str(error)
    reader = open_store(db, create=False)
    assert reader.finished_keys() == {"earlier"}
    reader.close()


def test_a_read_only_database_is_told_apart(tmp_path):
    db = tmp_path / "t.sqlite"
    open_store(db).close()
    reader = open_store(db, create=False)
    with pytest.raises(StoreError, match="is read-only"):
        reader.add_game("k", 0, finished_game("mountain-goats", 2, seed=1))
    reader.close()


def test_the_run_lock_follows_the_file_through_a_symlink(tmp_path):
    db = tmp_path / "t.sqlite"
    link = tmp_path / "link.sqlite"
    first = open_store(db)
    first.lock_for_run()
    link.symlink_to(db)
    second = open_store(link)
    with pytest.raises(StoreError, match="in use by another goatarena run"):
        second.lock_for_run()
    second.close()
    first.close()


HOLD_RUN_LOCK = """
import sys
from pathlib import Path
from goatarena.store.opening import open_store
store = open_store(Path(sys.argv[1]))
store.lock_for_run()
print("locked", flush=True)
sys.stdin.read()
store.close()
"""


@pytest.mark.skipif(not hasattr(fcntl, "F_OFD_SETLK"), reason="needs open-file-description locks")
def test_the_run_lock_follows_the_file_through_a_hard_link(tmp_path):
    """A hard link in another folder resolves to another path, yet is the same file: a
    second runner through it would write the database through a second WAL file."""
    db = tmp_path / "t.sqlite"
    (tmp_path / "elsewhere").mkdir()
    link = tmp_path / "elsewhere" / "t.sqlite"
    open_store(db).close()
    os.link(db, link)
    # The first run is another process, as it would be (SQLite refuses to open one file
    # under two names in one process).
    first = subprocess.Popen(
        [sys.executable, "-c", HOLD_RUN_LOCK, str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert first.stdout is not None and first.stdout.readline() == "locked\n"
        second = open_store(link)
        with pytest.raises(StoreError, match="in use by another goatarena run"):
            second.lock_for_run()
        second.close()
    finally:
        first.communicate("", timeout=30)
    assert first.returncode == 0
    free = open_store(link)
    free.lock_for_run()  # free again once the first run is over
    free.close()


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file of ``folder`` with its size and modification time."""
    return {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir()}


def write_foreign(path: Path) -> None:
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE people (name TEXT)")


def write_corrupt(path: Path) -> None:
    store = open_store(path)
    for number in range(40):
        store.add_game(f"g{number}", 0, finished_game("mountain-goats", 2, seed=number))
    store.close()
    data = bytearray(path.read_bytes())
    data[100:120] = b"\xa5" * 20  # the schema's b-tree page header, past the file header
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda path: path.write_bytes(b""), "is not a goatarena results database (an empty file)"),
        (lambda path: path.write_bytes(b"hello" * 500), "not an SQLite file"),
        (write_foreign, "is not a goatarena results database (foreign tables)"),
        (write_corrupt, "is corrupt"),
    ],
    ids=["empty", "junk", "foreign", "corrupt"],
)
@pytest.mark.parametrize("command", ["standings", "replay"])
def test_readers_tell_what_is_wrong_and_never_alter_the_file(tmp_path, make, message, command):
    db = tmp_path / "x.sqlite"
    make(db)
    before = snapshot(tmp_path)
    args = [command, "--db", str(db)] + (["1"] if command == "replay" else [])
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert message in result.output and len(result.output.strip().splitlines()) == 1
    assert snapshot(tmp_path) == before


def test_readers_of_a_good_database_leave_no_file_behind(tmp_path):
    db = tmp_path / "t.sqlite"
    store = open_store(db)
    store.add_game("g/one", 1, finished_game("mountain-goats", 2, seed=5))
    store.close()
    before = snapshot(tmp_path)
    for args in (["standings"], ["replay", "1"]):
        result = CliRunner().invoke(main, [*args, "--db", str(db)])
        assert result.exit_code == 0, result.output
    assert snapshot(tmp_path) == before


def test_a_reader_sees_the_games_of_a_run_that_is_still_writing(tmp_path):
    db = tmp_path / "t.sqlite"
    writer = open_store(db)
    writer.add_game("g/one", 1, finished_game("mountain-goats", 2, seed=5))
    reader = open_store(db, create=False)
    writer.add_game("g/two", 1, finished_game("mountain-goats", 2, seed=6))
    assert reader.count() == 2
    reader.close()
    writer.close()


def test_a_command_that_cannot_start_is_never_asked_to_write(tmp_path):
    """A bot that cannot run is a bot problem, not a store one: the store stays usable."""
    config = write_config(tmp_path / "t.toml", bots={"a": RANDOM_BOT, "b": "/no/such/bot"})
    _, keys = run_tournament(config, tmp_path / "t.sqlite")
    assert len(keys) == 2


def test_a_run_lock_that_cannot_be_made_is_one_line_even_with_fresh(tmp_path):
    # A lock file that cannot be opened (here a folder in its place; a read-only folder
    # does the same for a user without root) stops `run --fresh` before anything moves.
    config = write_config(tmp_path / "t.toml", bots={"a": RANDOM_BOT, "b": RANDOM_BOT})
    db = tmp_path / "t.sqlite"
    open_store(db).close()
    (tmp_path / "t.sqlite.lock").mkdir()
    result = CliRunner().invoke(main, ["run", str(config), "--db", str(db), "--fresh"])
    assert result.exit_code == 2, result.output
    assert "cannot be locked for a run" in result.output
    assert "Traceback" not in result.output
    assert db.exists()  # nothing was put aside


@pytest.mark.parametrize(
    "command",
    [["list"], ["standings"], ["export"], ["run", "CONFIG"], ["run", "CONFIG", "--fresh"]],
)
def test_a_database_name_too_long_for_the_file_system_is_one_line(tmp_path, command):
    config = write_config(tmp_path / "t.toml", bots={"a": RANDOM_BOT, "b": RANDOM_BOT})
    db = tmp_path / ("x" * 300 + ".sqlite")
    args = [str(config) if word == "CONFIG" else word for word in command]
    result = CliRunner().invoke(main, [*args, "--db", str(db)])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("goatarena: error: ") and "File name too long" in result.output
    assert "Traceback" not in result.output


def write_meta_of_another_shape(path: Path) -> None:
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE meta (name TEXT, size INTEGER)")


def damage_record(path: Path, change, change_summary) -> None:
    """A good database of three games whose second record (and its summary, the way a
    hand edit of the whole row would) is then edited by ``change`` and ``change_summary``."""
    store = open_store(path)
    for number in range(3):
        store.add_game(f"g/{number}", 0, finished_game("mountain-goats", 2, seed=number))
    store.close()
    with sqlite3.connect(path) as connection:
        (record,) = connection.execute("SELECT result FROM games WHERE key = 'g/1'").fetchone()
        connection.execute("UPDATE games SET result = ? WHERE key = 'g/1'", (change(record),))
        (summary,) = connection.execute(
            "SELECT summary FROM summaries WHERE key = 'g/1'"
        ).fetchone()
        connection.execute(
            "UPDATE summaries SET summary = ? WHERE key = 'g/1'", (change_summary(summary),)
        )


def cut_ranks(record: str) -> str:
    data = json.loads(record)
    data["ranks"] = data["ranks"][:1]
    return json.dumps(data)


def cut_summary_ranks(summary: bytes) -> bytes:
    fields = msgspec.msgpack.decode(summary)
    fields[5] = fields[5][:1]  # the ranks
    return msgspec.msgpack.encode(fields)


SUMMARY_READERS = {"standings", "list", "report"}
"""The commands that read the games' summaries (the others, their full records)."""


@pytest.mark.parametrize(
    ("change", "change_summary", "cause", "summary_cause"),
    [
        (
            lambda record: record[: len(record) // 2],
            lambda summary: summary[: len(summary) // 2],
            "Input data was truncated",
            "Input data was truncated",
        ),
        (
            lambda record: '{"game": "mountain-goats"}',
            lambda summary: msgspec.msgpack.encode(["g/1"]),
            "missing required field",
            "Expected `array` of at least length",
        ),
        (cut_ranks, cut_summary_ranks, "1 ranks for 2 players", "1 ranks for 2 players"),
    ],
    ids=["cut-short", "fields-missing", "seats-do-not-add-up"],
)
@pytest.mark.parametrize(
    "command",
    [["standings"], ["list"], ["export"], ["replay", "2"], ["report", "-o", "r.html"]],
    ids=lambda args: args[0],
)
def test_a_damaged_record_is_one_line_naming_the_game(
    tmp_path, monkeypatch, change, change_summary, cause, summary_cause, command
):
    monkeypatch.chdir(tmp_path)
    db = tmp_path / "x.sqlite"
    damage_record(db, change, change_summary)
    result = CliRunner().invoke(main, [*command, "--db", str(db)])
    assert result.exit_code == 2, result.output
    # export may have written the records before the damaged one to its standard output
    (error,) = [line for line in result.output.splitlines() if line.startswith("goatarena:")]
    assert error.startswith(f"goatarena: error: {db} is damaged: the record of game g/1")
    assert (summary_cause if command[0] in SUMMARY_READERS else cause) in error
    assert "Traceback" not in result.output
    assert not (tmp_path / "r.html").exists()


def test_a_damaged_record_of_a_database_before_summaries_is_named_by_its_readers(tmp_path):
    """A record that could not be summarised when its database was migrated is named by
    the readers of summaries, as before."""
    db = tmp_path / "x.sqlite"
    damage_record(db, cut_ranks, lambda summary: summary)
    with sqlite3.connect(db) as connection:
        connection.execute("DELETE FROM summaries WHERE key = 'g/1'")
    for command in (["standings"], ["list"]):
        result = CliRunner().invoke(main, [*command, "--db", str(db)])
        assert result.exit_code == 2, result.output
        assert result.output.startswith(
            f"goatarena: error: {db} is damaged: the record of game g/1"
        )
        assert "1 ranks for 2 players" in result.output


def test_a_table_called_meta_of_another_program_is_a_foreign_database(tmp_path):
    db = tmp_path / "x.sqlite"
    write_meta_of_another_shape(db)
    config = write_config(tmp_path / "t.toml", bots={"a": RANDOM_BOT, "b": RANDOM_BOT})
    for command in (["standings"], ["run", str(config), "--sandbox", "none"]):
        result = CliRunner().invoke(main, [*command, "--db", str(db)])
        assert result.exit_code == 2
        assert "is not a goatarena results database (foreign tables)" in result.output


@pytest.mark.parametrize("kind", ["device", "named pipe"])
def test_a_database_that_is_not_a_plain_file_is_refused_untouched(tmp_path, kind):
    # SQLite would open /dev/null (and make /dev/null-journal) or block on a FIFO forever.
    if kind == "device":
        db = Path(os.devnull)
    else:
        db = tmp_path / "pipe.sqlite"
        os.mkfifo(db)
    config = write_config(tmp_path / "t.toml", bots={"a": RANDOM_BOT, "b": RANDOM_BOT})
    before = snapshot(tmp_path)
    for command in (["standings"], ["run", str(config), "--sandbox", "none"]):
        result = CliRunner().invoke(main, [*command, "--db", str(db)])
        assert result.exit_code == 2
        assert (
            result.output
            == f"goatarena: error: {db} is not a goatarena results database (a {kind})\n"
        )
    assert snapshot(tmp_path) == before
    assert not Path(f"{db}-journal").exists()


def test_a_link_into_a_folder_that_does_not_exist_is_said_so(tmp_path):
    db = tmp_path / "t.sqlite"
    db.symlink_to(tmp_path / "nowhere" / "t.sqlite")
    with pytest.raises(StoreError, match="cannot be opened: the folder .*nowhere does not exist"):
        open_store(db)
    assert not (tmp_path / "nowhere").exists()


def sqlite_error(name: str, message: str) -> sqlite3.OperationalError:
    error = sqlite3.OperationalError(message)
    error.sqlite_errorname = name
    return error


def test_a_disk_io_error_on_a_full_disk_is_said_to_be_a_full_disk(tmp_path, monkeypatch):
    # SQLite says "disk I/O error" when it cannot grow its shared-memory file.
    error = sqlite_error("SQLITE_IOERR_SHMSIZE", "disk I/O error")
    db = tmp_path / "t.sqlite"
    assert explain_sqlite_error(error, db) == "cannot be read or written: disk I/O error"
    full = os.statvfs_result((4096, 4096, 100, 0, 0, 100, 0, 0, 0, 255))
    monkeypatch.setattr(store_problems.os, "statvfs", lambda path: full)
    assert explain_sqlite_error(error, db) == "cannot be written: the disk is full"


def test_a_database_that_could_not_be_made_is_not_left_behind_empty(tmp_path, monkeypatch):
    def fail(connection, path):
        raise sqlite_error("SQLITE_FULL", "database or disk is full")

    monkeypatch.setattr(store_module, "_prepare", fail)
    with pytest.raises(StoreError, match="cannot be written: the disk is full"):
        open_store(tmp_path / "t.sqlite")
    assert list(tmp_path.iterdir()) == []


def test_databases_put_aside_in_the_same_second_each_keep_their_games(tmp_path, monkeypatch):
    monkeypatch.setattr(store_module.time, "strftime", lambda *args: "20260101T000000")
    db = tmp_path / "t.sqlite"
    asides = []
    for number in range(3):
        store = open_store(db)
        store.add_game(f"g/{number}", 0, finished_game("mountain-goats", 2, seed=number))
        store.close()
        asides.append(put_database_aside(db))
    assert [path.name for path in asides] == [
        "t.sqlite.20260101T000000.old",
        "t.sqlite.20260101T000000-1.old",
        "t.sqlite.20260101T000000-2.old",
    ]
    for number, aside in enumerate(asides):
        reader = open_store(aside, create=False)
        assert reader.finished_keys() == {f"g/{number}"}
        reader.close()
    assert put_database_aside(db) is None  # nothing left to put aside


@pytest.mark.parametrize("replaced", [False, True], ids=["deleted", "replaced"])
def test_a_database_deleted_or_replaced_under_a_run_gets_its_games_back(tmp_path, replaced):
    # `rm -r results` in another terminal: the run would store into a file nobody can open.
    folder = tmp_path / "results"
    db = folder / "t.sqlite"
    store = open_store(db)
    store.lock_for_run()
    store.add_game("g/1", 0, finished_game("mountain-goats", 2, seed=1))
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()
    if replaced:
        folder.mkdir()
        db.write_bytes(b"someone else's file")
    with pytest.raises(StoreError) as caught:
        store.add_game("g/2", 0, finished_game("mountain-goats", 2, seed=2))
    store.close()
    rescue = db.with_name("t.sqlite.rescued-1") if replaced else db
    how = "replaced by another file" if replaced else "deleted"
    assert str(caught.value) == (
        f"{db} was {how} during the run: its 2 games are written back to {rescue}"
    )
    reader = open_store(rescue, create=False)
    assert reader.finished_keys() == {"g/1", "g/2"}
    reader.close()
    if replaced:
        assert db.read_bytes() == b"someone else's file"
