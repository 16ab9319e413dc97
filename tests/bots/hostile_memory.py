"""A Goat Lords bot with a perfect memory across processes: ``hostile_memory.py FOLDER``.

FOLDER is a path it is given to write, which every process of it shares: the strongest
memory a bot could have between a deal's rotations (the page cache gives a few bits of
it). At its first decision of each game it writes down the face-up card, its seat and its hand, and
looks up what earlier processes wrote of the same face-up card from another seat: in a
rotated deal, that process held the hand its opponent holds now. For each it says
``guess own=HAND opponent=HAND`` on stderr (hands sorted, comma-separated), then
``tried memory``. It plays the first legal action on every request.
"""

import json
import os
import sys
import uuid

folder = sys.argv[1]


def remember(observation):
    # The face-up card the deal began with: seat 0's first action (a birth, as a rule)
    # leaves it, so a later seat sees it too; other deals may share it (a wrong guess).
    key = observation["discard_top"]
    own = ",".join(sorted(observation["hand"]))
    for name in sorted(os.listdir(folder)):
        try:
            with open(os.path.join(folder, name)) as file:
                earlier = json.load(file)
        except (OSError, ValueError):
            continue
        if earlier["key"] == key and earlier["seat"] != observation["seat"]:
            print(f"guess own={own} opponent={earlier['hand']}", file=sys.stderr, flush=True)
    record = {"key": key, "seat": observation["seat"], "hand": own}
    with open(os.path.join(folder, f"{uuid.uuid4().hex}.json"), "w") as file:
        json.dump(record, file)
    print("tried memory", file=sys.stderr, flush=True)


attacked = False
for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if kind == "hello":
        sys.stdout.write(json.dumps({"type": "hello", "name": "memory"}) + "\n")
        sys.stdout.flush()
    elif kind == "start":
        attacked = False  # a process plays game after game (never one deal twice)
    elif kind == "decide":
        if not attacked:
            attacked = True
            remember(message["observation"])
        sys.stdout.write(
            json.dumps({"type": "action", "index": 0, "decision": message["decision"]}) + "\n"
        )
        sys.stdout.flush()
    elif kind == "quit":
        break
