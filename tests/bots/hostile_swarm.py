"""A bot that tries to slow the referee down with a swarm of self-waking processes:
``hostile_swarm.py ROLE [N]``.

swarm    forks N worker processes (default 240, or as many as its process limit lets it),
         60 in each of its first turns, which wait until all are there. Then each arms four
         one-shot POSIX timers that send it SIGCONT 1, 2, 3 and 4 ms from now (which
         wakes a process stopped by SIGSTOP), and each time it runs again re-arms them
         and sleeps a millisecond (as ``SCHED_IDLE``, so that the bot's own answers come
         first in its turns): a referee
         that stops a bot by signals finds it running again and again, and would have to
         re-read ``/proc`` for every one of its processes to stop it. The bot answers
         every request at once with the first legal action; on stderr it says how many
         workers it has ("workers N") and whether a fork was refused ("fork refused").
honest   the same program without the swarm: answers every request at once with the
         first legal action (the attacker's seat, played honestly, for comparison).
"""

import ctypes
import gc
import json
import os
import signal
import sys
import time

role = sys.argv[1]
wanted = int(sys.argv[2]) if len(sys.argv) > 2 else 240
TIMERS = 4
PER_TURN = 60


class Timespec(ctypes.Structure):
    _fields_ = [("seconds", ctypes.c_long), ("nanoseconds", ctypes.c_long)]


class Itimerspec(ctypes.Structure):
    _fields_ = [("interval", Timespec), ("value", Timespec)]


class Sigevent(ctypes.Structure):
    _fields_ = [
        ("value", ctypes.c_void_p),
        ("signo", ctypes.c_int),
        ("notify", ctypes.c_int),
        ("padding", ctypes.c_int * 12),
    ]


libc = ctypes.CDLL(None, use_errno=True)


def sigcont_timers() -> list[ctypes.c_void_p]:
    """Timers that each send this process SIGCONT when they expire (SIGEV_SIGNAL)."""
    timers = []
    for _ in range(TIMERS):
        event = Sigevent(signo=signal.SIGCONT, notify=0)
        timer = ctypes.c_void_p()
        if libc.timer_create(1, ctypes.byref(event), ctypes.byref(timer)) != 0:  # MONOTONIC
            os._exit(5)
        timers.append(timer)
    return timers


def worker(start: int) -> None:
    """Wait for the bot's first turn, then wake itself every millisecond, for ever (each
    wake re-arms the next ones)."""
    for fd in (0, 1):
        os.close(fd)
    os.read(start, 1)
    # In its turns, the bot's own answer comes first.
    os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    # A handler of its own: a SIGCONT left at its default may be dropped before it wakes.
    signal.signal(signal.SIGCONT, lambda *_: None)
    timers = sigcont_timers()
    settings = [Itimerspec(Timespec(0, 0), Timespec(0, 1_000_000 * n)) for n in range(1, 5)]
    while True:
        for timer, when in zip(timers, settings):
            libc.timer_settime(timer, 0, ctypes.byref(when), None)
        time.sleep(0.001)


def fork_workers(count: int, start: int) -> int:
    """Fork up to ``count`` workers that start once a byte each can be read from
    ``start``; how many were started."""
    for started in range(count):
        try:
            child = os.fork()
        except OSError:
            print("fork refused", file=sys.stderr, flush=True)
            return started
        if child == 0:
            try:
                worker(start)
            finally:
                os._exit(0)
    return count


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


gc.freeze()  # the workers' collector leaves the forked pages shared
start_reading, start_writing = os.pipe()
workers = 0
forking = role == "swarm"
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        send({"type": "hello", "name": role})
    elif message["type"] == "decide":
        if forking:  # in its own turn
            batch = min(PER_TURN, wanted - workers)
            started = fork_workers(batch, start_reading)
            workers += started
            forking = started == batch and workers < wanted
        send({"type": "action", "index": 0, "decision": message["decision"]})
        if workers and not forking:  # all there: the swarm starts
            print(f"workers {workers}", file=sys.stderr, flush=True)
            os.write(start_writing, b"x" * workers)
            workers = 0
    elif message["type"] == "quit":
        break
