"""Allies at one table talking through the machine's counters: ``hostile_counters.py ROLE ...``.

Like ``hostile.py`` it plays the first legal action on every request (echoing the
decision number) and writes ``tried <role>`` on stderr once it has made its attack.

  send BITS     in its turn number i, make its own /dev/shm hold 24 MiB for a 1 and
                nothing for a 0 (a frozen bot keeps its memory): first the preamble 1, 0,
                then BITS. It says ``sent N`` when done.
  receive N     in its turn number i (after its ally's), read the machine's shared
                memory where a program can: ``Shmem`` of /proc/meminfo, ``nr_shmem`` of
                /proc/vmstat and of /proc/zoneinfo, ``sharedram`` of sysinfo(2); and, for
                what else they show, MemTotal, MemAvailable, the CPU lines of /proc/stat,
                /proc/loadavg and /proc/pressure. From the preamble it sets a threshold
                half-way and decodes the N bits that follow: ``heard CHANNEL: BITS`` (or
                why it could not), and ``saw WHAT: VALUE``.
"""

import contextlib
import ctypes
import json
import os
import sys

role = sys.argv[1]
args = sys.argv[2:]
PREAMBLE = "10"
SIZE = 24 << 20
libc = ctypes.CDLL(None, use_errno=True)


class Sysinfo(ctypes.Structure):
    _fields_ = [
        ("uptime", ctypes.c_long),
        ("loads", ctypes.c_ulong * 3),
        ("totalram", ctypes.c_ulong),
        ("freeram", ctypes.c_ulong),
        ("sharedram", ctypes.c_ulong),
        ("bufferram", ctypes.c_ulong),
        ("totalswap", ctypes.c_ulong),
        ("freeswap", ctypes.c_ulong),
        ("procs", ctypes.c_ushort),
        ("pad", ctypes.c_ushort),
        ("totalhigh", ctypes.c_ulong),
        ("freehigh", ctypes.c_ulong),
        ("mem_unit", ctypes.c_uint),
        ("padding", ctypes.c_char * 8),
    ]


def say(text):
    print(text, file=sys.stderr, flush=True)


def field(path, name, total=False):
    """The value of ``name`` in a /proc file of "name value" lines (summed if ``total``)."""
    found = []
    with open(path) as file:
        for line in file:
            words = line.replace(":", " ").split()
            if len(words) >= 2 and words[0] == name:
                found.append(int(words[1]))
    if not found:
        raise LookupError(f"no {name}")
    return sum(found) if total else found[0]


def sharedram():
    info = Sysinfo()
    if libc.sysinfo(ctypes.byref(info)) != 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return info.sharedram * max(info.mem_unit, 1)


CHANNELS = {
    "meminfo": lambda: field("/proc/meminfo", "Shmem") << 10,
    "vmstat": lambda: field("/proc/vmstat", "nr_shmem") * 4096,
    "zoneinfo": lambda: field("/proc/zoneinfo", "nr_shmem", total=True) * 4096,
    "sysinfo": sharedram,
}


def read_all():
    values = {}
    for name, read in CHANNELS.items():
        try:
            values[name] = read()
        except (OSError, LookupError, ValueError) as error:
            values[name] = f"refused ({error})"
    return values


def decode(readings, count):
    if any(isinstance(value, str) for value in readings):
        return next(value for value in readings if isinstance(value, str))
    one, zero = readings[0], readings[1]
    if one - zero < SIZE // 2:
        return f"no signal ({one - zero} bytes)"
    middle = (one + zero) / 2
    return "".join("1" if value > middle else "0" for value in readings[2 : 2 + count])


def look():
    """What else the counters show: the values runtimes read, and the machine's load."""
    for name in ("MemTotal", "MemAvailable"):
        with contextlib.suppress(OSError, LookupError):
            say(f"saw {name}: {field('/proc/meminfo', name)} kB")
    with contextlib.suppress(OSError):
        with open("/proc/stat") as file:
            cpus = [line for line in file if line[:3] == "cpu" and line[3:4].isdigit()]
        say(f"saw cpus: {len(cpus)}")
    with contextlib.suppress(OSError), open("/proc/loadavg") as file:
        say(f"saw loadavg: {file.read().strip()}")
    with contextlib.suppress(OSError):
        names = sorted(os.listdir("/proc/pressure"))
        say(f"saw pressure: {names}")


def send_turn(turn, bits):
    message = PREAMBLE + bits
    if turn >= len(message):
        return
    path = "/dev/shm/wire"
    with open(path, "wb") as file:
        if message[turn] == "1":
            block = b"x" * (1 << 20)
            for _ in range(SIZE >> 20):
                file.write(block)
    if turn == len(message) - 1:
        say(f"sent {len(bits)}")
        say("tried send")


readings = {name: [] for name in CHANNELS}


def receive_turn(turn, count):
    if turn >= len(PREAMBLE) + count:
        return
    for name, value in read_all().items():
        readings[name].append(value)
    if turn == 0:
        look()
    if turn == len(PREAMBLE) + count - 1:
        for name, values in readings.items():
            say(f"heard {name}: {decode(values, count)}")
        say("tried receive")


turn = 0
for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if kind == "hello":
        sys.stdout.write(json.dumps({"type": "hello", "name": role}) + "\n")
        sys.stdout.flush()
    elif kind == "decide":
        if role == "send":
            send_turn(turn, args[0])
        else:
            receive_turn(turn, int(args[0]))
        turn += 1
        sys.stdout.write(
            json.dumps({"type": "action", "index": 0, "decision": message["decision"]}) + "\n"
        )
        sys.stdout.flush()
    elif kind == "quit":
        break
