"""``list``, ``export`` and the standings' formats on a small stored tournament."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from goatarena.cli import main
from goatarena.store.opening import open_store
from tests.helpers import RANDOM_BOT, misbehaving
from tests.test_replay import finished_game
from tests.test_tournament import write_config

GAMES = (
    '[[games]]\nname = "mountain-goats"\nplayers = 2\n[[games]]\nname = "goat-lords"\nplayers = 2'
)


def run(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stored")
    bots = {"alpha": RANDOM_BOT, "beta": RANDOM_BOT, "liar": misbehaving("bad-index", after=0)}
    config = write_config(folder / "t.toml", bots=bots, games=GAMES)
    path = folder / "t.sqlite"
    result = run("run", str(config), "--db", str(path), "--quiet")
    assert result.exit_code == 0, result.output
    return path


def records(db) -> list[tuple[str, str]]:
    with sqlite3.connect(db) as connection:
        return connection.execute("SELECT key, result FROM games ORDER BY rowid").fetchall()


def test_list_shows_every_game_in_one_line_numbered_as_replay_takes_them(db):
    result = run("list", "--db", str(db))
    assert result.exit_code == 0
    lines = result.stdout.splitlines()[2:]
    stored = records(db)
    assert len(lines) == len(stored) == 12
    for number, (line, (key, _)) in enumerate(zip(lines, stored), 1):
        assert line.split()[:2] == [str(number), key]
    assert "12 of 12 stored games" in result.stderr
    replayed = run("replay", "3", "--db", str(db), "--json")
    assert json.loads(replayed.stdout)["key"] == stored[2][0]


def test_list_filters_by_bot_game_and_violations(db):
    by_bot = run("list", "--db", str(db), "--bot", "alpha").stdout.splitlines()[2:]
    assert len(by_bot) == 8 and all("alpha" in line for line in by_bot)
    by_game = run("list", "--db", str(db), "--game", "goat-lords").stdout.splitlines()[2:]
    assert len(by_game) == 6 and all(" goat-lords " in line for line in by_game)
    broken = run("list", "--db", str(db), "--violations").stdout.splitlines()[2:]
    assert len(broken) == 8 and all("liar: illegal" in line for line in broken)
    assert run("list", "--db", str(db), "--game", "chess").exit_code == 2


def test_export_jsonl_is_every_whole_record(db):
    result = run("export", "--db", str(db))
    lines = result.stdout.splitlines()
    stored = records(db)
    assert len(lines) == len(stored)
    for line, (key, record) in zip(lines, stored):
        exported = json.loads(line)
        assert exported["key"] == key and exported["result"] == json.loads(record)


def test_export_csv_has_a_row_per_seat_and_writes_files_whole(db, tmp_path):
    out = tmp_path / "games.csv"
    assert run("export", "--db", str(db), "--format", "csv", "-o", str(out)).exit_code == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert len(rows) == 2 * len(records(db))
    liar = [row for row in rows if row["bot"] == "liar"]
    assert liar and all(row["violations"] == "illegal" for row in liar)
    assert {row["rank"] for row in rows} <= {"1", "2"}
    missing = run("export", "--db", str(db), "-o", str(tmp_path / "no" / "x.jsonl"))
    assert missing.exit_code == 2 and "cannot write" in missing.stderr
    assert not list(tmp_path.glob("**/*.part"))


def test_cross_works_as_json_and_is_refused_as_csv(db):
    data = json.loads(run("standings", "--db", str(db), "--format", "json", "--cross").stdout)
    assert data["cross"]["alpha"]["liar"]["games"] == 4
    assert data["cross"]["liar"]["alpha"]["points"] == 0
    refused = run("standings", "--db", str(db), "--format", "csv", "--cross")
    assert refused.exit_code == 2 and "--cross" in refused.stderr
    assert "sprt" not in data


def test_the_overall_table_has_no_mean_score_across_games(db):
    data = json.loads(run("standings", "--db", str(db), "--format", "json").stdout)
    assert all(row["avg_score"] is None for row in data["standings"]["overall"])
    assert all(row["avg_score"] is not None for row in data["standings"]["goat-lords"])
    table = run("standings", "--db", str(db)).stdout
    overall = table.split("\noverall\n")[1].splitlines()[2:]
    assert overall and all(" - " in line for line in overall)


def test_standings_of_a_game_with_nothing_stored_say_so_in_one_line(db):
    result = run("standings", "--db", str(db), "--game", "herr-der-ziegen")
    assert result.exit_code == 0
    assert result.output == "t: no herr-der-ziegen games stored\n"
    stored = run("standings", "--db", str(db), "--game", "goat-lords")
    assert "goat-lords" in stored.output and "alpha" in stored.output


def test_export_into_a_reader_that_stops_early_ends_as_every_command_does(tmp_path):
    # `goatarena export | head -1`: the reader closes the pipe after its first line. The
    # export is larger than any pipe's buffer, so it cannot be done before that.
    db = tmp_path / "big.sqlite"
    store = open_store(db)
    for number in range(100):
        store.add_game(f"g/{number}", 0, finished_game("goat-lords", 3, seed=number))
    store.close()
    process = subprocess.Popen(
        [sys.executable, "-m", "goatarena", "export", "--db", str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stdout.readline().startswith(b'{"key"')
    process.stdout.close()
    _, errors = process.communicate(timeout=60)
    assert process.returncode == 128 + signal.SIGPIPE and errors == b""


@pytest.mark.parametrize(
    "command", [["export", "--format", "csv"], ["report"]], ids=["export", "report"]
)
def test_written_files_get_the_usual_permissions_or_keep_those_they_replace(db, tmp_path, command):
    out = tmp_path / "out"
    umask = os.umask(0o022)
    try:
        assert run(*command, "--db", str(db), "-o", str(out)).exit_code == 0
        assert stat.S_IMODE(out.stat().st_mode) == 0o644  # not a temporary file's 0600
        out.chmod(0o640)
        assert run(*command, "--db", str(db), "-o", str(out)).exit_code == 0
        assert stat.S_IMODE(out.stat().st_mode) == 0o640
    finally:
        os.umask(umask)
    assert [path.name for path in tmp_path.iterdir()] == ["out"]


def test_standings_of_a_tournament_with_nothing_stored_say_so_in_one_line(tmp_path):
    db = tmp_path / "t.sqlite"
    store = open_store(db)
    store.claim(tournament="league", fingerprint="f", config_json="{}")
    store.close()
    result = run("standings", "--db", str(db))
    assert result.exit_code == 0
    assert result.output == "league: no games stored\n"


@pytest.mark.parametrize("command", [["export"], ["report"]])
@pytest.mark.parametrize("target", ["t.sqlite", "alias.sqlite", "t.sqlite-wal", "t.sqlite-journal"])
def test_writing_over_the_database_being_read_is_refused(tmp_path, command, target):
    db = tmp_path / "t.sqlite"
    store = open_store(db)
    store.add_game("g/1", 0, finished_game("goat-lords", 3, seed=1))
    store.close()
    (tmp_path / "alias.sqlite").symlink_to(db)
    (tmp_path / "t.sqlite-wal").write_bytes(b"")  # as a run that is writing leaves it
    before = db.read_bytes()
    result = run(*command, "--db", str(db), "-o", str(tmp_path / target))
    assert result.exit_code == 2
    assert result.output.startswith(f"goatarena: error: cannot write {tmp_path / target}:")
    assert "which is being read; choose another file" in result.output
    assert db.read_bytes() == before
    assert run("list", "--db", str(db)).exit_code == 0


def test_export_to_a_link_a_device_or_a_pipe_writes_through_it(db, tmp_path):
    # `-o /dev/stdout` must never put a file in place of the device's name.
    to_null = tmp_path / "null"
    to_null.symlink_to(os.devnull)
    assert run("export", "--db", str(db), "-o", str(to_null)).exit_code == 0
    assert to_null.is_symlink() and to_null.resolve() == Path(os.devnull)

    real = tmp_path / "real.jsonl"
    real.write_text("old\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(real.name)
    assert run("export", "--db", str(db), "-o", str(link)).exit_code == 0
    assert link.is_symlink() and len(real.read_text().splitlines()) == len(records(db))

    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(pipe.read_bytes()), daemon=True)
    reader.start()
    assert run("export", "--db", str(db), "-o", str(pipe)).exit_code == 0
    reader.join(timeout=30)
    assert len(received[0].splitlines()) == len(records(db))
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "link.jsonl",
        "null",
        "pipe",
        "real.jsonl",
    ]
