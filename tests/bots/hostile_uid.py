"""A bot that uses up what the kernel counts per user, for every bot of its uid:
``hostile_uid.py ROLE``.

hog      before its hello, makes POSIX timers until the kernel refuses one (each takes a
         pending signal of its user's ``RLIMIT_SIGPENDING``) and POSIX message queues
         until none fits in its user's ``RLIMIT_MSGQUEUE`` bytes, and keeps them; it says
         on stderr how many it got ("hogged T timers and Q queues"). Then it answers every
         request with the first legal action.
victim   in each of its decisions makes a POSIX timer (as a bot that stops its search at
         its deadline would) and a small message queue, and deletes them; it says on
         stderr "timer ok" or "timer refused: ERROR", "queue ok" or "queue refused:
         ERROR", and answers with the first legal action.
forks    in its first decision forks sleeping children until the kernel refuses one, says
         "forked N", and answers with the first legal action.
"""

import ctypes
import json
import os
import signal
import sys
import time

role = sys.argv[1]
libc = ctypes.CDLL(None, use_errno=True)
libc.mq_open.restype = ctypes.c_int
libc.mq_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_uint, ctypes.c_void_p]


class Sigevent(ctypes.Structure):
    _fields_ = [
        ("value", ctypes.c_void_p),
        ("signo", ctypes.c_int),
        ("notify", ctypes.c_int),
        ("padding", ctypes.c_int * 12),
    ]


class MqAttr(ctypes.Structure):
    _fields_ = [
        ("flags", ctypes.c_long),
        ("max_messages", ctypes.c_long),
        ("message_size", ctypes.c_long),
        ("current", ctypes.c_long),
        ("padding", ctypes.c_long * 4),
    ]


def make_timer() -> ctypes.c_void_p | str:
    """A POSIX timer that would send SIGUSR1 (never armed), or why there is none."""
    event = Sigevent(signo=signal.SIGUSR1, notify=0)  # SIGEV_SIGNAL
    timer = ctypes.c_void_p()
    if libc.timer_create(1, ctypes.byref(event), ctypes.byref(timer)) != 0:  # MONOTONIC
        return os.strerror(ctypes.get_errno())
    return timer


def make_queue(name: str, messages: int, size: int) -> int | str:
    """A new POSIX message queue of ``messages`` of ``size`` bytes, or why there is none."""
    attr = MqAttr(max_messages=messages, message_size=size)
    queue = libc.mq_open(
        name.encode(), os.O_CREAT | os.O_EXCL | os.O_RDWR, 0o600, ctypes.byref(attr)
    )
    if queue < 0:
        return os.strerror(ctypes.get_errno())
    return queue


def hog() -> str:
    timers = []
    while not isinstance(timer := make_timer(), str):
        timers.append(timer)
    queues = 0
    for messages in (10, 1):  # the biggest queues first, then ever smaller ones
        size = 8192
        while size >= 1:
            if isinstance(make_queue(f"/hog{queues}", messages, size), str):
                size //= 2
            else:
                queues += 1
    globals()["kept"] = timers  # held for the bot's life
    return f"hogged {len(timers)} timers and {queues} queues"


def victim() -> list[str]:
    said = []
    timer = make_timer()
    if isinstance(timer, str):
        said.append(f"timer refused: {timer}")
    else:
        libc.timer_delete(timer)
        said.append("timer ok")
    queue = make_queue("/victim", 1, 16)
    if isinstance(queue, str):
        said.append(f"queue refused: {queue}")
    else:
        os.close(queue)
        libc.mq_unlink(b"/victim")
        said.append("queue ok")
    return said


def fork_until_refused() -> int:
    forked = 0
    while True:
        try:
            child = os.fork()
        except OSError:
            return forked
        if child == 0:
            time.sleep(60)
            os._exit(0)
        forked += 1


def say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


if role == "hog":
    say(hog())
forked = None
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        send({"type": "hello", "name": role})
    elif message["type"] == "decide":
        if role == "victim":
            for said in victim():
                say(said)
        elif role == "forks" and forked is None:
            forked = fork_until_refused()
            say(f"forked {forked}")
        send({"type": "action", "index": 0, "decision": message["decision"]})
    elif message["type"] == "quit":
        break
