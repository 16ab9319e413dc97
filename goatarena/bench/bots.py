"""The bots the benchmarks play: the floor reader, an SDK random bot, a minimal and a silent bot."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import goatarena
from goatarena.referee.clock import TimeControl

_PACKAGE_ROOT = str(Path(goatarena.__file__).resolve().parent.parent)
_IMPORT_PACKAGE = f"import sys; sys.path.insert(0, {_PACKAGE_ROOT!r})\n"

FLOOR_READER = """\
import sys
read, write, flush = sys.stdin.buffer.readline, sys.stdout.buffer.write, sys.stdout.buffer.flush
reply = REPLY
while read():
    write(reply)
    flush()
"""
"""The smallest Python program that answers every line (REPLY is filled in)."""

RANDOM_BOT = (
    _IMPORT_PACKAGE
    + """\
import random
from goatarena.sdk import Bot, run

class RandomBot(Bot):
    name = "random"

    def start(self, game):
        self.rng = random.Random(game.seed)

    def choose(self, request):
        return self.rng.randrange(request.action_count)

run(RandomBot())
"""
)
"""The SDK random bot (as ``bots/python/random_bot.py``), importing this very package."""

MINIMAL_BOT = """\
import sys
read, write, flush = sys.stdin.buffer.readline, sys.stdout.buffer.write, sys.stdout.buffer.flush
while line := read():
    if line.startswith(b'{"type":"decide"'):
        write(b'{"type":"action","index":0}\\n')
        flush()
    elif line.startswith(b'{"type":"hello"'):
        write(b'{"type":"hello","name":"minimal"}\\n')
        flush()
    elif line.startswith(b'{"type":"quit"'):
        break
"""
"""A bot that answers without decoding anything: always the first action."""

SILENT_BOT = """\
import sys
for line in sys.stdin.buffer:
    if line.startswith(b'{"type":"hello"'):
        sys.stdout.buffer.write(b'{"type":"hello","name":"silent"}\\n')
        sys.stdout.buffer.flush()
"""
"""A bot that greets and then never answers."""

ACTION_REPLY = b'{"type":"action","index":3,"decision":41}\n'
BENCH_GAME = "mountain-goats"
BENCH_TIME = TimeControl(move_ms=10_000, startup_ms=30_000)
"""Generous limits: a loaded machine must not turn the measurement into forfeits."""


def python_command(code: str) -> str:
    """The command line running ``code`` on this interpreter."""
    return shlex.join([sys.executable, "-c", code])
