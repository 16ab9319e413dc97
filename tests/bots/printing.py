"""A bot that prints debug lines to stdout, as a student would: ``printing.py MODE``.

It chooses at random, seeded from each game, and at every decision prints a ~100-byte
debug line with ``print()`` (no flush: Python block-buffers stdout in a pipe, so the
lines pile up unseen and come out ~8 KB at a time).

  sdk   a bot on :func:`goatarena.sdk.run`, which also writes straight to descriptor 1
        every 10th decision, has a subprocess print at its first, and prints from C
        (``printf``) at its first: every one of them must end in its log, none in an
        answer
  raw   its own loop, answers written to ``sys.stdout.buffer`` and flushed, the debug
        lines printed on the block-buffered ``sys.stdout`` above it: the prints land in
        the protocol once 8 KB has gathered (and at exit), where check-bot must see them
"""

import ctypes
import io
import json
import os
import random
import subprocess
import sys

from goatarena.sdk import Request, SeededBot, run

PADDING = "." * 60


def debug(decision: int, actions: int) -> None:
    print(f"debug: decision {decision}, {actions} actions {PADDING}")


class Printer(SeededBot):
    """Chooses at random; prints at every decision, by every route there is to stdout."""

    name = "printer"

    def __init__(self) -> None:
        super().__init__()
        self.decisions = 0

    def choose(self, request: Request) -> int:
        debug(request.decision, request.action_count)
        if self.decisions % 10 == 0:
            os.write(1, b"debug: written to descriptor 1\n")
        if self.decisions == 0:
            subprocess.run(["echo", "debug: from a subprocess"], check=True)
            libc = ctypes.CDLL(None)
            libc.printf(b"debug: from C\n")
        self.decisions += 1
        return self.rng.randrange(request.action_count)


def raw() -> None:
    """Its own protocol loop, answers beside the buffered prints."""
    # Python's stdout in a pipe, even where PYTHONUNBUFFERED would have it otherwise.
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)))
    answers = sys.stdout.buffer
    rng = random.Random(1)
    for line in sys.stdin.buffer:
        message = json.loads(line)
        if message["type"] == "hello":
            answers.write(b'{"type":"hello","name":"raw-printer"}\n')
        elif message["type"] == "decide":
            debug(message["decision"], len(message["actions"]))
            index = rng.randrange(len(message["actions"]))
            answers.write(b'{"type":"action","index":%d}\n' % index)
        elif message["type"] == "quit":
            break
        answers.flush()


if __name__ == "__main__":
    if sys.argv[1] == "sdk":
        run(Printer())
    else:
        raw()
