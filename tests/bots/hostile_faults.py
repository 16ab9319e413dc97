"""A bot that keeps bits in the page cache without ``mincore``: ``hostile_faults.py ROLE ...``.

Like ``hostile.py`` it plays the first legal action on every request and writes ``tried
<role>`` on stderr once it has made its attack (the sender as it greets, the receiver at
its first decision): in a tournament, one rotation's process leaves the bits, a later
one's reads them back.

  send FILE STRIDE BITS     for each 1 of BITS, bring page i*STRIDE of FILE into the page
                            cache: touch it through a mapping advised MADV_RANDOM (one
                            page a fault), or, where that advice is refused, read it with
                            pread (a small random read reads one page); say which. With
                            STRIDE > 1 read page i*STRIDE + STRIDE/2 too (for the timed
                            receiver). All in no order: a sequence would be read ahead.
  receive FILE STRIDE N     with STRIDE > 1, first time a one-page pread of page
                            i*STRIDE + STRIDE/2 for each of N bits. Then touch page
                            i*STRIDE of FILE through a mapping advised MADV_RANDOM (or
                            not, where refused) and count the process's major faults
                            (getrusage): none, the page was cached (a 1); and read
                            /proc/self/pagemap after each touch for the 15 pages after it,
                            which fault-around maps if cached, without reading them.
                            Prints ``heard majflt: BITS``, ``heard pagemap: BITS`` (or
                            why not), ``heard timing: BITS`` and ``advice: ...``
"""

import ctypes
import json
import mmap
import os
import random
import resource
import struct
import sys
import time

role = sys.argv[1]
args = sys.argv[2:]
PAGE = mmap.PAGESIZE
MADV_RANDOM = 1
libc = ctypes.CDLL(None, use_errno=True)
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int]
libc.mmap.argtypes += [ctypes.c_int, ctypes.c_long]


def say(text):
    print(text, file=sys.stderr, flush=True)


def mapped(path):
    """The file mapped read-only (its address and size), and what advising MADV_RANDOM
    on it gave."""
    fd = os.open(path, os.O_RDONLY)
    size = os.fstat(fd).st_size
    address = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    os.close(fd)
    if libc.madvise(address, size, MADV_RANDOM) == 0:
        advice = "random"
    else:
        advice = f"refused ({os.strerror(ctypes.get_errno())})"
    return address, advice


def touch(address):
    """Read one byte at ``address`` (a fault, if its page is not mapped yet)."""
    return ctypes.c_char.from_address(address).value


def send():
    path, stride, bits = args[0], int(args[1]), args[2]
    base, advice = mapped(path)
    fd = os.open(path, os.O_RDONLY)
    for index in shuffled(len(bits)):  # in no order: a sequence would be read ahead
        if bits[index] == "1":
            if advice == "random":
                touch(base + index * stride * PAGE)
            else:
                os.pread(fd, 1, index * stride * PAGE)
            if stride > 1:  # for the timed receiver, beside the faulted page
                os.pread(fd, 1, timed_page(index, stride) * PAGE)
    os.close(fd)
    say(f"advice: {advice}")
    say("tried send")


def major_faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_majflt


def present(pagemap, address):
    """Whether the page at ``address`` is mapped in this process (pagemap's bit 63)."""
    entry = os.pread(pagemap, 8, (address // PAGE) * 8)
    return len(entry) == 8 and struct.unpack("<Q", entry)[0] >> 63 == 1


def shuffled(count):
    order = list(range(count))
    random.shuffle(order)
    return order


def timed_page(index, stride):
    """The page the timed channel uses for bit ``index``: apart from the faulted one."""
    return index * stride + stride // 2


def timed(path, stride, count):
    """Bits from how long a one-page read of page i*STRIDE + STRIDE/2 takes (a small random read
    reads that page alone): from the cache, microseconds; from the disk, far more. The
    threshold is half-way, on a log scale, between the fastest and the slowest."""
    fd = os.open(path, os.O_RDONLY)
    took = [0] * count
    for index in shuffled(count):  # in no order: a sequence would be read ahead
        start = time.perf_counter_ns()
        os.pread(fd, 1, timed_page(index, stride) * PAGE)
        took[index] = time.perf_counter_ns() - start
    os.close(fd)
    low, high = min(took), max(took)
    if high < 4 * low:
        return "0" * count if low > 20_000 else "1" * count
    middle = (low * high) ** 0.5
    return "".join("1" if ns < middle else "0" for ns in took)


def receive():
    path, stride, count = args[0], int(args[1]), int(args[2])
    # First: the faults below read around the pages it times. Dense, there are none.
    timing = timed(path, stride, count) if stride > 1 else "none"
    base, advice = mapped(path)
    try:
        pagemap = os.open("/proc/self/pagemap", os.O_RDONLY)
    except OSError as error:
        pagemap, around = None, f"refused ({error.strerror})"
    faults, neighbours = "", ""
    for index in range(count):
        page = index * stride
        before = major_faults()
        touch(base + page * PAGE)
        faults += "0" if major_faults() > before else "1"
        if pagemap is not None:
            neighbours += "".join(
                "1" if present(pagemap, base + (page + step) * PAGE) else "0"
                for step in range(1, min(stride, 16))
            )
    if pagemap is not None:
        around = neighbours or "none"
    say(f"advice: {advice}")
    say(f"heard majflt: {faults}")
    say(f"heard pagemap: {around}")
    say(f"heard timing: {timing}")
    say("tried receive")


AT_HELLO = {"send": send}
AT_DECISION = {"receive": receive}
attacked = False
for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if kind == "hello":
        if role in AT_HELLO:
            AT_HELLO[role]()
        sys.stdout.write(json.dumps({"type": "hello", "name": role}) + "\n")
        sys.stdout.flush()
    elif kind == "decide":
        if not attacked and role in AT_DECISION:
            attacked = True
            AT_DECISION[role]()
        sys.stdout.write(
            json.dumps({"type": "action", "index": 0, "decision": message["decision"]}) + "\n"
        )
        sys.stdout.flush()
    elif kind == "quit":
        break
