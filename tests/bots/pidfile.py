"""A slow, honest bot that appends its process id to a file: ``pidfile.py FILE [MS]``.

It answers every request with its first action after MS milliseconds (default 200), so
a test can interrupt a command mid-game and then check that no bot process is left.
"""

import json
import os
import sys
import time

with open(sys.argv[1], "a") as pids:
    pids.write(f"{os.getpid()}\n")
delay = (int(sys.argv[2]) if len(sys.argv) > 2 else 200) / 1000
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "slow"}), flush=True)
    elif message["type"] == "decide":
        time.sleep(delay)
        print(
            json.dumps({"type": "action", "index": 0, "decision": message["decision"]}), flush=True
        )
    elif message["type"] == "quit":
        break
