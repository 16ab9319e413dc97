"""A bot that tries to run while it is paused between its turns: ``hostile_pause.py ROLE [N]``.

timers   forks N worker processes (default 2) in its first turn. In each, a thread
         arms one-shot POSIX timers that send the process SIGCONT 2, 4, ... 50 ms from
         now (which wakes a process stopped by SIGSTOP), re-arms them every millisecond
         and spins for ever; then the worker's leader thread exits, so that the process
         shows as a zombie while its thread runs on. The bot itself asks the kernel for
         SIGCONT as its stdin's signal (``F_SETSIG``), says on stderr whether it got it
         ("setsig allowed" or "setsig refused"), and answers every request 20 ms after
         it with the first legal action (its workers arm their timers meanwhile).
honest   spins for N ms (default 20) of each decision, then answers the first legal
         action; after each decision it writes "share S" to stderr, the part of those N ms
         it had the CPU. Beside a bot that steals CPU from it on its CPU, that is less.
"""

import ctypes
import fcntl
import json
import os
import platform
import signal
import sys
import threading
import time

role = sys.argv[1]
number = int(sys.argv[2]) if len(sys.argv) > 2 else (2 if role == "timers" else 20)
EXIT_THREAD = {"x86_64": 60, "aarch64": 93}[platform.machine()]
F_SETSIG = 10


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


def sigcont_timers(count: int) -> list[ctypes.c_void_p]:
    """``count`` POSIX timers that each send this process SIGCONT when they expire."""
    timers = []
    for _ in range(count):
        event = Sigevent(signo=signal.SIGCONT, notify=0)  # SIGEV_SIGNAL
        timer = ctypes.c_void_p()
        if libc.timer_create(1, ctypes.byref(event), ctypes.byref(timer)) != 0:
            print(f"timer_create: {os.strerror(ctypes.get_errno())}", file=sys.stderr, flush=True)
            os._exit(5)  # CLOCK_MONOTONIC
        timers.append(timer)
    return timers


def arm(timers: list[ctypes.c_void_p]) -> None:
    """Arm each timer once, 2 ms apart from now: a periodic timer would not do, as the
    SIGSTOP that pauses the process discards its pending SIGCONT, and with it the timer."""
    for number, timer in enumerate(timers, 1):
        when = Itimerspec(Timespec(0, 0), Timespec(0, 2_000_000 * number))
        libc.timer_settime(timer, 0, ctypes.byref(when), None)


def spin_forever() -> None:
    timers = sigcont_timers(25)
    while True:
        arm(timers)  # each time it is woken, the next wake is set up again
        until = time.perf_counter() + 0.001
        while time.perf_counter() < until:
            pass


def start_worker() -> None:
    if os.fork() != 0:
        return
    for fd in (0, 1):
        os.close(fd)
    # A handler of its own: a timer's signal left at its default (ignore, for SIGCONT) is
    # dropped by newer kernels before it could wake the process.
    signal.signal(signal.SIGCONT, lambda *_: None)
    threading.Thread(target=spin_forever, daemon=True).start()
    time.sleep(0.05)
    libc.syscall(EXIT_THREAD, 0)  # only this (the leader) thread exits: a zombie leader


def ask_sigcont_as_stdin_signal() -> str:
    try:
        fcntl.fcntl(0, F_SETSIG, signal.SIGCONT)
    except OSError:
        return "setsig refused"
    return "setsig allowed"


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def spin(milliseconds: int) -> float:
    """Spin for ``milliseconds``; the part of that time this process got the CPU."""
    started, cpu = time.perf_counter(), time.process_time()
    until = started + milliseconds / 1000
    while time.perf_counter() < until:
        pass
    return (time.process_time() - cpu) / (time.perf_counter() - started)


if role == "timers":
    print(ask_sigcont_as_stdin_signal(), file=sys.stderr, flush=True)
workers = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        send({"type": "hello", "name": role})
    elif message["type"] == "decide":
        while role == "timers" and workers < number:  # in its first turn
            start_worker()
            workers += 1
        # In its own turn, the timers' workers run (and arm their timers) for 20 ms.
        work = spin(number) if role == "honest" else time.sleep(0.02) or 0.0
        send({"type": "action", "index": 0, "decision": message["decision"]})
        if role == "honest":
            print(f"share {work:.3f}", file=sys.stderr, flush=True)
    elif message["type"] == "quit":
        break
