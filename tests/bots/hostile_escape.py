"""A protocol bot that probes the walls of its sandbox: ``hostile_escape.py ATTACK TOKEN [ARG]``.

Like ``hostile.py`` it plays the first legal action on every request (echoing the
decision number), writes ``BREACH <what>`` on stderr for every way the attack worked and
``tried <what>`` once it has tried. TOKEN names everything it makes, so that nothing it
leaves can be mistaken for another test's. The attack is made at the first decision,
except ``collude-speak``, which sets up its channels as it greets (before any decision of
either bot), and ``terminal``, made before it greets.

  environ        look for ARG (a secret the test put in the referee's environment) in its
                 own environment and in that of every process it can see
  write-outside  write a file into /, /dev, its working folder and its own folder, and
                 fill /dev/shm until it cannot; say how much
  tty            find a terminal (/dev/tty, its stdio) and push a command into its input
                 with TIOCSTI
  thread-hog     start threads (small stacks, each holding 1 MiB) until it cannot; say
                 how many
  daemon-die     leave a setsid daemon behind (its command line has TOKEN), then SIGKILL
                 itself
  userns         make a user namespace of its own (in a child), where it would hold every
                 capability
  read-logs      read the stderr logs of the game in the folder ARG of its own folder
  unpin          widen its CPU affinity from the CPU it was pinned to to every CPU; say
                 which CPUs it had before and after
  syscalls       make each system call the sandbox refuses, in a way that works for an
                 unconfined process: trace and read a child of its own, pin itself, add a
                 key, count its own CPU time with perf, set up io_uring and userfaultfd
  inherited      look for open file descriptors beyond its stdin, stdout and stderr
  linger         ignore SIGTERM and quit, and start processes in sessions of their own
                 that do too (their command lines have TOKEN): it means to outstay its
                 game and keep its cgroup
  terminal       before it greets, write terminal control sequences to stderr (set the
                 clipboard, clear the screen, a carriage return and a forged line, a
                 bidirectional override), then exit with code 3: they end up where the
                 runner prints why a bot did not start
  collude-speak  open channels a second bot by the same author could find: an abstract
                 unix socket, a SysV message queue and shared memory segment, a POSIX
                 message queue, a key in the user keyring, files in /tmp and /dev/shm;
                 say which it made, and remove them all at quit
  collude-listen look for each of those channels of a collude-speak bot with the same TOKEN
"""

import contextlib
import ctypes
import ctypes.util
import fcntl
import json
import os
import platform
import signal
import socket
import sys
import termios
import threading
import zlib

attack = sys.argv[1]
token = sys.argv[2]
args = sys.argv[3:]
NAME = f"goatarena-{token}"
SYSV_KEY = zlib.crc32(token.encode()) & 0x7FFFFFFF
IPC_CREAT, IPC_RMID = 0o1000, 0
SYSCALLS = {"x86_64": (248, 250), "aarch64": (217, 219)}
"""add_key and keyctl, per machine: Python has no binding for the kernel keyring."""
KEY_SPEC_USER_KEYRING, KEYCTL_SEARCH, KEYCTL_UNLINK = -4, 10, 9
libc = ctypes.CDLL(None, use_errno=True)
kept: list[object] = []
cleanups: list = []


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def say(text):
    print(text, file=sys.stderr, flush=True)


def breach(text):
    say(f"BREACH {text}")


def environ():
    secret = args[0].encode()
    if secret in b"".join(f"{k}={v}".encode() for k, v in os.environ.items()):
        breach("found the secret in its own environment")
    for pid in (name for name in os.listdir("/proc") if name.isdigit()):
        try:
            with open(f"/proc/{pid}/environ", "rb") as file:
                if secret in file.read():
                    breach(f"found the secret in the environment of process {pid}")
        except OSError:
            pass
    say(f"tried environ: HOME={os.environ.get('HOME')}")


def write_outside():
    own = os.path.dirname(os.path.abspath(sys.argv[0]))
    for folder in ("/", "/dev", os.getcwd(), own):
        path = os.path.join(folder, NAME)
        try:
            with open(path, "wb") as file:
                file.write(b"x" * (1 << 20))
            breach(f"wrote into {folder}")
            os.remove(path)
        except OSError:
            pass
    written = 0
    block = b"x" * (1 << 20)
    files = 0
    try:
        # Many files of 16 MiB: one file alone stops at the file size limit.
        while written < (512 << 20):
            with open(f"/dev/shm/{NAME}-{files}", "wb") as file:
                files += 1
                for _ in range(16):
                    file.write(block)
                    file.flush()
                    written += len(block)
    except OSError:
        pass
    for number in range(files):
        with contextlib.suppress(OSError):
            os.remove(f"/dev/shm/{NAME}-{number}")
    say(f"tried write-outside: /dev/shm {written >> 20} MiB")


def tty():
    candidates = [0, 1, 2]
    with contextlib.suppress(OSError):
        candidates.append(os.open("/dev/tty", os.O_RDWR))
        breach("opened a controlling terminal")
    for fd in candidates:
        try:
            for char in b"id\n":
                fcntl.ioctl(fd, termios.TIOCSTI, bytes([char]))
            breach(f"pushed input into the terminal of fd {fd}")
        except OSError:
            pass
    say("tried tty")


def thread_hog():
    started = 0
    stop = threading.Event()
    # Small stacks: with the default 8 MiB, the memory limit would stop it long before.
    threading.stack_size(256 << 10)
    while started < 5000:
        try:
            thread = threading.Thread(target=lambda: (bytearray(1 << 20), stop.wait()))
            thread.start()
        except (RuntimeError, MemoryError):
            break
        kept.append(thread)
        started += 1
    say(f"tried thread-hog: {started} threads")
    stop.set()


def daemon_die():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            code = "import time; time.sleep(600)"
            os.execv(sys.executable, [sys.executable, "-c", code, token])
        os._exit(0)
    say("tried daemon-die")
    os.kill(os.getpid(), signal.SIGKILL)


def userns():
    child = os.fork()
    if child == 0:
        if libc.unshare(0x10000000) == 0:  # CLONE_NEWUSER
            breach("made a user namespace of its own")
        os._exit(0)
    os.waitpid(child, 0)
    say("tried userns")


def read_logs():
    folder = os.path.join(os.path.dirname(os.path.abspath(sys.argv[0])), args[0])
    with contextlib.suppress(OSError):
        for name in os.listdir(folder):
            breach(f"saw the log {name}")
            with contextlib.suppress(OSError), open(os.path.join(folder, name), "rb") as file:
                if file.read(1):
                    breach(f"read the log {name}")
    say(f"tried read-logs in {folder}")


def unpin():
    before = sorted(os.sched_getaffinity(0))
    with contextlib.suppress(OSError):
        os.sched_setaffinity(0, range(os.cpu_count() or 1))
    after = sorted(os.sched_getaffinity(0))
    if len(after) > len(before):
        breach(f"widened its CPUs from {before} to {after}")
    say(f"tried unpin: before {','.join(map(str, before))} after {','.join(map(str, after))}")


def syscalls():
    libc.syscall.restype = ctypes.c_long
    child = os.fork()
    if child == 0:
        signal.pause()
        os._exit(0)
    try:
        if libc.ptrace(0x4206, child, None, None) == 0:  # PTRACE_SEIZE
            breach("traced a child of its own")
        local, remote = ctypes.create_string_buffer(8), ctypes.create_string_buffer(8)
        iovecs = [(ctypes.c_void_p * 2)(ctypes.addressof(buf), 8) for buf in (local, remote)]
        if libc.process_vm_readv(child, iovecs[0], 1, iovecs[1], 1, 0) == 8:
            breach("read a child's memory")
    finally:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)
    try:
        os.sched_setaffinity(0, os.sched_getaffinity(0))
        breach("set its CPU affinity")
    except OSError:
        pass
    numbers = SYSCALLS.get(platform.machine())
    if numbers is not None:
        key = libc.syscall(numbers[0], b"user", NAME.encode(), b"x", 1, -3)  # session ring
        if key >= 0:
            breach("added a key")
            libc.syscall(numbers[1], KEYCTL_UNLINK, key, -3)
    other = {"x86_64": (298, 425, 323), "aarch64": (241, 425, 282)}.get(platform.machine())
    if other is not None:
        perf, io_uring_setup, userfaultfd = other
        # perf_event_attr: software event, task clock, for this process on any CPU.
        attr = (ctypes.c_uint32 * 32)(1, 128, 1)
        for what, fd in (
            ("counted its CPU time with perf", libc.syscall(perf, attr, 0, -1, -1, 0)),
            ("set up io_uring", libc.syscall(io_uring_setup, 4, ctypes.create_string_buffer(120))),
            ("made a userfaultfd", libc.syscall(userfaultfd, 0)),
        ):
            if fd >= 0:
                breach(what)
                os.close(fd)
    say("tried syscalls")


def inherited():
    for fd in range(3, 1024):
        try:
            os.fstat(fd)
        except OSError:
            continue
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            target = "?"
        breach(f"inherited fd {fd} ({target})")
    say("tried inherited")


def linger():
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    code = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"
    for _ in range(8):
        if os.fork() == 0:
            os.setsid()
            os.execv(sys.executable, [sys.executable, "-c", code, token])
    say("tried linger")


def posix_mq():
    """libc's mq_open (in librt before glibc 2.34)."""
    for library in (None, ctypes.util.find_library("rt")):
        with contextlib.suppress(OSError, AttributeError):
            found = ctypes.CDLL(library, use_errno=True)
            return found.mq_open, found.mq_unlink
    return None, None


def speak():
    made = []
    with contextlib.suppress(OSError):
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind("\0" + NAME)
        server.listen(8)
        kept.append(server)
        made.append("abstract-socket")
    queue = libc.msgget(SYSV_KEY, IPC_CREAT | 0o600)
    if queue >= 0:
        made.append("sysv-msg")
        cleanups.append(lambda: libc.msgctl(queue, IPC_RMID, None))
    segment = libc.shmget(SYSV_KEY, 4096, IPC_CREAT | 0o600)
    if segment >= 0:
        made.append("sysv-shm")
        cleanups.append(lambda: libc.shmctl(segment, IPC_RMID, None))
    mq_open, mq_unlink = posix_mq()
    if (
        mq_open is not None
        and mq_open(f"/{NAME}".encode(), os.O_CREAT | os.O_RDWR, 0o600, None) >= 0
    ):
        made.append("posix-mq")
        cleanups.append(lambda: mq_unlink(f"/{NAME}".encode()))
    syscalls = SYSCALLS.get(platform.machine())
    if syscalls is not None:
        key = libc.syscall(syscalls[0], b"user", NAME.encode(), b"hand", 4, KEY_SPEC_USER_KEYRING)
        if key >= 0:
            made.append("keyring")
            cleanups.append(
                lambda: libc.syscall(syscalls[1], KEYCTL_UNLINK, key, KEY_SPEC_USER_KEYRING)
            )
    for folder in ("/tmp", "/dev/shm"):
        with contextlib.suppress(OSError):
            with open(f"{folder}/{NAME}", "w") as file:
                file.write("hand")
            made.append(f"file-in-{folder}")
            cleanups.append(lambda path=f"{folder}/{NAME}": os.remove(path))
    say(f"made {' '.join(made)}")


def listen():
    with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.connect("\0" + NAME)
        breach("reached the other bot by abstract-socket")
    if libc.msgget(SYSV_KEY, 0) >= 0:
        breach("reached the other bot by sysv-msg")
    if libc.shmget(SYSV_KEY, 0, 0) >= 0:
        breach("reached the other bot by sysv-shm")
    mq_open, _ = posix_mq()
    if mq_open is not None and mq_open(f"/{NAME}".encode(), os.O_RDONLY, 0, None) >= 0:
        breach("reached the other bot by posix-mq")
    syscalls = SYSCALLS.get(platform.machine())
    if syscalls is not None:
        found = libc.syscall(
            syscalls[1], KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, b"user", NAME.encode(), 0
        )
        if found >= 0:
            breach("reached the other bot by keyring")
    for folder in ("/tmp", "/dev/shm"):
        if os.path.exists(f"{folder}/{NAME}"):
            breach(f"reached the other bot by file-in-{folder}")
    say("tried collude-listen")


ATTACKS = {
    "environ": environ,
    "write-outside": write_outside,
    "tty": tty,
    "thread-hog": thread_hog,
    "daemon-die": daemon_die,
    "inherited": inherited,
    "userns": userns,
    "syscalls": syscalls,
    "unpin": unpin,
    "read-logs": read_logs,
    "linger": linger,
    "collude-listen": listen,
}

TERMINAL_ATTACK = (
    "\x1b]52;c;cm0gLXJmIH4K\x07"  # OSC 52: put "rm -rf ~" on the clipboard
    "\x1b[2J\x1b[H"  # clear the screen
    "Traceback\rgoatarena: all bots started\n"  # overwrite the line
    "ok \u202egnp.exe\x00\x08\x08\n"
)
if attack == "terminal":
    say("tried terminal")
    sys.stderr.write(TERMINAL_ATTACK)
    sys.stderr.flush()
    sys.exit(3)

attacked = False
try:
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            if attack == "collude-speak":
                speak()
            send({"type": "hello", "name": attack})
        elif kind == "decide":
            if not attacked and attack in ATTACKS:
                attacked = True
                ATTACKS[attack]()
            send({"type": "action", "index": 0, "decision": message["decision"]})
        elif kind == "quit" and attack != "linger":
            break
    while attack == "linger":
        signal.pause()
finally:
    for cleanup in cleanups:
        with contextlib.suppress(OSError):
            cleanup()
