"""A protocol bot that attacks what bots share: ``hostile_trust.py ATTACK TOKEN [ARG...]``.

Like ``hostile.py`` it plays the first legal action on every request (echoing the
decision number), writes ``BREACH <what>`` on stderr for every way the attack worked and
``tried <what>`` once it has tried. The attack is made at the first decision, except the
senders', made as it greets (before any decision of any bot).

  snoop PATH...        read each path: a file whole, a folder's names and files (another
                       bot's folder, the tournament file, the results, the logs); a path
                       is relative to its own folder (as a competitor knows the layout:
                       no word of its command may name them, or they would be its own)
  root-files @PATH...  read each path (root's files of mode 0600, not named as paths by
                       its command) and the root-only and machine-wide files of /proc;
                       say whom it runs as
  cache-send FILE BITS leave BITS (a string of 0 and 1) in the page cache: page i of FILE
                       cached for a 1 (read), evicted for a 0 (posix_fadvise DONTNEED)
  cache-receive FILE N read back N bits from which pages of FILE are cached, with mincore,
                       cachestat and preadv2(RWF_NOWAIT); print what each gives
  lock-send FILE BITS  take an OFD read lock on byte i of FILE for each 1, and a write
                       lock on byte i of /dev/null (which every sandbox shares), and flock
                       FILE: kept while the bot lives
  lock-receive FILE N  read back N bits from /proc/locks, from F_OFD_GETLK on FILE, from
                       conflicting locks on /dev/null, and whether FILE is flocked
  write-mask @FOLDER   write into FOLDER (a folder that hides the runner's files) as much as
                       it can; say how much
"""

import contextlib
import ctypes
import fcntl
import json
import mmap
import os
import struct
import sys

attack = sys.argv[1]
token = sys.argv[2]
args = sys.argv[3:]
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int]
libc.mmap.argtypes += [ctypes.c_int, ctypes.c_long]
PAGE = mmap.PAGESIZE
CACHESTAT = 451  # x86-64 and aarch64 alike
F_OFD_GETLK, F_OFD_SETLK = 36, 37
kept: list[object] = []


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def say(text):
    print(text, file=sys.stderr, flush=True)


def breach(text):
    say(f"BREACH {text}")


def snoop():
    own = os.path.dirname(os.path.abspath(sys.argv[0]))
    for relative in args:
        path = os.path.normpath(os.path.join(own, relative.removeprefix("@")))
        try:
            if os.path.isdir(path):
                # The folders on the way to its own are there, and nothing else must be.
                names = [
                    name
                    for name in os.listdir(path)
                    if not (own + "/").startswith(os.path.join(path, name) + "/")
                ]
                if names:
                    breach(f"listed {path}: {sorted(names)[:5]}")
                for name in names:
                    with contextlib.suppress(OSError), open(os.path.join(path, name), "rb") as f:
                        if f.read(64):
                            breach(f"read {os.path.join(path, name)}")
            else:
                with open(path, "rb") as file:
                    if file.read(64):
                        breach(f"read {path}")
        except OSError:
            pass
    say("tried snoop")


PROC_FILES = ("/proc/timer_list", "/proc/slabinfo", "/proc/locks", "/proc/kallsyms")


def root_files():
    say(f"running as uid {os.getuid()} gid {os.getgid()}")
    for path in [*(arg.removeprefix("@") for arg in args), *PROC_FILES]:
        try:
            with open(path, "rb") as file:
                data = file.read(4096)
            if data.strip() and not data.strip().startswith(b"0000000000000000"):
                breach(f"read {path}")
        except OSError:
            pass
    say("tried root-files")


def cache_send():
    path, bits = args[0], args[1]
    fd = os.open(path, os.O_RDONLY)
    evicted = "yes"
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    except OSError as error:
        evicted = f"no ({error.strerror})"
    with contextlib.suppress(OSError):  # refused where a fault reads ahead: read anyway
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)  # no read-ahead: one page a read
    for index, bit in enumerate(bits):
        if bit == "1":
            os.pread(fd, PAGE, index * PAGE)
    os.close(fd)
    say(f"tried cache-send: evicted {evicted}")


def residency_mincore(fd, pages):
    address = libc.mmap(None, pages * PAGE, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    vector = (ctypes.c_ubyte * pages)()
    if libc.mincore(ctypes.c_void_p(address), pages * PAGE, vector) != 0:
        return f"refused ({os.strerror(ctypes.get_errno())})"
    return "".join(str(byte & 1) for byte in vector)


def residency_cachestat(fd, pages):
    found = ""
    for index in range(pages):
        span = struct.pack("QQ", index * PAGE, PAGE)
        stats = ctypes.create_string_buffer(40)
        if libc.syscall(CACHESTAT, fd, span, stats, 0) != 0:
            return f"refused ({os.strerror(ctypes.get_errno())})"
        found += "1" if struct.unpack_from("Q", stats.raw)[0] else "0"
    return found


def residency_nowait(fd, pages):
    found = ""
    for index in range(pages):
        try:
            os.preadv(fd, [bytearray(1)], index * PAGE, os.RWF_NOWAIT)
            found += "1"
        except BlockingIOError:
            found += "0"
        except OSError as error:
            return f"refused ({error.strerror})"
    return found


def cache_receive():
    path, pages = args[0], int(args[1])
    fd = os.open(path, os.O_RDONLY)
    for probe in (residency_mincore, residency_cachestat, residency_nowait):
        say(f"heard {probe.__name__.split('_')[1]}: {probe(fd, pages)}")
    say("tried cache-receive")


def lock(fd, kind, start, command=F_OFD_SETLK):
    return fcntl.fcntl(fd, command, struct.pack("hhqqi4x", kind, os.SEEK_SET, start, 1, 0))


def lock_send():
    path, bits = args[0], args[1]
    shared = os.open(path, os.O_RDONLY)
    null = os.open("/dev/null", os.O_RDWR)
    kept.extend([shared, null])
    for index, bit in enumerate(bits):
        if bit == "1":
            for fd, kind in ((shared, fcntl.F_RDLCK), (null, fcntl.F_WRLCK)):
                with contextlib.suppress(OSError):
                    lock(fd, kind, index)
    with contextlib.suppress(OSError):
        fcntl.flock(shared, fcntl.LOCK_SH)
    say("tried lock-send")


def lock_receive():
    path, count = args[0], int(args[1])
    inode = os.stat(path).st_ino
    starts = set()
    with contextlib.suppress(OSError), open("/proc/locks") as file:
        for line in file:
            words = line.split()
            ours = len(words) >= 8 and words[1] == "OFDLCK"
            if ours and words[5].rsplit(":", 1)[-1] == str(inode):
                end = count if words[7] == "EOF" else int(words[7])
                starts.update(range(int(words[6]), end + 1))  # locks side by side merge
    say(f"heard proc-locks: {''.join('1' if i in starts else '0' for i in range(count))}")
    shared = os.open(path, os.O_RDONLY)
    null = os.open("/dev/null", os.O_RDWR)
    for name, probe in (
        ("getlk", lambda i: lock(shared, fcntl.F_WRLCK, i, F_OFD_GETLK)[0:2] != b"\x02\x00"),
        ("dev-null", lambda i: lock(null, fcntl.F_WRLCK, i) is None),
    ):
        heard = ""
        for index in range(count):
            try:
                heard += "1" if probe(index) else "0"
            except BlockingIOError:
                heard += "1"
            except OSError as error:
                heard = f"refused ({error.strerror})"
                break
        say(f"heard {name}: {heard}")
    try:
        fcntl.flock(shared, fcntl.LOCK_EX | fcntl.LOCK_NB)
        say("heard flock: free")
    except OSError:
        say("heard flock: held")
    say("tried lock-receive")


def write_mask():
    written = 0
    block = b"x" * (1 << 20)
    try:
        folder = args[0].removeprefix("@")
        with open(os.path.join(folder, f"goatarena-{token}"), "wb") as file:
            while written < (256 << 20):
                file.write(block)
                file.flush()
                written += len(block)
    except OSError as error:
        say(f"write refused: {error.strerror}")
    say(f"tried write-mask: {written >> 20} MiB")
    if written:
        breach(f"wrote {written >> 20} MiB into the mask")


AT_DECISION = {
    "snoop": snoop,
    "root-files": root_files,
    "cache-receive": cache_receive,
    "lock-receive": lock_receive,
    "write-mask": write_mask,
}
AT_HELLO = {"cache-send": cache_send, "lock-send": lock_send}

attacked = False
for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if kind == "hello":
        if attack in AT_HELLO:
            AT_HELLO[attack]()
        send({"type": "hello", "name": attack})
    elif kind == "decide":
        if not attacked and attack in AT_DECISION:
            attacked = True
            AT_DECISION[attack]()
        send({"type": "action", "index": 0, "decision": message["decision"]})
    elif kind == "quit":
        break
