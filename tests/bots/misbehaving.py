"""A protocol bot that misbehaves on purpose: ``misbehaving.py MODE [AFTER]``.

It plays correctly (first legal action) for AFTER decisions (default 0), then:
hang (sleeps forever), exit (exits with code 3), garbage (writes a non-JSON line),
bad-index (answers an index out of range), wrong-type (answers a hello), good (never
misbehaves). Mode ``no-hello`` exits before the handshake.
"""

import json
import sys
import time

mode = sys.argv[1]
after = int(sys.argv[2]) if len(sys.argv) > 2 else 0
if mode == "no-hello":
    sys.exit(4)
decisions = 0


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if kind == "hello":
        send({"type": "hello", "name": mode})
    elif kind == "decide":
        if decisions >= after and mode != "good":
            if mode == "hang":
                time.sleep(3600)
            elif mode == "exit":
                print("giving up", file=sys.stderr, flush=True)
                sys.exit(3)
            elif mode == "garbage":
                sys.stdout.write("this is not json\n")
                sys.stdout.flush()
                continue
            elif mode == "bad-index":
                send({"type": "action", "index": len(message["actions"]) + 5})
                continue
            elif mode == "wrong-type":
                send({"type": "hello", "name": "again"})
                continue
        decisions += 1
        send({"type": "action", "index": 0})
    elif kind == "quit":
        break
