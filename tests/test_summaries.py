"""The compact per-game summaries: they match the full records of every stored game, an
old database (schema 1, no summaries) is read the slow way with a note and migrated by
its first writer with every summary and the standings unchanged, and running out of
memory in a reader is one line."""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goatarena.bench.synthetic import synthetic_games
from goatarena.cli import main
from goatarena.games import GAMES, find_game
from goatarena.ratings.standings import compute_standings
from goatarena.referee.records import Latency, MatchResult, Violation
from goatarena.store.opening import open_store
from goatarena.store.schema import TABLES
from goatarena.store.standings import standings_from_store
from goatarena.testing import random_playout
from tests.helpers import RANDOM_BOT, misbehaving
from tests.test_tournament import write_config

CAUSES = ["timeout", "illegal", "crash", "malformed"]


def stored_records(db: Path) -> list[tuple[str, int, MatchResult, float]]:
    """Every game's key, round, full record and time, straight from the games table."""
    with sqlite3.connect(db) as connection:
        rows = connection.execute(
            "SELECT key, round, result, finished_at FROM games ORDER BY rowid"
        ).fetchall()
    return [(k, n, msgspec.json.decode(r, type=MatchResult), t) for k, n, r, t in rows]


def assert_summary_matches(summary, key, round_number, result: MatchResult, finished_at):
    """Every field a reader takes from the summary, checked against the record itself."""
    assert (summary.key, summary.round, summary.game, summary.seed) == (
        key, round_number, result.game, result.seed,
    )  # fmt: skip
    assert summary.players == result.players and summary.ranks == result.ranks
    assert summary.scores == [float(score) for score in result.scores]
    for seat in range(len(result.players)):
        strikes = result.all_violations[seat] if result.all_violations else []
        forfeit = result.violations[seat]
        expected = [v.cause for v in strikes] or ([forfeit.cause] if forfeit else [])
        assert summary.violations[seat] == expected
        assert summary.forfeits[seat] == (forfeit.cause if forfeit else None)
        latency = result.latency[seat] if result.latency else None
        if latency is None:
            assert summary.latency[seat] is None
        else:
            seat_latency = summary.latency[seat]
            assert (seat_latency.decisions, seat_latency.median_ms, seat_latency.max_ms) == (
                latency.decisions, latency.median_ms, latency.max_ms,
            )  # fmt: skip
    assert summary.decisions == len(result.decisions)
    assert summary.duration_s == result.duration_s and summary.finished_at == finished_at
    assert summary.options == result.options and summary.host == result.host


def test_every_stored_game_of_a_real_tournament_has_the_summary_of_its_record(tmp_path):
    bots = {
        "alpha": RANDOM_BOT,
        "beta": RANDOM_BOT,
        "liar": misbehaving("bad-index", after=1),
        "crasher": misbehaving("crash", after=2),
    }
    games = '[[games]]\nname = "goat-lords"\nplayers = 3\n[[games]]\nname = "mountain-goats"\nplayers = 2'
    config = write_config(tmp_path / "t.toml", bots=bots, games=games)
    db = tmp_path / "t.sqlite"
    result = CliRunner().invoke(main, ["run", str(config), "--db", str(db), "--quiet"])
    assert result.exit_code == 0, result.output
    records = stored_records(db)
    store = open_store(db, create=False)
    try:
        summaries = list(store.summaries())
    finally:
        store.close()
    assert len(summaries) == len(records) > 10
    assert any(any(s.violations) for s in summaries) and any(any(s.forfeits) for s in summaries)
    for summary, (key, number, record, finished_at) in zip(summaries, records, strict=True):
        assert_summary_matches(summary, key, number, record, finished_at)


@st.composite
def match_results(draw):
    """A real playout of any game, seated anew, with violations and latencies drawn."""
    name = draw(st.sampled_from(sorted(GAMES)))
    info = find_game(name)
    players = draw(st.integers(info.min_players, min(info.max_players, 4)))
    seed = draw(st.integers(0, 2**31))
    state = random_playout(info.new_state(players, seed), random.Random(seed))
    outcome = state.result()
    seat_strikes = st.lists(
        st.builds(Violation, st.sampled_from(CAUSES), st.text(max_size=5), st.integers(0, 99)),
        max_size=3,
    )
    strikes = draw(st.lists(seat_strikes, min_size=players, max_size=players))
    old_record = draw(st.booleans())  # before strikes and latencies were kept
    forfeits = [draw(st.sampled_from([None, *s[-1:]])) if s else None for s in strikes]
    latency = st.none() | st.builds(
        Latency,
        st.integers(0, 500),
        st.floats(0, 1e4, allow_nan=False),
        st.floats(0, 1e5, allow_nan=False),
    )
    return MatchResult(
        game=name,
        seed=seed,
        players=draw(st.permutations([f"bot{n}" for n in range(6)]))[:players],
        scores=outcome.scores,
        ranks=outcome.ranks,
        violations=forfeits,
        decisions=list(state.history),
        options=draw(st.sampled_from([{}, {"rounds": 2}])),
        duration_s=draw(st.floats(0, 100, allow_nan=False)),
        latency=[] if old_record else draw(st.lists(latency, min_size=players, max_size=players)),
        all_violations=[] if old_record else strikes,
        host=draw(st.sampled_from(["", "node-1"])),
    )


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(results=st.lists(match_results(), min_size=1, max_size=4))
def test_the_stored_summary_of_any_game_matches_its_record(tmp_path_factory, results):
    db = tmp_path_factory.mktemp("summaries") / "t.sqlite"
    store = open_store(db)
    try:
        for number, result in enumerate(results):
            store.add_game(f"e/g{number}", number % 3, result)
        summaries = list(store.summaries())
    finally:
        store.close()
    records = stored_records(db)
    for summary, (key, number, record, finished_at) in zip(summaries, records, strict=True):
        assert record == msgspec.json.decode(msgspec.json.encode(record), type=MatchResult)
        assert_summary_matches(summary, key, number, record, finished_at)


# --- a database of schema 1 -------------------------------------------------------------


def write_schema_1_database(path: Path, games: int = 60) -> list[tuple[str, int, MatchResult]]:
    """A results database as goatarena wrote it before summaries (schema 1): its tables,
    its meta rows and one row per game, as that version's ``add_game`` wrote them."""
    stored = list(synthetic_games(games, bots=6, players=3, seed=5))
    with sqlite3.connect(path) as connection:
        connection.executescript(TABLES)
        bots = {f"bot{n:04d}": "x" for n in range(7)}  # one entrant without games
        connection.executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?)",
            [
                ("application", "goatarena"),
                ("schema", "1"),
                ("tournament", "old"),
                ("fingerprint", "f"),
                ("config", json.dumps({"format": "round-robin", "bots": bots})),
            ],
        )
        connection.executemany(
            "INSERT INTO games (key, game, round, seed, players, result, finished_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (key, r.game, number, r.seed, msgspec.json.encode(r.players).decode(),
                 msgspec.json.encode(r).decode(), 1000.0 + index)
                for index, (key, number, r) in enumerate(stored)
            ],
        )  # fmt: skip
        connection.execute("INSERT INTO disqualified (bot, reason) VALUES ('bot0001', 'slow')")
    return stored


def snapshot(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


def test_an_old_database_is_read_the_slow_way_with_a_note_and_left_alone(tmp_path):
    db = tmp_path / "old.sqlite"
    stored = write_schema_1_database(db)
    before = snapshot(tmp_path)
    expected = compute_standings(
        "old", [r for _, _, r in stored], disqualified={"bot0001": "slow"},
        bots=[f"bot{n:04d}" for n in range(7)],
    )  # fmt: skip
    expected = msgspec.structs.replace(expected, out={"bot0001": "slow"})  # named as out, why
    result = CliRunner().invoke(main, ["standings", "--db", str(db), "--format", "json"])
    assert result.exit_code == 0, result.output
    notes = [line for line in result.stderr.splitlines() if line]
    assert len(notes) == 1 and notes[0].startswith(f"goatarena: note: {db} is from an older")
    assert json.loads(result.stdout) == json.loads(msgspec.json.encode(expected))
    listed = CliRunner().invoke(main, ["list", "--db", str(db)])
    assert listed.exit_code == 0 and len(listed.stdout.splitlines()) == 2 + len(stored)
    assert snapshot(tmp_path) == before  # a reader never alters the file


def test_an_old_database_is_migrated_by_its_first_writer_and_reads_the_same(tmp_path):
    db = tmp_path / "old.sqlite"
    write_schema_1_database(db)
    reader = open_store(db, create=False)
    assert not reader.has_summaries
    slow = standings_from_store(reader)
    slow_summaries = list(reader.summaries())
    reader.close()
    writer = open_store(db)  # as `run` opens it
    writer.close()
    with sqlite3.connect(db) as connection:
        (schema,) = connection.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        (count,) = connection.execute("SELECT COUNT(*) FROM summaries").fetchone()
    assert schema == "2" and count == len(slow_summaries)
    migrated = open_store(db, create=False)
    try:
        assert migrated.has_summaries
        fast_summaries = list(migrated.summaries())
        assert standings_from_store(migrated) == slow
    finally:
        migrated.close()
    assert fast_summaries == slow_summaries
    for summary, (key, number, record, finished_at) in zip(
        fast_summaries, stored_records(db), strict=True
    ):
        assert_summary_matches(summary, key, number, record, finished_at)
    again = open_store(db)  # a second writer finds nothing to do
    again.add_game("late/g", 0, stored_records(db)[0][2])
    again.close()
    with sqlite3.connect(db) as connection:
        (count,) = connection.execute("SELECT COUNT(*) FROM summaries").fetchone()
    assert count == len(slow_summaries) + 1


def test_a_database_of_a_newer_schema_is_refused_by_name(tmp_path):
    db = tmp_path / "new.sqlite"
    open_store(db).close()
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE meta SET value = '3' WHERE key = 'schema'")
    result = CliRunner().invoke(main, ["standings", "--db", str(db)])
    assert result.exit_code == 2 and "written by a newer goatarena (schema '3')" in result.output


# --- out of memory -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [["standings"], ["list"], ["export", "--format", "csv"], ["report", "-o", "r.html"]],
    ids=lambda args: args[0],
)
def test_running_out_of_memory_while_reading_is_one_line(tmp_path, monkeypatch, command):
    from goatarena.store import database

    monkeypatch.chdir(tmp_path)
    db = tmp_path / "t.sqlite"
    store = open_store(db)
    store.add_games(synthetic_games(30, bots=4, players=2))
    store.close()
    seen = []

    def exhausting(real):
        def decode(self, key, packed):
            seen.append(key)
            if len(seen) > 10:
                raise MemoryError
            return real(self, key, packed)

        return decode

    # summaries for most readers, whole records for the report
    for name in ("_decode_summary", "_decode"):
        monkeypatch.setattr(database.Store, name, exhausting(getattr(database.Store, name)))
    result = CliRunner().invoke(main, [*command, "--db", str(db)])
    assert result.exit_code == 2, result.output
    assert result.stderr.strip().splitlines()[-1].startswith("goatarena: error: out of memory")
    assert "Traceback" not in result.output and not (tmp_path / "r.html").exists()


@pytest.mark.slow
def test_a_reader_under_a_memory_limit_ends_in_one_line(tmp_path):
    """A real limit (``ulimit -v``, set once the program is loaded): the standings of a
    large field need more than it leaves, and say so in one line."""
    db = tmp_path / "t.sqlite"
    store = open_store(db)
    store.add_games(synthetic_games(20_000, bots=2_500, players=4))
    store.close()
    program = (
        "import resource, sys\n"
        "import scipy.linalg, scipy.sparse.linalg, scipy.special, threadpoolctl\n"
        "import goatarena.cli.standings, goatarena.store.standings\n"
        "from goatarena.entry import main\n"
        "threadpoolctl.threadpool_info()\n"
        "with open('/proc/self/statm') as f: pages = int(f.read().split()[0])\n"
        "size = pages * resource.getpagesize() + 64 * 2**20\n"
        "resource.setrlimit(resource.RLIMIT_AS, (size, size))\n"
        "sys.argv = ['goatarena', 'standings', '--db', sys.argv[1]]\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program, str(db)], capture_output=True, text=True, timeout=300,
        env={"OPENBLAS_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and ("out of memory" in lines[0]), done.stderr
