"""A bot that makes the referee pay for its bytes: ``hostile_dribble.py PATTERN [BYTES [SHARE]]``.

Every answer is legal (index 0). For each decision the bot writes BYTES bytes (default
60 KiB, under the 64 KiB line cap) over SHARE (default 0.8) of the decision's
``time_ms``, in one of these patterns:

  stdout   the answer carries an unknown field of BYTES bytes and is written one byte per
           ``write()``, evenly over the time: the pace at which a reader that wakes for
           every byte it is told of wakes the most
  stderr   the same bytes, one per ``write()``, to stderr; then a short answer at once
  whole    the honest pattern with the same bytes and time: the bot thinks for the time,
           then writes the answer with its field in one ``write()``

The writes are paced by spinning on the clock, as a sleep is far coarser than the gap
between two bytes.
"""

import os
import re
import sys
import time

pattern = sys.argv[1]
size = int(sys.argv[2]) if len(sys.argv) > 2 else 60 << 10
share = float(sys.argv[3]) if len(sys.argv) > 3 else 0.8
SHORT = b'{"type":"action","index":0}\n'
LONG = b'{"type":"action","index":0,"x":"' + b"a" * size + b'"}\n'
TIME_MS = re.compile(rb'"time_ms":(\d+)')


def dribble(fd: int, data: bytes, seconds: float) -> None:
    """Write ``data`` to ``fd`` a byte at a time, evenly over ``seconds``."""
    gap = seconds / len(data)
    started = time.perf_counter()
    for at in range(len(data)):
        while time.perf_counter() < started + at * gap:
            pass
        os.write(fd, data[at : at + 1])


def answer(seconds: float) -> None:
    if pattern == "stdout":
        dribble(1, LONG, seconds)
    elif pattern == "stderr":
        dribble(2, b"x" * size, seconds)
        os.write(1, SHORT)
    else:
        time.sleep(seconds)
        os.write(1, LONG)


for message in sys.stdin.buffer:
    if message.startswith(b'{"type":"hello"'):
        os.write(1, b'{"type":"hello","name":"dribble"}\n')
    elif message.startswith(b'{"type":"decide"'):
        found = TIME_MS.search(message)
        answer(share * int(found.group(1)) / 1000 if found else 0.5)
    elif message.startswith(b'{"type":"quit"'):
        break
