"""Ctrl-C and SIGTERM in every command that runs bots: one line, exit 130 or 143, no
traceback, and no bot process left (checked by the process ids the bots write down)."""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import ROOT

PIDFILE_BOT = ROOT / "tests" / "bots" / "pidfile.py"


def slow_bot(pids: Path) -> str:
    return f"{shlex.quote(sys.executable)} {PIDFILE_BOT} {pids}"


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def interrupt(args: list[str], pids: Path, signum: int, *, bots: int, cwd: Path) -> tuple:
    """Start ``goatarena ARGS``, wait until ``bots`` bots are running, send ``signum``."""
    process = subprocess.Popen(
        [sys.executable, "-m", "goatarena", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while not (pids.exists() and len(pids.read_text().split()) >= bots):
        assert time.monotonic() < deadline and process.poll() is None, process.communicate()
        time.sleep(0.05)
    time.sleep(0.5)  # mid-game
    process.send_signal(signum)
    output, errors = process.communicate(timeout=30)
    return process.returncode, output, errors, [int(pid) for pid in pids.read_text().split()]


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
@pytest.mark.parametrize("command", ["play", "check-bot", "run"])
def test_a_signal_stops_the_command_in_one_line_with_every_bot_gone(
    tmp_path, command, signum, status
):
    pids = tmp_path / "pids"
    bot = slow_bot(pids)
    # Unsandboxed: the bots write down their process ids, which a pid namespace would
    # hide (tests/test_sandbox.py checks that a signal leaves no sandboxed bot behind).
    if command == "play":
        args, bots = ["play", "mountain-goats", "--sandbox", "none", "--bot", bot, "--bot", bot], 2
    elif command == "check-bot":
        args, bots = ["check-bot", "--sandbox", "none", bot], 1
    else:
        config = tmp_path / "t.toml"
        config.write_text(
            'name = "t"\nconcurrency = 2\ndeals = 4\nsandbox = "none"\n[bots]\n'
            + "".join(f"{name} = {json.dumps(bot)}\n" for name in ("a", "b", "c"))
            + '[[games]]\nname = "mountain-goats"\n'
        )
        args, bots = ["run", str(config), "--db", str(tmp_path / "t.sqlite"), "--quiet"], 4
    code, _output, errors, started = interrupt(args, pids, signum, bots=bots, cwd=tmp_path)
    assert code == status
    assert "Traceback" not in errors
    lines = [line for line in errors.splitlines() if line.strip()]
    verb = "interrupted" if signum == signal.SIGINT else "terminated"
    assert len(lines) == 1 and verb in lines[0]
    time.sleep(0.1)
    assert not [pid for pid in started if alive(pid)]


def bots_of(pid: int) -> list[int]:
    """The live child processes of ``pid`` that run a ``python -c`` program, as the
    bench's bots do (not, say, the ``ldconfig`` that importing trio runs)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                command = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            alive = fields[0] not in ("Z", "X")
            if int(fields[1]) == pid and alive and b"\x00-c\x00" in command:
                found.append(int(entry.name))
    return found


@pytest.mark.slow
def test_a_signal_stops_bench_in_one_line_with_every_bot_gone(tmp_path):
    process = subprocess.Popen(
        [sys.executable, "-m", "goatarena", "bench", "--quick"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not (bots := bots_of(process.pid)):  # the bench has started its first bots
        assert time.monotonic() < deadline and process.poll() is None, process.communicate()
        time.sleep(0.02)
    process.send_signal(signal.SIGTERM)
    _output, errors = process.communicate(timeout=30)
    assert process.returncode == 143
    assert "Traceback" not in errors
    assert errors.splitlines()[-1] == "goatarena: terminated"
    assert not [pid for pid in bots if alive(pid)]


def test_a_reader_that_stops_early_ends_check_bot_quietly_with_every_bot_gone(tmp_path):
    # `goatarena check-bot BOT | head -1`: the first line is read, then the pipe closes.
    pids = tmp_path / "pids"
    process = subprocess.Popen(
        # Unsandboxed for the same reason as above: the bot writes down its process id.
        [
            sys.executable,
            "-m",
            "goatarena",
            "check-bot",
            "--sandbox",
            "none",
            slow_bot(pids) + " 1",
        ],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdout.readline().startswith("checking")
    process.stdout.close()
    _, errors = process.communicate(timeout=120)
    assert process.returncode == 128 + signal.SIGPIPE, errors
    assert errors == ""  # no traceback, nothing to say: the reader chose to stop
    assert not any(alive(int(pid)) for pid in pids.read_text().split())


@pytest.mark.parametrize(
    ("signum", "status", "verb"),
    [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")],
)
def test_a_signal_while_the_command_line_loads_is_one_line(signum, status, verb):
    # The signal arrives in the middle of importing the commands, as a Ctrl-C typed at
    # once would on a slow machine.
    program = f"""
import builtins, os, sys
real_import = builtins.__import__
def importing(name, *args, **kwargs):
    if name == "goatarena.cli":
        os.kill(os.getpid(), {int(signum)})
    return real_import(name, *args, **kwargs)
builtins.__import__ = importing
sys.argv = ["goatarena", "--help"]
from goatarena.entry import main
main()
"""
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == status
    assert done.stderr.strip() == f"goatarena: {verb}"


@pytest.mark.parametrize(
    ("signum", "status", "verb"),
    [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")],
)
def test_a_signal_whose_exception_an_import_swallows_still_stops_the_command(signum, status, verb):
    # Python runs the handler of a signal that arrives during a weak reference's callback
    # (an import's module lock has one) inside that callback, which swallows what it
    # raises: the run went on playing a million games after a Ctrl-C typed at 0.25 s.
    program = f"""
import signal, sys, weakref
import goatarena.cli
def swallowing(word):
    class Lock:
        pass
    lock = Lock()
    watcher = weakref.ref(lock, lambda _: signal.raise_signal({int(signum)}))
    del lock  # the callback runs here, and the signal's exception dies in it
goatarena.cli.load_command = swallowing
sys.argv = ["goatarena", "standings", "--db", "/nonexistent.sqlite"]
from goatarena.entry import main
main()
"""
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == status, done.stderr
    assert done.stderr.strip() == f"goatarena: {verb}"
