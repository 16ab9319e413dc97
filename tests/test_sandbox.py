"""Attacks on the referee and on opponents, each by a hostile test bot (tests/bots/hostile.py).

Every test plays through the command line with default settings (bots sandboxed) and
checks that the attack was made and failed, that both seats get the outcome they earned,
and that nothing the hostile bot started is left running.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from goatarena.cli import main
from goatarena.formats.schedule import match_id
from goatarena.referee.sandbox import probe
from goatarena.running.job import deal_of
from tests.helpers import ROOT

pytestmark = pytest.mark.skipif(probe() is not None, reason=f"no sandbox here: {probe()}")

HOSTILE = ROOT / "tests" / "bots" / "hostile.py"
HONEST = f"{shlex.quote(sys.executable)} {ROOT / 'bots' / 'python' / 'random_bot.py'} 4242"
"""The victim: the hostile bot attacks only processes with ``random_bot.py 4242``."""


def hostile(attack: str, token: str, *args: object) -> str:
    words = [sys.executable, str(HOSTILE), attack, token, *map(str, args)]
    return shlex.join(words)


def survivors(token: str, *, wait_s: float = 2.0) -> list[int]:
    """Live processes whose command line has ``token`` (waiting a moment for them to die)."""
    deadline = time.monotonic() + wait_s
    while True:
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                if token.encode() not in (entry / "cmdline").read_bytes():
                    continue
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state not in ("Z", "X"):
                found.append(int(entry.name))
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def play(tmp_path: Path, attacker: str, *options: str, game: str = "mountain-goats"):
    """Play one game, attacker in seat 0; the JSON result and the attacker's stderr."""
    logs = tmp_path / "logs"
    result = CliRunner().invoke(
        main,
        ["play", game, "--seed", "1", "--json", "--quiet", "--log-dir", str(logs)]
        + ["--move-ms", "1000", *options, "--bot", attacker, "--bot", HONEST],
    )
    assert result.exit_code == 0, result.output
    outcome = json.loads(result.output.strip().splitlines()[-1])
    return outcome, (logs / "seat0.log").read_text()


def assert_failed(log: str, attack: str) -> None:
    assert f"tried {attack}" in log, log
    assert "BREACH" not in log, log


def assert_honest_game(outcome: dict) -> None:
    """Neither seat lost control: the game was played out by both."""
    assert outcome["violations"] == [None, None], outcome["violations"]
    assert sorted(outcome["ranks"]) in ([1, 2], [1, 1])


@pytest.mark.parametrize("attack", ["proc-snoop", "kill", "pipe-inject"])
def test_a_bot_sees_no_other_process_and_cannot_touch_its_opponent(tmp_path, attack):
    token = uuid.uuid4().hex
    outcome, log = play(tmp_path, hostile(attack, token))
    assert_failed(log, attack)
    assert_honest_game(outcome)
    assert survivors(token) == []


def test_a_bot_cannot_stop_or_kill_the_referee(tmp_path):
    token = uuid.uuid4().hex
    logs = tmp_path / "logs"
    # The shell's pid is the referee's: exec keeps it, and the bot is told it.
    command = (
        f"exec {shlex.quote(sys.executable)} -m goatarena play mountain-goats --seed 1"
        f" --json --quiet --log-dir {shlex.quote(str(logs))}"
        f" --bot {shlex.quote(hostile('signal-referee', token, '$$'))} --bot {shlex.quote(HONEST)}"
    )
    command = command.replace("'$$'", '"$$"')
    done = subprocess.run(
        ["sh", "-c", command], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert_failed((logs / "seat0.log").read_text(), "signal-referee")
    assert_honest_game(json.loads(done.stdout.strip().splitlines()[-1]))
    assert survivors(token) == []


def test_daemons_die_with_the_bot(tmp_path):
    token = uuid.uuid4().hex
    outcome, log = play(tmp_path, hostile("daemon", token))
    assert "tried daemon" in log
    assert_honest_game(outcome)
    assert survivors(token) == []


def test_a_fork_bomb_is_bounded_and_dies_with_the_bot(tmp_path):
    token = uuid.uuid4().hex
    outcome, log = play(tmp_path, hostile("fork-bomb", token))
    children = int(log.split("tried fork-bomb: ")[1].split()[0])
    assert children < 256  # the pids limit, threads and helpers included
    assert_honest_game(outcome)
    assert survivors(token) == []


def test_shared_memory_counts_against_the_memory_limit(tmp_path):
    token = uuid.uuid4().hex
    outcome, log = play(tmp_path, hostile("shm-hog", token), "--memory-mb", "256")
    assert "BREACH" not in log
    violation = outcome["violations"][0]
    assert violation["cause"] == "crash" and "memory" in violation["detail"], violation
    assert outcome["violations"][1] is None
    assert outcome["ranks"] == [2, 1]
    assert survivors(token) == []


def test_tmp_is_private_and_size_capped(tmp_path):
    token = uuid.uuid4().hex
    outcome, log = play(tmp_path, hostile("tmp-fill", token))
    assert_failed(log, "tmp-fill")
    assert int(log.split("tried tmp-fill: ")[1].split()[0]) <= 64
    assert_honest_game(outcome)
    assert not Path("/tmp/fill").exists()


def test_a_bot_has_no_network(tmp_path):
    token = uuid.uuid4().hex
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        outcome, log = play(tmp_path, hostile("network", token, port))
    assert_failed(log, "network")
    assert_honest_game(outcome)


CPU_HEAVY = """
import json, sys, time
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "heavy"}), flush=True)
    elif message["type"] == "decide":
        # A tenth of its time, in CPU time: on a starved CPU this takes far longer.
        started = time.thread_time()
        while time.thread_time() - started < message["time_ms"] / 10000:
            pass
        print(json.dumps({"type": "action", "index": 0}), flush=True)
    elif message["type"] == "quit":
        break
"""


@pytest.mark.slow
@pytest.mark.parametrize("attack", ["cpu-starve", "fork-on-answer"])
def test_cpu_burners_cost_an_in_time_opponent_nothing(tmp_path, attack):
    token = uuid.uuid4().hex
    heavy = shlex.join([sys.executable, "-c", CPU_HEAVY])
    logs = tmp_path / "logs"
    result = CliRunner().invoke(
        main,
        ["play", "goat-n-goat", "--seed", "2", "--json", "--quiet", "--log-dir", str(logs)]
        + ["--move-ms", "1000", "--bot", hostile(attack, token), "--bot", heavy],
    )
    assert result.exit_code == 0, result.output
    outcome = json.loads(result.output.strip().splitlines()[-1])
    log = (logs / "seat0.log").read_text()
    assert f"tried {attack}" in log
    # The burners ran only in the attacker's own turns: a few milliseconds each. Unpaused,
    # they would have had every CPU for the whole game. A burner forked as the bot answers
    # gets a moment at most (escaping the pause, it had 0.7 s of a 6 s game).
    cpu, wall = map(float, log.strip().splitlines()[-1].split()[2::3][:2])
    share = 0.1 if attack == "cpu-starve" else 0.05
    assert wall > 1.0 and cpu < share * wall, log.splitlines()[-1]
    assert outcome["violations"] == [None, None], outcome["violations"]
    assert outcome["latency"][1]["decisions"] >= 10
    assert survivors(token) == []


# -- in a tournament -----------------------------------------------------------------------


def write_tournament(path: Path, bots: dict[str, str], extra: str = "") -> Path:
    lines = ['name = "attacks"', "seed = 0", "concurrency = 2", extra, "[time]", "move_ms = 2000"]
    lines += ["[bots]"] + [f"{name} = {json.dumps(command)}" for name, command in bots.items()]
    lines += ['[[games]]\nname = "mountain-goats"\nplayers = 2']
    lines += ['[[games]]\nname = "goat-lords"\nplayers = 2']
    path.write_text("\n".join(lines) + "\n")
    return path


def run(*args: str):
    result = CliRunner().invoke(main, ["run", "--quiet", *map(str, args)])
    assert result.exit_code == 0, result.output
    return result


def test_in_a_tournament_bots_cannot_kill_inject_or_forge_results(tmp_path):
    token = uuid.uuid4().hex
    db = tmp_path / "results" / "attacks.sqlite"
    db.parent.mkdir()  # run makes no folder for a --db
    bots = {
        "honest": HONEST,
        "killer": hostile("kill", token),
        "injector": hostile("pipe-inject", token),
        "forger": hostile("database", token, f"@{db}"),  # it knows where: no word of its own
    }
    run(write_tournament(tmp_path / "t.toml", bots), "--db", db)
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT key, result FROM games").fetchall()
    assert len(rows) == 6 * 2 * 2  # six pairs, two games, two seat rotations
    assert all(not key.startswith("forged") for key, _ in rows)
    for _, text in rows:
        assert json.loads(text)["violations"] == [None, None]
    logs = db.with_name("attacks-logs")
    for name, attack in (("killer", "kill"), ("injector", "pipe-inject"), ("forger", "database")):
        assert_failed((logs / f"{name}.log").read_text(), attack)
    assert survivors(token) == []


@pytest.mark.parametrize("secret", [True, False])
def test_the_tournament_file_does_not_reveal_the_deals(tmp_path, secret):
    token = uuid.uuid4().hex
    known = tmp_path / "known" / "public.toml"  # what the attacker knows: a copy of the file
    known.parent.mkdir()
    bots = {"rebuilder": hostile("seed-rebuild", token, known), "honest": HONEST}
    extra = "" if secret else "secret_deals = false"
    extra += f"\n[paths.rebuilder]\nread = [{json.dumps(str(known.parent))}]"
    config = write_tournament(tmp_path / "t.toml", bots, extra)
    known.write_text(config.read_text())
    db = tmp_path / "attacks.sqlite"
    run(config, "--db", db)
    log = db.with_name("attacks-logs") / "rebuilder.log"
    assert "tried seed-rebuild" in log.read_text()
    # The attack is real: without the secret it finds the deal of its game.
    assert ("BREACH rebuilt the deal" in log.read_text()) is not secret


def test_no_process_plays_a_deal_twice_and_nothing_it_writes_survives_it(tmp_path):
    token = uuid.uuid4().hex
    bots = {"rememberer": hostile("remember", token), "honest": HONEST}
    config = write_tournament(tmp_path / "t.toml", bots, "deals = 3")
    db = tmp_path / "attacks.sqlite"
    run(config, "--db", db, "--concurrency", "1")
    with sqlite3.connect(db) as connection:
        keys = [row[0] for row in connection.execute("SELECT key FROM games")]
        secret = connection.execute("SELECT value FROM meta WHERE key = 'deal_secret'").fetchone()
    deals_by_match = {match_id(key, secret[0]): deal_of(key) for key in keys}
    played: dict[str, list[str]] = {}
    log = (db.with_name("attacks-logs") / "rememberer.log").read_text()
    assert "BREACH" not in log
    for line in log.splitlines():
        if line.startswith("played "):
            match, process = line.split()[1], line.split()[4].rstrip(";")
            played.setdefault(process, []).append(deals_by_match[match])
    assert sum(len(deals) for deals in played.values()) == len(keys)  # it plays every game
    for deals in played.values():
        assert len(deals) == len(set(deals)), played
    assert any(len(deals) > 1 for deals in played.values())  # processes are still reused


JAVA_BOT = """
import java.io.*;
public class Bot {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.contains("\\"type\\":\\"hello\\"")) System.out.println("{\\"type\\":\\"hello\\",\\"name\\":\\"java\\"}");
            else if (line.contains("\\"type\\":\\"decide\\"")) System.out.println("{\\"type\\":\\"action\\",\\"index\\":0}");
            else if (line.contains("\\"type\\":\\"quit\\"")) break;
            System.out.flush();
        }
    }
}
"""


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("java") is None, reason="no java")
def test_node_and_java_bots_play_under_the_default_limits(tmp_path):
    source = tmp_path / "java" / "Bot.java"
    source.parent.mkdir()
    source.write_text(JAVA_BOT)
    node = f"node {ROOT / 'bots' / 'javascript' / 'random_bot.js'}"
    result = CliRunner().invoke(
        main,
        ["play", "mountain-goats", "--seed", "1", "--json", "--quiet", "--startup-ms", "30000"]
        + ["--bot", f"java {source}", "--bot", node],
    )
    assert result.exit_code == 0, result.output
    outcome = json.loads(result.output.strip().splitlines()[-1])
    assert outcome["violations"] == [None, None], outcome["violations"]
    assert outcome["players"] == ["java", "random-js"]


def test_the_runners_files_stay_hidden_inside_a_bots_own_folder(tmp_path):
    token = uuid.uuid4().hex
    folder = tmp_path / "bot"  # the bot's own folder, which holds the results too
    folder.mkdir()
    shutil.copy(HOSTILE, folder / "hostile.py")
    db = folder / "results.sqlite"
    command = shlex.join([sys.executable, str(folder / "hostile.py"), "unmask", token, str(db)])
    config = write_tournament(folder / "t.toml", {"unmasker": command, "honest": HONEST})
    run(config, "--db", db)
    log = (folder / "results-logs" / "unmasker.log").read_text()
    assert_failed(log, "unmask")
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 4


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_to_the_runner_leaves_no_sandboxed_bot_or_daemon_behind(tmp_path, signum):
    token = uuid.uuid4().hex
    config = write_tournament(
        tmp_path / "t.toml", {"a": hostile("daemon", token), "b": hostile("daemon", token)}
    )
    process = subprocess.Popen(
        [sys.executable, "-m", "goatarena", "run", "--quiet", str(config)]
        + ["--db", str(tmp_path / "t.sqlite"), "--concurrency", "1"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while len(survivors(token, wait_s=0)) < 4:  # two bots and their daemons
        assert time.monotonic() < deadline and process.poll() is None, process.communicate()
        time.sleep(0.05)
    process.send_signal(signum)
    _output, errors = process.communicate(timeout=30)
    assert process.returncode in (130, 143), errors
    assert "Traceback" not in errors
    assert survivors(token) == []
