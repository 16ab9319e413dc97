"""A bot that plays well but breaks the forward-compatibility rule: ``strict.py``.

It exits with code 5 on a message type or a field that protocol v1 does not define,
where the protocol asks bots to skip them.
"""

import json
import sys

FIELDS = {
    "hello": {"type", "protocol", "referee"},
    "start": {"type", "game", "seat", "players", "time", "options", "match", "seed"},
    "decide": {"type", "decision", "observation", "actions", "time_ms", "events"},
    "end": {"type", "scores", "ranks", "seat"},
    "quit": {"type"},
}

for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind not in FIELDS:
        sys.exit(f"strict: unknown message type {kind!r}")
    unknown = set(message) - FIELDS[kind]
    if unknown:
        sys.exit(f"strict: unknown fields {sorted(unknown)} in {kind}")
    if kind == "hello":
        print(json.dumps({"type": "hello", "name": "strict"}), flush=True)
    elif kind == "decide":
        print(json.dumps({"type": "action", "index": 0}), flush=True)
    elif kind == "quit":
        break
