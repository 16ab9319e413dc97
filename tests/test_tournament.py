"""Tournaments end to end: running, storing, resuming, refusing, standings, Swiss."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from goatarena.cli import main
from goatarena.errors import ConfigError
from goatarena.formats.tournament_file import load_config
from tests.helpers import RANDOM_BOT, ROOT, STANDINGS_ROW_KEYS, misbehaving, python_bot

BOTS = {"alpha": RANDOM_BOT, "beta": RANDOM_BOT, "gamma": RANDOM_BOT}


def write_config(
    path: Path, *, bots=None, extra: str = "", games: str | None = None, concurrency: int = 2
) -> Path:
    bots = bots or BOTS
    lines = [
        'name = "t"',
        "seed = 5",
        f"concurrency = {concurrency}",
        extra,
        "[time]",
        "move_ms = 2000",
        "[bots]",
    ]
    lines += [f"{name} = {json.dumps(command)}" for name, command in bots.items()]
    lines.append(games or '[[games]]\nname = "mountain-goats"\nplayers = 2')
    path.write_text("\n".join(lines) + "\n")
    return path


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def stored_keys(db: Path) -> list[str]:
    """The keys of the stored games; none while the database is still being created."""
    try:
        with sqlite3.connect(db) as connection:
            return [row[0] for row in connection.execute("SELECT key FROM games")]
    except sqlite3.OperationalError:
        return []


def test_a_small_round_robin_runs_stores_every_game_and_prints_standings(tmp_path):
    config = write_config(tmp_path / "t.toml", extra="deals = 2")
    db = tmp_path / "t.sqlite"
    result = run("run", str(config), "--db", str(db), "--quiet")
    assert result.exit_code == 0, result.output
    # 3 pairs x 2 deals x 2 seat rotations
    assert len(stored_keys(db)) == 12
    assert "overall" in result.output and "alpha" in result.output

    shown = run("standings", "--db", str(db), "--format", "json")
    data = json.loads(shown.output)
    assert data["tournament"] == "t" and data["games"] == 12
    assert set(data["standings"]) == {"overall", "mountain-goats"}
    for row in data["standings"]["overall"]:
        assert set(row) >= STANDINGS_ROW_KEYS
        assert row["lo"] < row["elo"] < row["hi"] and row["games"] == 8

    csv_lines = run("standings", "--db", str(db), "--format", "csv").output.splitlines()
    assert csv_lines[0].startswith("game,rank,bot,elo,lo,hi")
    assert len(csv_lines) == 1 + 2 * 3

    cross = run("standings", "--db", str(db), "--cross")
    assert cross.exit_code == 0 and "head to head" in cross.output
    assert "/4" in cross.output  # every pair met 4 times: points out of 4
    assert "pentanomial Elo" in cross.output  # and played 2 deals in both seat orders
    shown = run("standings", "--db", str(db), "--cross", "--format", "json")
    pairs = json.loads(shown.output)["pairs"]
    assert [
        (row["bot"], row["opponent"], row["pairs"], row["unpaired_games"]) for row in pairs
    ] == [
        ("alpha", "beta", 2, 0),
        ("alpha", "gamma", 2, 0),
        ("beta", "gamma", 2, 0),
    ]
    assert all(sum(row["pentanomial"]) == 2 and "score" in row for row in pairs)


def test_rerunning_a_finished_tournament_plays_nothing_again(tmp_path):
    config = write_config(tmp_path / "t.toml")
    db = tmp_path / "t.sqlite"
    assert run("run", str(config), "--db", str(db), "--quiet").exit_code == 0
    first = stored_keys(db)
    assert run("run", str(config), "--db", str(db), "--quiet").exit_code == 0
    assert stored_keys(db) == first


def test_a_different_tournament_file_against_the_database_is_refused(tmp_path):
    db = tmp_path / "t.sqlite"
    assert (
        run("run", str(write_config(tmp_path / "a.toml")), "--db", str(db), "--quiet").exit_code
        == 0
    )
    other = write_config(tmp_path / "b.toml", extra="seed = 6\nmemory_mb = 512")
    other.write_text(other.read_text().replace("seed = 5\n", ""))
    result = run("run", str(other), "--db", str(db), "--quiet")
    assert result.exit_code != 0
    assert "seed: 5 -> 6" in result.output and "memory_mb: 1024 -> 512" in result.output
    assert "--fresh" in result.output
    assert len(stored_keys(db)) == 6


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            "name = 'x'\n[bots]\na = 'x'\nb = 'y'\n[[games]]\nname = 'mountain-goats'\nplayers = 'two'\n",
            "games[0].players",
        ),
        (
            "name = 'x'\nbogus = 1\n[bots]\na = 'x'\nb = 'y'\n[[games]]\nname = 'mountain-goats'\n",
            "bogus",
        ),
        ("name = 'x'\n[bots]\na = 'x'\nb = 'y'\n[[games]]\nname = 'chess'\n", "unknown game"),
        (
            "name = 'x'\n[bots]\na = 'x'\nb = 'y'\n[[games]]\nname = 'mountain-goats'\nplayers = 3\n",
            "need at least 3 bots",
        ),
        ("name = 'x'\n[bots]\na = 'x'\n[[games]]\nname = 'mountain-goats'\n", "at least two bots"),
        (
            "name = 'x'\n[time]\nmove_ms = -5\n[bots]\na = 'x'\nb = 'y'\n[[games]]\nname = 'mountain-goats'\n",
            "move_ms",
        ),
        ("name = \n", "not valid TOML"),
        (
            "name = 'x'\n[bots]\ngreedy = 'x'\ngreedy = 'y'\n[[games]]\nname = 'mountain-goats'\n",
            "the key greedy appears twice in its table",
        ),
        # Numbers past what a machine can do: refused before anything is built or started.
        (
            "name = 'x'\ndeals = 1000000000\n[bots]\na = 'x'\nb = 'y'\n"
            "[[games]]\nname = 'mountain-goats'\n",
            "asks for 2,000,000,000 games, more than the 1,000,000",
        ),
        (
            "name = 'x'\n[bots]\n"
            + "".join(f"b{i} = 'x'\n" for i in range(200))
            + "[[games]]\nname = 'goat-lords'\nplayers = 4\n",
            "asks for 258,739,800 games",
        ),
        (
            "name = 'x'\nmemory_mb = 99999999999999\n[bots]\na = 'x'\nb = 'y'\n"
            "[[games]]\nname = 'mountain-goats'\n",
            "memory_mb: must be at most 16777216, not 99999999999999",
        ),
        (
            "name = 'x'\ntmp_mb = 99999999999999\n[bots]\na = 'x'\nb = 'y'\n"
            "[[games]]\nname = 'mountain-goats'\n",
            "tmp_mb: must be at most 16777216",
        ),
        (
            "name = 'x'\nconcurrency = 100000\n[bots]\na = 'x'\nb = 'y'\n"
            "[[games]]\nname = 'mountain-goats'\n",
            "concurrency: must be at most 1024, not 100000",
        ),
        (
            "name = 'x'\n[bots]\na = \"x\\u0000y\"\nb = 'y'\n[[games]]\nname = 'mountain-goats'\n",
            "bots.a: the command holds a NUL character",
        ),
        (
            f"name = 'x'\n[bots]\na = 'x {'y' * 3_000_000}'\nb = 'y'\n"
            "[[games]]\nname = 'mountain-goats'\n",
            "bots.a: the command is 3,000,002 characters long, at most 65,536",
        ),
        (
            "name = 'x'\n[bots]\na = 'x'\nb = 'y'\n[paths.a]\nread = [\"/tmp\\u0000\"]\n"
            "[[games]]\nname = 'mountain-goats'\n",
            "paths.a.read: a path is empty or holds a NUL character",
        ),
        (
            "name = 'x'\nformat = 'gauntlet'\nchallengers = ['a']\n[bots]\na = 'x'\nb = 'y'\n"
            "[sprt]\nelo0 = 0\nelo1 = inf\n[[games]]\nname = 'mountain-goats'\n",
            "sprt.elo1: must be between -1000 and 1000, not inf",
        ),
        (
            "name = 'x'\n[bots]\na = 'x'\nb = 'y'\n[[games]]\nname = 'goat-lords'\n"
            "options = { rounds = -1 }\n",
            "games[0]: goat-lords option 'rounds' must be 0 to 1000, not -1",
        ),
    ],
)
def test_bad_tournament_files_name_the_field_and_run_nothing(tmp_path, content, message):
    path = tmp_path / "bad.toml"
    path.write_text(content)
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_config(path)
    result = run("run", str(path), "--db", str(tmp_path / "x.sqlite"))
    assert result.exit_code != 0 and str(path) in result.output and "Traceback" not in result.output
    assert not (tmp_path / "x.sqlite").exists()


def test_a_missing_file_and_a_corrupt_or_foreign_database_are_clear_errors(tmp_path):
    assert "no such tournament file" in run("run", str(tmp_path / "none.toml")).output
    config = write_config(tmp_path / "t.toml")
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"this is not a database" * 100)
    result = run("run", str(config), "--db", str(garbage))
    assert result.exit_code != 0 and "not a goatarena results database" in result.output
    foreign = tmp_path / "foreign.sqlite"
    with sqlite3.connect(foreign) as connection:
        connection.execute("CREATE TABLE customers (id INTEGER)")
    result = run("standings", "--db", str(foreign))
    assert result.exit_code != 0 and "not a goatarena results database" in result.output


def test_a_bot_that_stops_starting_is_disqualified_and_the_tournament_goes_on(tmp_path):
    # It starts for the pre-flight check, and never again.
    marker = tmp_path / "started-once"
    random_bot = ROOT / "bots" / "python" / "random_bot.py"
    ghost = python_bot(
        f"import os, runpy, sys\nif os.path.exists({str(marker)!r}): sys.exit('gone')\n"
        f"open({str(marker)!r}, 'w').close()\n"
        f"runpy.run_path({str(random_bot)!r}, run_name='__main__')"
    )
    bots = {"alpha": RANDOM_BOT, "beta": RANDOM_BOT, "ghost": ghost}
    # Unsandboxed: the ghost leaves a marker file beside the tournament, which its
    # sandbox (rightly) does not let it write.
    config = write_config(tmp_path / "t.toml", bots=bots, extra='sandbox = "none"')
    db = tmp_path / "t.sqlite"
    result = run("run", str(config), "--db", str(db), "--quiet")
    assert result.exit_code == 0, result.output
    assert len(stored_keys(db)) == 6
    data = json.loads(run("standings", "--db", str(db), "--format", "json").output)
    ghost = next(row for row in data["standings"]["overall"] if row["bot"] == "ghost")
    assert ghost["violations"] == {"crash": 4}
    assert ghost["disqualified"] and "failed to start" in ghost["disqualified"]
    assert data["standings"]["overall"][-1]["bot"] == "ghost"


def test_a_crashing_bot_gets_a_fresh_process_for_its_next_game(tmp_path):
    bots = {"alpha": RANDOM_BOT, "crashy": misbehaving("exit", after=1), "gamma": RANDOM_BOT}
    config = write_config(tmp_path / "t.toml", bots=bots)
    db = tmp_path / "t.sqlite"
    assert run("run", str(config), "--db", str(db), "--quiet").exit_code == 0
    data = json.loads(run("standings", "--db", str(db), "--format", "json").output)
    crashy = next(row for row in data["standings"]["overall"] if row["bot"] == "crashy")
    assert crashy["violations"] == {"crash": 4} and not crashy["disqualified"]


def test_kill_minus_nine_then_rerun_finishes_with_exactly_the_full_count(tmp_path):
    config = write_config(tmp_path / "t.toml", extra="deals = 4", concurrency=1)
    db = tmp_path / "t.sqlite"
    command = [sys.executable, "-m", "goatarena", "run", str(config), "--db", str(db), "--quiet"]
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if db.exists() and len(stored_keys(db)) >= 3:
            break
        time.sleep(0.02)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    interrupted = len(stored_keys(db))
    assert 3 <= interrupted < 24
    finished = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert finished.returncode == 0, finished.stderr
    keys = stored_keys(db)
    assert len(keys) == len(set(keys)) == 24


def test_swiss_with_four_player_tables_plays_every_round(tmp_path):
    bots = {f"bot{i}": RANDOM_BOT for i in range(9)}
    games = '[[games]]\nname = "mountain-goats"\nplayers = 4'
    config = write_config(
        tmp_path / "s.toml", bots=bots, extra='format = "swiss"\nrounds = 3', games=games
    )
    db = tmp_path / "s.sqlite"
    result = run("run", str(config), "--db", str(db), "--quiet")
    assert result.exit_code == 0, result.output
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT round, players FROM games").fetchall()
    assert sorted({r for r, _ in rows}) == [1, 2, 3]
    for round_number in (1, 2, 3):
        seated = [bot for r, players in rows if r == round_number for bot in json.loads(players)]
        assert sorted(seated) == sorted(bots)  # 9 bots at tables of 3, 3, 3
    again = run("run", str(config), "--db", str(db), "--quiet")
    assert again.exit_code == 0 and len(stored_keys(db)) == len(rows)


def test_swiss_with_two_player_tables_gives_a_bye_to_an_odd_bot_out(tmp_path):
    bots = {f"bot{i}": RANDOM_BOT for i in range(5)}
    config = write_config(tmp_path / "s.toml", bots=bots, extra='format = "swiss"\nrounds = 3')
    db = tmp_path / "s.sqlite"
    assert run("run", str(config), "--db", str(db), "--quiet").exit_code == 0
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT round, players FROM games").fetchall()
    for round_number in (1, 2, 3):
        seated = [b for r, players in rows if r == round_number for b in json.loads(players)]
        assert len(seated) == 4 and len(set(seated)) == 4
    pairs = [frozenset(json.loads(players)) for _, players in rows]
    assert len(pairs) == len(set(pairs))  # no rematch while one can be avoided
    # the Swiss columns: 3 rounds of one point each (a bye counts as a win)
    data = json.loads(run("standings", "--db", str(db), "--format", "json", "--los").output)
    rows_out = data["standings"]["mountain-goats"]
    assert sum(row["swiss_points"] for row in rows_out) == 2 * 3 + 3
    assert all(row["buchholz"] is not None for row in rows_out)
    assert data["connected"]["overall"] is True and data["no_games"] == []
    assert [term["seat"] for term in data["seat_advantage"]["mountain-goats"]] == [0, 1]
    assert set(data["los"]["overall"]["bot0"]) == {"bot1", "bot2", "bot3", "bot4"}
    shown = run("standings", "--db", str(db), "--los")
    assert shown.exit_code == 0 and "likelihood of superiority" in shown.output
    assert "buchholz" in shown.output


def test_ctrl_c_stops_cleanly_keeps_results_and_says_how_to_resume(tmp_path):
    config = write_config(tmp_path / "t.toml", extra="deals = 6", concurrency=1)
    db = tmp_path / "t.sqlite"
    command = [sys.executable, "-m", "goatarena", "run", str(config), "--db", str(db)]
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and len(stored_keys(db)) < 2:
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    output, _ = process.communicate(timeout=30)
    assert process.returncode == 130
    assert "run the same command again to resume" in output
    assert "Traceback" not in output
    kept = stored_keys(db)
    assert 2 <= len(kept) < 36
    again = subprocess.run(command + ["--quiet"], cwd=ROOT, capture_output=True, text=True)
    assert again.returncode == 0
    assert len(set(stored_keys(db))) == len(stored_keys(db)) == 36


def test_a_second_run_into_the_same_database_is_refused_while_the_first_runs(tmp_path):
    from goatarena.errors import StoreError
    from goatarena.store.opening import open_store

    db = tmp_path / "t.sqlite"
    first = open_store(db)
    first.lock_for_run()
    second = open_store(db)
    with pytest.raises(StoreError, match="in use by another goatarena run"):
        second.lock_for_run()
    first.close()
    second.lock_for_run()  # free again once the first run is over
    second.close()


def test_the_policy_from_the_tournament_file_turns_illegal_answers_into_strikes(tmp_path):
    bots = {"alpha": RANDOM_BOT, "liar": misbehaving("bad-index", after=1)}
    config = write_config(
        tmp_path / "t.toml", bots=bots, extra='[policy]\nillegal = "random-move"\nstrikes = 2'
    )
    db = tmp_path / "t.sqlite"
    result = run("run", str(config), "--db", str(db), "--quiet")
    assert result.exit_code == 0, result.output
    data = json.loads(run("standings", "--db", str(db), "--format", "json").output)
    liar = next(row for row in data["standings"]["overall"] if row["bot"] == "liar")
    # two games, each: one strike played randomly, then the second strike forfeits
    assert liar["violations"] == {"illegal": 4}
    assert liar["wins"] == 0


@pytest.mark.parametrize(
    "path", sorted((ROOT / "tournaments").glob("*.toml")), ids=lambda p: p.name
)
def test_every_shipped_tournament_file_is_valid_and_its_bots_exist(path):
    from goatarena.referee.bot import parse_command

    config = load_config(path)
    for command in config.bots.values():
        paths = [Path(word) for word in parse_command(command) if "/" in word]
        # Relative paths resolve against the file's folder: the commands are absolute.
        assert paths and all(path.is_absolute() for path in paths), command
        for path in paths:
            # a starter kit's ./bot may be a program its Makefile builds
            assert path.is_file() or (path.parent / "Makefile").is_file(), command


def test_a_relative_file_named_from_a_deleted_working_folder_is_one_line(tmp_path, monkeypatch):
    config = write_config(tmp_path / "t.toml")
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    result = run("run", "../t.toml")
    assert result.exit_code == 2
    assert result.output.startswith(
        "goatarena: error: ../t.toml: cannot tell which folder it is in"
    )
    assert config.exists() and "Traceback" not in result.output


def test_a_byte_order_mark_is_read_past_and_a_file_that_is_not_utf8_is_one_line(tmp_path):
    config = write_config(tmp_path / "t.toml")
    config.write_bytes(b"\xef\xbb\xbf" + config.read_bytes())  # as some Windows editors save
    assert load_config(config).name == "t"
    config.write_bytes(config.read_bytes().replace(b'"t"', b'"Turnier f\xfcr Ziegen"'))
    result = run("run", str(config))
    assert result.exit_code == 2
    assert result.output == f"goatarena: error: {config}: not UTF-8 text (line 1)\n"


def test_standings_with_deals_show_the_deal_adjusted_intervals(tmp_path):
    bots = {f"bot{i}": RANDOM_BOT for i in range(3)}
    config = write_config(tmp_path / "d.toml", bots=bots, extra="deals = 3")
    db = tmp_path / "d.sqlite"
    assert run("run", str(config), "--db", str(db), "--quiet").exit_code == 0
    plain = json.loads(run("standings", "--db", str(db), "--format", "json").output)
    data = json.loads(run("standings", "--db", str(db), "--format", "json", "--deals").output)
    for table, rows in data["standings"].items():
        assert [row["elo"] for row in rows] == [row["elo"] for row in plain["standings"][table]]
        for row in rows:
            assert row["deal_lo"] <= row["elo"] <= row["deal_hi"]
    assert all(row["deal_lo"] is None for row in plain["standings"]["overall"])
    shown = run("standings", "--db", str(db), "--deals")
    assert shown.exit_code == 0 and "deal-adjusted 95%" in shown.output


def test_the_live_leaderboard_shows_raw_and_deal_adjusted_intervals_of_rotated_deals(
    tmp_path, monkeypatch
):
    from goatarena.running import progress as progress_module

    monkeypatch.setattr(progress_module, "PLAIN_BOARD_INTERVAL_S", 0.0)  # a line per game
    config = write_config(tmp_path / "t.toml", extra="deals = 3")
    result = CliRunner().invoke(main, ["run", str(config), "--db", str(tmp_path / "t.sqlite")])
    assert result.exit_code == 0, result.output
    lines = [line for line in result.stderr.splitlines() if "standings" in line]
    # the first game: no deal has both rotations yet, the raw interval alone
    assert lines[0].startswith("  standings: 1.") and not re.search(r"\+/- \d+/", lines[0])
    adjusted = [line for line in lines if line.startswith("  standings (+/- raw/deal-adjusted):")]
    assert adjusted and adjusted[-1] == lines[-1]
    margins = re.findall(r"\+/- (\d+)/(\d+)", lines[-1])
    assert len(margins) == 3 and all(int(raw) > 0 for raw, _ in margins)
