"""What a bot on the Python SDK prints goes to its log: never into an answer, by any route."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from goatarena.cli import main
from goatarena.sdk._stdout import NOTE
from tests.helpers import RANDOM_BOT, ROOT

PRINTING = ROOT / "tests" / "bots" / "printing.py"


def printing(mode: str) -> str:
    """The command of the printing test bot in ``mode``."""
    return f"{shlex.quote(sys.executable)} {PRINTING} {mode}"


def test_a_bot_that_prints_under_the_sdk_plays_a_round_robin_with_no_malformed_answer(
    tmp_path: Path,
):
    """Six Goat Lords games, some 500 decisions of a bot printing ~100 bytes at each (the
    unprotected SDK forfeited all six as malformed): every print is in its log."""
    config = tmp_path / "t.toml"
    bots = {"printer": printing("sdk"), "random": RANDOM_BOT}
    config.write_text(
        'name = "t"\nseed = 5\ndeals = 3\n[time]\nmove_ms = 1000\n[bots]\n'
        + "".join(f"{name} = {json.dumps(command)}\n" for name, command in bots.items())
        + '[[games]]\nname = "goat-lords"\nplayers = 2\n'
    )
    db = tmp_path / "t.sqlite"
    ran = CliRunner().invoke(main, ["run", str(config), "--db", str(db), "--quiet"])
    assert ran.exit_code == 0, ran.output
    shown = CliRunner().invoke(main, ["standings", "--db", str(db), "--format", "json"])
    rows = {row["bot"]: row for row in json.loads(shown.output)["standings"]["overall"]}
    assert rows["printer"]["games"] == 6
    assert rows["printer"]["violations"] == {} and rows["random"]["violations"] == {}
    log = (tmp_path / "t-logs" / "printer.log").read_text()
    assert log.count("debug: decision") > 400
    # (What C's printf buffers is written at exit: a bot killed after its quit grace
    # loses it, so it is checked below, where the bot exits in its own time.)
    for route in ("written to descriptor 1", "from a subprocess"):
        assert f"debug: {route}" in log
    assert NOTE in log


def test_prints_before_run_and_the_note_go_to_stderr_once(tmp_path: Path):
    """A bot that prints while it loads, then at every decision, in Python and in C:
    stdout holds its answers alone, stderr the prints and one note."""
    bot = tmp_path / "bot.py"
    bot.write_text(
        "import ctypes\n"
        "from goatarena.sdk import Bot, run\n"
        "print('loading')\n"
        "class Loud(Bot):\n"
        "    name = 'loud'\n"
        "    def choose(self, request):\n"
        "        print('thinking', request.decision)\n"
        "        ctypes.CDLL(None).printf(b'in C\\n')\n"
        "        return 0\n"
        "run(Loud())\n"
    )
    # As a user's shell runs it: Python block-buffers its stdout in a pipe.
    env = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    messages = [
        {"type": "hello", "protocol": 1, "referee": "goatarena"},
        *({"type": "decide", "decision": n, "actions": [1], "time_ms": 100} for n in (0, 2)),
        {"type": "quit"},
    ]
    done = subprocess.run(
        [sys.executable, str(bot)],
        input="".join(json.dumps(message) + "\n" for message in messages),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env=env,
    )
    assert done.stdout.splitlines() == [
        '{"type":"hello","name":"loud"}',
        '{"type":"action","index":0,"decision":0}',
        '{"type":"action","index":0,"decision":2}',
    ]
    # C's stdio buffers its own output until the process exits.
    assert done.stderr.splitlines() == ["loading", NOTE, "thinking 0", "thinking 2", "in C", "in C"]
