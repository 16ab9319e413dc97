"""A bot that computes while it should be paused: ``hostile_freezer.py``.

A thread of its own spins for ever, from its greeting on. At every request it writes
``paused-cpu C of W`` on stderr: the CPU time C (ms) its process used between its last
answer and this request, W (ms) of wall time — the time it was paused for. A pause that
holds gives it none; where the referee's freezer freezes nothing (a plain folder named
``freezer`` taken for the controller), it had a share of every pause on its CPU. It
answers every request at once with the first legal action.
"""

import json
import sys
import threading
import time


def spin():
    while True:
        pass


def process_cpu():
    return time.process_time()


threading.Thread(target=spin, daemon=True).start()
answered = None
for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if kind == "hello":
        sys.stdout.write(json.dumps({"type": "hello", "name": "freezer"}) + "\n")
        sys.stdout.flush()
        answered = (process_cpu(), time.monotonic())
    elif kind == "decide":
        cpu, wall = process_cpu(), time.monotonic()
        if answered is not None:
            used, waited = (cpu - answered[0]) * 1000, (wall - answered[1]) * 1000
            print(f"paused-cpu {used:.1f} of {waited:.1f}", file=sys.stderr, flush=True)
        sys.stdout.write(
            json.dumps({"type": "action", "index": 0, "decision": message["decision"]}) + "\n"
        )
        sys.stdout.flush()
        answered = (process_cpu(), time.monotonic())
    elif kind == "quit":
        break
