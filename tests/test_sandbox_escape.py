"""Attacks on the walls of the sandbox, each by a hostile test bot
(tests/bots/hostile_escape.py): the environment, writable places, terminals, threads,
daemons of a killed bot, and channels between two bots of one author.

Like tests/test_sandbox.py, every game is played through the command line; each test
checks that the attack was made and failed, and that the honest seat lost nothing. Where
an attack only fails because of the sandbox, the same attack is also played unsandboxed
and must succeed there: the test can tell a wall from an attack that was never made.
"""

from __future__ import annotations

import json
import os
import platform
import shlex
import shutil
import sys
import uuid
from pathlib import Path

import pytest
import trio
from click.testing import CliRunner

from goatarena.cli import main
from goatarena.games import find_game
from goatarena.referee import cgroups, play_match, seccomp
from goatarena.referee.lineup import open_lineup
from goatarena.referee.sandbox import SandboxPolicy, bwrap_options, find_bwrap, probe
from tests.helpers import ROOT
from tests.test_sandbox import (
    HONEST,
    assert_failed,
    assert_honest_game,
    play,
    run,
    survivors,
    write_tournament,
)

pytestmark = pytest.mark.skipif(probe() is not None, reason=f"no sandbox here: {probe()}")

ESCAPE = ROOT / "tests" / "bots" / "hostile_escape.py"


def escape(attack: str, token: str, *args: object) -> str:
    """The command of the hostile bot making ``attack``."""
    return shlex.join([sys.executable, str(ESCAPE), attack, token, *map(str, args)])


def breaches(log: str) -> list[str]:
    return [line for line in log.splitlines() if line.startswith("BREACH")]


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_a_bot_never_sees_the_referees_environment(tmp_path, monkeypatch, sandbox):
    token = uuid.uuid4().hex
    secret = f"secret-{uuid.uuid4().hex}"  # say, a cloud credential of the runner
    monkeypatch.setenv("GOATARENA_TEST_CREDENTIAL", secret)
    outcome, log = play(tmp_path, escape("environ", token, secret), "--sandbox", sandbox)
    assert "tried environ" in log, log
    assert_honest_game(outcome)
    if sandbox == "none":  # the attack is real: a trusted, unsandboxed bot inherits it all
        assert "BREACH found the secret in its own environment" in log
    else:
        assert breaches(log) == []
        assert "HOME=/tmp" in log


def test_a_bot_writes_nowhere_but_its_capped_scratch_space(tmp_path):
    token = uuid.uuid4().hex
    # A generous clock: the attack is its first decision, and a loaded machine is slow.
    outcome, log = play(tmp_path, escape("write-outside", token), "--move-ms", "20000")
    assert_failed(log, "write-outside")
    # /dev/shm is capped like /tmp (64 MiB by default), not bubblewrap's unbounded tmpfs.
    assert 0 < int(log.split("/dev/shm ")[1].split()[0]) <= 64
    assert_honest_game(outcome)
    assert not (Path.cwd() / f"goatarena-{token}").exists()


def test_a_bot_has_no_terminal_to_push_input_into(tmp_path):
    token = uuid.uuid4().hex
    outcome, log = play(tmp_path, escape("tty", token))
    assert_failed(log, "tty")
    assert_honest_game(outcome)


@pytest.mark.skipif(
    "pids" not in cgroups.detect().controllers, reason="no pids cgroup here: threads are unbounded"
)
def test_threads_are_bounded_by_the_process_limit(tmp_path):
    token = uuid.uuid4().hex
    outcome, log = play(tmp_path, escape("thread-hog", token), "--move-ms", "20000")
    threads = int(log.split("tried thread-hog: ")[1].split()[0])
    assert 0 < threads < 256  # the pids limit counts threads as well as processes
    assert_honest_game(outcome)
    assert survivors(token) == []


def test_a_daemon_dies_with_a_bot_killed_by_a_signal(tmp_path):
    token = uuid.uuid4().hex
    outcome, log = play(tmp_path, escape("daemon-die", token))
    assert "tried daemon-die" in log
    violation = outcome["violations"][0]
    assert violation["cause"] == "crash" and "signal" in violation["detail"], violation
    assert outcome["violations"][1] is None and outcome["ranks"] == [2, 1]
    assert survivors(token) == []


COLLUDING_CHANNELS = {"abstract-socket", "sysv-msg", "sysv-shm", "file-in-/tmp"}
"""Channels the speaker must make wherever it runs (POSIX queues, /dev/shm and the keyring
may be missing or refused by the machine unsandboxed; sandboxed, the keyring is refused)."""


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_two_bots_of_one_author_in_one_game_cannot_talk(tmp_path, sandbox):
    token = uuid.uuid4().hex
    logs = tmp_path / "logs"
    result = CliRunner().invoke(
        main,
        ["play", "mountain-goats", "--seed", "1", "--json", "--quiet", "--log-dir", str(logs)]
        + ["--sandbox", sandbox, "--bot", escape("collude-speak", token)]
        + ["--bot", escape("collude-listen", token)],
    )
    assert result.exit_code == 0, result.output
    assert_honest_game(json.loads(result.output.strip().splitlines()[-1]))
    made = set((logs / "seat0.log").read_text().split("made ")[1].split())
    assert made >= COLLUDING_CHANNELS, made
    heard = (logs / "seat1.log").read_text()
    assert "tried collude-listen" in heard
    found = {line.rsplit(" ", 1)[1] for line in breaches(heard)}
    if sandbox == "none":  # the attack is real: unsandboxed, every channel made is found
        assert found == made, heard
    else:
        assert found == set(), heard


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_a_bot_cannot_make_a_user_namespace(tmp_path, sandbox):
    if "--disable-userns" not in bwrap_options(find_bwrap() or ""):
        pytest.skip("this bubblewrap (before 0.8) cannot forbid user namespaces")
    token = uuid.uuid4().hex
    outcome, log = play(tmp_path, escape("userns", token), "--sandbox", sandbox)
    assert "tried userns" in log
    assert_honest_game(outcome)
    made = "BREACH made a user namespace of its own" in log
    assert made is (sandbox == "none")  # unsandboxed, the attack is real


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_the_game_logs_stay_hidden_inside_a_bots_own_folder(tmp_path, sandbox):
    """Both bots in one folder, the logs in it: a bot would read its opponent's stderr,
    where authors often write what they hold."""
    token = uuid.uuid4().hex
    folder = tmp_path / "bots"
    folder.mkdir()
    shutil.copy(ESCAPE, folder / "escape.py")
    logs = folder / "logs"
    reader = shlex.join([sys.executable, str(folder / "escape.py"), "read-logs", token, "logs"])
    talker = shlex.join([sys.executable, str(folder / "escape.py"), "collude-speak", token])
    result = CliRunner().invoke(
        main,
        ["play", "mountain-goats", "--seed", "1", "--json", "--quiet", "--log-dir", str(logs)]
        + ["--sandbox", sandbox, "--bot", reader, "--bot", talker],
    )
    assert result.exit_code == 0, result.output
    assert_honest_game(json.loads(result.output.strip().splitlines()[-1]))
    assert "made " in (logs / "seat1.log").read_text()  # there was something to read
    log = (logs / "seat0.log").read_text()
    assert "tried read-logs" in log
    if sandbox == "none":  # the attack is real: unsandboxed, it finds its opponent's log
        assert "BREACH saw the log seat1.log" in log, log
    else:
        assert breaches(log) == []


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="one CPU: nothing to take")
@pytest.mark.skipif(
    "cpuset" not in cgroups.detect().controllers and seccomp.filter_program() is None,
    reason="neither a cpuset cgroup nor a seccomp filter here: a bot can undo its affinity",
)
def test_a_bot_pinned_to_one_cpu_cannot_take_another(tmp_path):
    """In a tournament with a CPU per game slot, a bot that widens its affinity would take
    the CPU of another game's bots in its turns."""
    token = uuid.uuid4().hex
    config = write_tournament(tmp_path / "t.toml", {"unpin": escape("unpin", token), "h": HONEST})
    run(config, "--db", tmp_path / "t.sqlite")
    log = (tmp_path / "t-logs" / "unpin.log").read_text()
    tried = [line.split()[2:] for line in log.splitlines() if line.startswith("tried unpin")]
    assert tried, log
    for _, before, _, after in tried:
        assert len(before.split(",")) == 1 and after == before, log  # pinned, and it stays
    assert "BREACH" not in log


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_a_bot_is_refused_the_system_calls_it_could_game_the_referee_with(tmp_path, sandbox):
    if seccomp.filter_program() is None:
        pytest.skip(f"no seccomp filter for {platform.machine()}")
    token = uuid.uuid4().hex
    outcome, log = play(tmp_path, escape("syscalls", token), "--sandbox", sandbox)
    assert "tried syscalls" in log, log
    assert_honest_game(outcome)
    if sandbox == "none":  # the attack is real: unconfined, at least these calls work
        # (Not the keyring: a container's own seccomp profile may refuse it to anyone.)
        for what in ("traced a child", "read a child's memory", "set its CPU"):
            assert f"BREACH {what}" in log, log
    else:
        assert breaches(log) == []


def test_no_file_descriptor_of_the_referee_reaches_a_bot(tmp_path):
    token = uuid.uuid4().hex
    outcome, log = play(tmp_path, escape("inherited", token))
    assert_failed(log, "inherited")
    assert_honest_game(outcome)


@pytest.mark.skipif(not cgroups.detect().bases, reason="no cgroups here to be held")
def test_a_bot_that_outstays_its_game_keeps_no_process_or_cgroup(tmp_path):
    """It ignores quit and SIGTERM, and so do its children in sessions of their own."""
    token = uuid.uuid4().hex

    async def main():
        commands = [escape("linger", token), HONEST]
        async with open_lineup(commands, startup_s=10, sandbox=SandboxPolicy()) as bots:
            held = bots[0].confinement.cgroup
            result = await play_match(find_game("mountain-goats"), bots, seed=1)
            assert len(survivors(token, wait_s=0)) >= 9  # it and its eight children run
        return result, held

    result, held = trio.run(main)
    assert result.violations == [None, None]
    assert held is not None and held.folders
    assert [folder for folder in held.folders.values() if folder.exists()] == []
    assert survivors(token) == []


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_a_bots_last_words_reach_the_terminal_without_control_sequences(sandbox):
    token = uuid.uuid4().hex
    result = CliRunner().invoke(
        main,
        ["play", "mountain-goats", "--seed", "1", "--sandbox", sandbox]
        + ["--bot", escape("terminal", token), "--bot", HONEST],
    )
    assert result.exit_code == 2, result.output
    assert "did not start: crash: exited with code 3" in result.output
    assert "tried terminal" in result.output  # its stderr is shown, but only printable
    assert all(char.isprintable() for char in result.output.replace("\n", ""))
    assert not any(line.startswith("goatarena: all bots") for line in result.output.splitlines())


def test_a_sandboxed_bot_that_closes_its_stdout_and_stays_alive_crashes_at_once(tmp_path):
    """bubblewrap's own processes hold the pipe too, so the referee sees no end of file;
    it sees that no process of the bot's own holds it any more: a crash, not a timeout,
    long before the move time is up; and the bot is stopped with its processes."""
    token = uuid.uuid4().hex  # an argument the bot ignores, to find its processes by
    script = str(ROOT / "tests" / "bots" / "misbehaving.py")
    command = shlex.join([sys.executable, script, "close-stdout", "2", "0", token])
    outcome, _ = play(tmp_path, command, "--move-ms", "5000")
    violation = outcome["violations"][0]
    assert violation["cause"] == "crash" and violation["decision"] > 0, violation
    assert violation["detail"] == "closed its stdout"  # not "no answer within 5000 ms"
    assert outcome["violations"][1] is None and outcome["ranks"] == [2, 1]
    assert survivors(token) == []
