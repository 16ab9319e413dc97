"""A protocol bot that misbehaves on purpose: ``misbehaving.py MODE [AFTER [ARG]]``.

It plays correctly (first legal action, echoing the decision number) for AFTER decisions
(default 0), then misbehaves in MODE on every request. ARG is a size in bytes or a time
in milliseconds, as the mode says.

  good                  never misbehaves
  no-hello              exits with code 4 before the handshake
  slow-start            sleeps ARG ms before it reads anything, then plays well
  kamikaze              burns ARG ms (default 300) of CPU before it reads anything, then
                        greets, and exits with code 3 at its first decision
  hang                  sleeps forever
  hang-ignore-term      ignores SIGTERM and quit, and sleeps forever
  exit                  exits with code 3
  orphan                starts a child that keeps stdout open, then exits
  close-stdout          closes its stdout and keeps running
  garbage               writes a non-JSON line
  wrong-type            answers with a hello
  bad-index             answers an index out of range
  endless-line          writes ARG bytes (default 64 MiB) with no newline, then sleeps
  stderr-flood          plays well but writes ARG bytes (default 4 MiB) to stderr per decision
  no-read               answers hello, then stops reading stdin (its pipe shrunk to one
                        page) and writes an answer every ARG ms (default 5) blindly
  memory                allocates memory without bound
  late                  answers every request ARG ms (default 60) after the time it was told
  late-once             answers this one request late like ``late``, with an out-of-range
                        index, then plays well
  late-once-no-echo     the same, but never echoes the decision number
  just-in-time          answers this one request ARG ms (default 20) before the time it
                        was told runs out, then plays well
  stale-flood           writes answers to a decision never asked, as fast as it can, for ever
"""

import fcntl
import json
import os
import signal
import subprocess
import sys
import time

mode = sys.argv[1]
after = int(sys.argv[2]) if len(sys.argv) > 2 else 0
arg = int(sys.argv[3]) if len(sys.argv) > 3 else None
echo = mode != "late-once-no-echo"
if mode == "no-hello":
    sys.exit(4)
if mode == "slow-start":
    time.sleep((arg or 1000) / 1000)
if mode == "kamikaze":
    burn_until = time.process_time() + (arg or 300) / 1000
    while time.process_time() < burn_until:
        pass
if mode == "hang-ignore-term":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
decisions = 0


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def answer(message, index=0):
    reply = {"type": "action", "index": index}
    if echo:
        reply["decision"] = message["decision"]
    send(reply)


def misbehave(message):
    """Misbehave in ``mode``; True if the request counts as answered."""
    if mode in ("hang", "hang-ignore-term"):
        time.sleep(3600)
    elif mode in ("exit", "kamikaze"):
        print("giving up", file=sys.stderr, flush=True)
        sys.exit(3)
    elif mode == "orphan":
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        os._exit(0)
    elif mode == "close-stdout":
        sys.stdout.close()
        os.close(1)
        time.sleep(3600)
    elif mode == "garbage":
        sys.stdout.write("this is not json\n")
        sys.stdout.flush()
    elif mode == "wrong-type":
        send({"type": "hello", "name": "again"})
    elif mode == "bad-index":
        answer(message, len(message["actions"]) + 5)
    elif mode == "endless-line":
        write_endless_line(arg or 64 << 20)
        time.sleep(3600)
    elif mode == "memory":
        hoard = []
        while True:
            hoard.append(bytearray(16 << 20))
    elif mode in ("late", "late-once", "late-once-no-echo"):
        time.sleep((message["time_ms"] + (arg or 60)) / 1000)
        answer(message, 10**6 if mode != "late" else 0)
    elif mode == "stale-flood":
        stale = json.dumps({"type": "action", "index": 0, "decision": -1}) + "\n"
        while True:
            sys.stdout.write(stale * 1000)
            sys.stdout.flush()
    elif mode == "just-in-time":
        time.sleep((message["time_ms"] - (arg or 20)) / 1000)
        answer(message)
    else:
        return False
    return True


def write_endless_line(size):
    chunk = b"x" * (1 << 16)
    out = sys.stdout.buffer
    while size > 0:
        out.write(chunk[:size])
        size -= len(chunk)
    out.flush()


def play_blind():
    """Answer without ever reading: the referee's writes must block, not ours."""
    fcntl.fcntl(0, fcntl.F_SETPIPE_SZ, 4096)
    send({"type": "hello", "name": mode})
    while True:
        send({"type": "action", "index": 0})
        time.sleep((arg or 5) / 1000)


if mode == "no-read":
    play_blind()

for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if kind == "hello":
        send({"type": "hello", "name": mode})
    elif kind == "decide":
        if mode == "stderr-flood":
            sys.stderr.buffer.write(b"e" * (arg or 4 << 20))
            sys.stderr.flush()
        elif decisions >= after and mode != "good" and misbehave(message):
            decisions += 1
            if mode.startswith("late-once") or mode == "just-in-time":
                mode = "good"
            continue
        decisions += 1
        answer(message)
    elif kind == "quit" and mode != "hang-ignore-term":
        break
