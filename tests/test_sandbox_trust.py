"""Attacks on what bots share, each by a hostile test bot (tests/bots/hostile_trust.py): an
arena kept under a system folder, root's files, the page cache, file locks, writable
masks, and bots that share a folder.

As in tests/test_sandbox.py every game is played through the command line; each test
checks that the attack was made and failed and that the honest seat lost nothing. Where
only the sandbox stops an attack, it is also played with ``--sandbox none`` and must work
there, so that a wall is told apart from an attack that was never made.
"""

from __future__ import annotations

import json
import os
import random
import re
import shlex
import shutil
import sqlite3
import sys
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from goatarena.cli import main
from goatarena.formats.tournament_file import load_config
from goatarena.referee.bot_folders import shared_folder_warnings
from goatarena.referee.bot_uids import BOT_GID, UID_BASE, UID_COUNT
from goatarena.referee.sandbox import probe
from tests.helpers import ROOT
from tests.test_sandbox import HONEST, assert_honest_game

pytestmark = pytest.mark.skipif(probe() is not None, reason=f"no sandbox here: {probe()}")

TRUST = ROOT / "tests" / "bots" / "hostile_trust.py"
RANDOM_BOT = ROOT / "bots" / "python" / "random_bot.py"
ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="the runner is not root here")


def trust(attack: str, *args: object, script: Path = TRUST) -> str:
    """The command of the hostile bot making ``attack``."""
    return shlex.join([sys.executable, str(script), attack, uuid.uuid4().hex, *map(str, args)])


def play(tmp_path: Path, first: str, second: str = HONEST, *options: str):
    """One game of ``first`` against ``second``; the JSON result, both seats' logs and
    what was printed."""
    logs = tmp_path / f"logs-{uuid.uuid4().hex[:8]}"
    result = CliRunner().invoke(
        main,
        ["play", "mountain-goats", "--json", "--quiet", "--log-dir", str(logs)]
        + ["--move-ms", "5000", *options, "--bot", first, "--bot", second],
    )
    assert result.exit_code == 0, result.output
    outcome = json.loads(result.output.strip().splitlines()[-1])
    return outcome, [(logs / f"seat{seat}.log").read_text() for seat in (0, 1)], result.output


def heard(log: str, channel: str) -> str:
    return log.split(f"heard {channel}: ")[1].split("\n")[0]


def readable_folder(path: Path) -> Path:
    """``path`` made, readable by all (as a shared checkout is)."""
    path.mkdir(parents=True)
    for folder in [path, *path.parents]:
        if folder == Path("/tmp") or folder == Path("/"):
            break
        folder.chmod(folder.stat().st_mode | 0o755)
    return path


# -- an arena under a system folder ---------------------------------------------------------


def make_arena(arena: Path, snooper_args: list[str]) -> Path:
    """A tournament laid out as an organiser might under ``arena``: one folder per bot, the
    file, the results and logs beside them. The snooper is told every path to try."""
    for name in ("snooper", "honest"):
        (arena / "bots" / name).mkdir(parents=True)
    shutil.copy(TRUST, arena / "bots" / "snooper" / "bot.py")
    shutil.copy(RANDOM_BOT, arena / "bots" / "honest" / "bot.py")
    (arena / "bots" / "honest" / "secret.txt").write_text("my strategy's weights")
    (arena / "results").mkdir()
    (arena / "results" / "other-tournament.sqlite").write_text("old results")
    snooper = shlex.join(
        [sys.executable, str(arena / "bots/snooper/bot.py"), "snoop", "x", *snooper_args]
    )
    honest = shlex.join([sys.executable, str(arena / "bots/honest/bot.py"), "4242"])
    lines = ['name = "arena"', "seed = 0", "concurrency = 1", "[time]", "move_ms = 5000"]
    lines += ["[bots]", f"snooper = {json.dumps(snooper)}", f"honest = {json.dumps(honest)}"]
    lines += ['[[games]]\nname = "mountain-goats"\nplayers = 2']
    (arena / "t.toml").write_text("\n".join(lines) + "\n")
    return arena / "t.toml"


@pytest.mark.parametrize("system", ["/opt", "/usr/local"])
@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_an_arena_under_a_system_folder_shows_a_bot_nothing_of_the_runners(
    system, sandbox, monkeypatch
):
    if not os.access(system, os.W_OK):
        pytest.skip(f"cannot make an arena under {system} here")
    arena = Path(system) / f"goatarena-test-{uuid.uuid4().hex[:12]}"
    targets = [
        arena / "bots" / "honest",
        arena / "bots" / "honest" / "secret.txt",
        arena / "t.toml",
        arena / "results",
        arena / "results" / "arena.sqlite",
        arena / "results" / "arena-logs" / "honest.log",
        arena / "results" / "other-tournament.sqlite",
        arena,
    ]
    try:
        own = arena / "bots" / "snooper"
        config = make_arena(arena, ["@" + os.path.relpath(path, own) for path in targets])
        monkeypatch.chdir(arena)  # the organiser runs it from the arena
        result = CliRunner().invoke(
            main,
            ["run", "--quiet", "t.toml", "--db", "results/arena.sqlite"] + ["--sandbox", sandbox],
        )
        assert result.exit_code == 0, result.output
        log = (arena / "results" / "arena-logs" / "snooper.log").read_text()
        assert "tried snoop" in log, log
        breaches = [line for line in log.splitlines() if line.startswith("BREACH")]
        if sandbox == "none":  # the attack is real
            assert any("secret.txt" in line for line in breaches), log
            assert any("arena.sqlite" in line for line in breaches), log
        else:
            assert breaches == [], breaches
        with sqlite3.connect(arena / "results" / "arena.sqlite") as connection:
            rows = connection.execute("SELECT result FROM games").fetchall()
        assert len(rows) == 2
        for (text,) in rows:
            assert json.loads(text)["violations"] == [None, None]
        assert config.exists()
    finally:
        shutil.rmtree(arena, ignore_errors=True)


def test_a_runners_file_that_cannot_be_hidden_stops_the_run_in_one_line(tmp_path, monkeypatch):
    """The logs of ``x.sqlite`` go to ``x-logs``: here that is the bot's own folder."""
    folder = readable_folder(tmp_path / "arena" / "x-logs")
    shutil.copy(RANDOM_BOT, folder / "bot.py")
    other = readable_folder(tmp_path / "arena" / "other")
    shutil.copy(RANDOM_BOT, other / "bot.py")
    bots = {"a": f"{sys.executable} {folder / 'bot.py'}", "b": f"{sys.executable} {other}/bot.py"}
    lines = ['name = "x"', "seed = 0", "[bots]"] + [
        f"{k} = {json.dumps(v)}" for k, v in bots.items()
    ]
    lines += ['[[games]]\nname = "mountain-goats"\nplayers = 2']
    (tmp_path / "t.toml").write_text("\n".join(lines) + "\n")
    db = tmp_path / "arena" / "x.sqlite"
    result = CliRunner().invoke(main, ["run", "--quiet", str(tmp_path / "t.toml"), "--db", str(db)])
    assert result.exit_code != 0
    assert "cannot hide" in result.output and str(folder) in result.output, result.output
    assert "Traceback" not in result.output
    assert not db.exists()


# -- never root ------------------------------------------------------------------------------


@ROOT_ONLY
@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_a_root_runners_bot_cannot_read_roots_files(tmp_path, sandbox):
    given = readable_folder(tmp_path / "given")  # a folder given to read, holding a key
    key = given / "key.pem"
    key.write_text("-----BEGIN PRIVATE KEY-----")
    key.chmod(0o600)
    # The bot's own code is root's alone (a checkout made with umask 077): it still runs.
    own = tmp_path / "own"
    own.mkdir(mode=0o700)
    shutil.copy(TRUST, own / "bot.py")
    (own / "bot.py").chmod(0o600)
    attacker = trust("root-files", f"@{key}", script=own / "bot.py")
    outcome, (log, _), _ = play(
        tmp_path, attacker, HONEST, "--read", str(given), "--sandbox", sandbox
    )
    assert "tried root-files" in log, log
    assert_honest_game(outcome)
    if sandbox == "none":  # the attack is real
        assert f"BREACH read {key}" in log and "BREACH read /proc/timer_list" in log, log
    else:
        [uid] = re.findall(rf"running as uid (\d+) gid {BOT_GID}$", log, re.M)
        assert UID_BASE <= int(uid) < UID_BASE + UID_COUNT, log
        assert "BREACH" not in log, log


def test_doctor_says_whom_bots_run_as():
    result = CliRunner().invoke(main, ["doctor"])
    [line] = [line for line in result.output.splitlines() if line.startswith("bots run as")]
    assert (f"a uid of their own per process ({UID_BASE}-" in line) is (os.geteuid() == 0), line


# -- the page cache and file locks ----------------------------------------------------------


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_the_page_cache_carries_nothing_from_one_game_to_the_next(tmp_path, sandbox):
    """One game's process leaves bits in which pages of a file of its folder are cached;
    the next game's reads them back (in a tournament: the next rotation of a deal)."""
    folder = readable_folder(tmp_path / "bot")
    script = folder / "bot.py"
    shutil.copy(TRUST, script)
    data = folder / "book.bin"
    with open(data, "wb") as file:
        file.write(os.urandom(64 * 4096))
        file.flush()
        os.fsync(file.fileno())  # clean pages: eviction drops them
    bits = "".join(random.choice("01") for _ in range(64))
    options = ["--sandbox", sandbox]
    outcome, (sent, _), _ = play(
        tmp_path, trust("cache-send", data, bits, script=script), HONEST, *options
    )
    assert "tried cache-send" in sent
    assert_honest_game(outcome)
    outcome, (log, _), _ = play(
        tmp_path, trust("cache-receive", data, 64, script=script), HONEST, *options
    )
    assert "tried cache-receive" in log, log
    assert_honest_game(outcome)
    decoded = [heard(log, channel) for channel in ("mincore", "cachestat", "nowait")]
    if sandbox == "none":  # the attack is real
        assert bits in decoded, (bits, decoded)
    else:
        assert "evicted no" in sent, sent
        assert all(found.startswith("refused") for found in decoded), decoded


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_allies_at_one_table_cannot_talk_through_file_locks(tmp_path, sandbox):
    shared = os.path.realpath(sys.executable)  # a file every bot of this runtime can open
    bits = "".join(random.choice("01") for _ in range(32))
    bits = "1" + bits[1:]  # one lock at least, for flock to be held
    outcome, (sent, log), _ = play(
        tmp_path,
        trust("lock-send", shared, bits),
        trust("lock-receive", shared, 32),
        "--sandbox",
        sandbox,
    )
    assert "tried lock-send" in sent and "tried lock-receive" in log, (sent, log)
    assert_honest_game(outcome)
    channels = {name: heard(log, name) for name in ("proc-locks", "getlk", "dev-null", "flock")}
    if sandbox == "none":  # the attack is real
        assert channels["proc-locks"] == bits and channels["dev-null"] == bits, channels
        assert channels["flock"] == "held"
    else:
        assert channels["proc-locks"] == "0" * 32, channels
        assert channels["getlk"].startswith("refused"), channels
        assert channels["dev-null"] == "0" * 32 and channels["flock"] == "free", channels


# -- masks -----------------------------------------------------------------------------------


def test_the_mask_over_a_log_folder_inside_a_bots_folder_cannot_be_written(tmp_path):
    folder = readable_folder(tmp_path / "bot")
    shutil.copy(TRUST, folder / "bot.py")
    logs = folder / "logs"
    logs.mkdir()
    attacker = trust("write-mask", f"@{logs}", script=folder / "bot.py")
    result = CliRunner().invoke(
        main,
        ["play", "mountain-goats", "--json", "--quiet", "--log-dir", str(logs)]
        + ["--bot", attacker, "--bot", HONEST],
    )
    assert result.exit_code == 0, result.output
    assert_honest_game(json.loads(result.output.strip().splitlines()[-1]))
    log = (logs / "seat0.log").read_text()
    assert "tried write-mask: 0 MiB" in log and "Read-only file system" in log, log
    assert not list(logs.glob("goatarena-*"))


# -- one folder of single-file submissions --------------------------------------------------


def test_two_bots_in_one_folder_are_warned_about(tmp_path):
    subs = readable_folder(tmp_path / "subs")
    for name in ("alice", "bob"):
        shutil.copy(RANDOM_BOT, subs / f"{name}.py")
    alice, bob = (f"{sys.executable} {subs / name}.py" for name in ("alice", "bob"))
    _, _, printed = play(tmp_path, alice, bob)
    [warning] = [line for line in printed.splitlines() if "share the folder" in line]
    assert str(subs) in warning and "a folder of its own" in warning
    lines = ['name = "subs"', "seed = 0", "[bots]", f"alice = {json.dumps(alice)}"]
    lines += [f"bob = {json.dumps(bob)}", f"carol = {json.dumps(HONEST)}"]
    lines += ['[[games]]\nname = "mountain-goats"\nplayers = 2']
    (tmp_path / "t.toml").write_text("\n".join(lines) + "\n")
    [warning] = shared_folder_warnings(load_config(tmp_path / "t.toml").bots)
    assert "bots alice, bob share the folder" in warning
