"""A protocol bot whose submission reaches out of its folder: ``hostile_folders.py TOKEN
[PATH|@PATH|linger]...``.

Its attacks are in its folder and its command: links in its submission that lead to the
system (``lib -> /usr/lib/x86_64-linux-gnu``), to a root-owned folder of secrets, to
another bot's folder (``peek -> ../bob``) or to the results (``res -> ../results``), named
as words of its command so that they would count as its own; or a folder of many files
that costs every start a copy. At its first decision it reads every path it is given
(``@PATH`` is relative to its own folder and no word of its command; a plain word is one),
a file whole and a folder's files two levels deep, and writes ``BREACH read <path>`` on
stderr for each it could read, then ``tried folders``. ``linger`` makes it sleep at its
first decision (for a runner to be killed while it plays). Otherwise it plays the first
legal action, echoing the decision number.
"""

import json
import os
import sys
import time

token = sys.argv[1]
paths = [word for word in sys.argv[2:] if word != "linger"]
linger = "linger" in sys.argv[2:]
own = os.path.dirname(os.path.abspath(sys.argv[0]))


def say(text):
    print(text, file=sys.stderr, flush=True)


def read(path):
    try:
        with open(path, "rb") as file:
            if file.read(64):
                say(f"BREACH read {path}")
    except OSError:
        pass


def reach_out():
    for word in paths:
        path = os.path.join(own, word[1:]) if word.startswith("@") else word
        path = os.path.normpath(path)
        if os.path.isdir(path):
            for where, folders, files in os.walk(path):
                for name in files[:50]:
                    read(os.path.join(where, name))
                if where.count(os.sep) - path.count(os.sep) >= 1:
                    folders.clear()  # two levels: a worker's log folder, its tournaments'
        else:
            read(path)
    say("tried folders")


attacked = False
for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if kind == "hello":
        say("started")
        sys.stdout.write(json.dumps({"type": "hello", "name": "folders"}) + "\n")
        sys.stdout.flush()
    elif kind == "decide":
        if not attacked:
            attacked = True
            reach_out()
            if linger:
                time.sleep(120)
        reply = {"type": "action", "index": 0, "decision": message["decision"]}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    elif kind == "quit":
        break
