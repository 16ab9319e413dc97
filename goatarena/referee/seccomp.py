"""System calls a sandboxed bot is refused: a seccomp filter, as data and as BPF.

The namespaces already keep a bot from every other process; these calls would still let
it game the referee or reach parts of the kernel no bot needs:

- ``ptrace`` and ``process_vm_readv``/``writev``: a bot tracing its own processes can
  swallow the SIGSTOP that pauses it between turns;
- ``sched_setaffinity``: where bots are pinned by affinity (no cpuset cgroup), a bot
  would widen its own to take another game's CPU in its turns;
- the kernel keyring (``add_key``, ``request_key``, ``keyctl``): its quota is the
  runner's user's, for the whole machine;
- ``perf_event_open``, ``bpf``, ``userfaultfd`` and io_uring: large kernel interfaces,
  timing side channels, and a frequent way into kernel bugs;
- ``fcntl(F_SETSIG, SIGCONT)``: the kernel would wake a bot paused by SIGSTOP whenever
  a descriptor of its turns ready (where there is no freezer to pause it).

and these would let it pass bits to a process of another game or rotation through the
kernel's shared state (see :data:`REFUSED_WITH_ARGUMENT` too):

- ``mincore``, ``cachestat``, ``preadv2`` with ``RWF_NOWAIT`` and Linux AIO (which
  takes that flag too): which pages of a file are in the page cache, a memory every
  process that can read the file shares; ``posix_fadvise(DONTNEED)`` and
  ``madvise(MADV_PAGEOUT)`` evict them, the other half of such a channel; and
  ``madvise(MADV_RANDOM)`` or ``posix_fadvise(POSIX_FADV_RANDOM)`` would have a fault
  read one page alone, so that each page is a bit, read back by the process's own
  major-fault count (refused, a fault reads ahead around the page: bits must lie far
  apart, and only a read's time tells them; see docs/referee.md);
- a user namespace of its own (``clone``/``unshare`` with ``CLONE_NEWUSER``, and
  ``clone3``, whose flags a filter cannot read): every capability there, and a large
  part of the kernel opened to it;
- ``sysinfo``: the machine's free and shared memory, load and number of threads, which
  allies at one table set by what they keep while frozen and read in their turns.

Each is answered with an error (``EPERM``, or ``ENOSYS`` where a runtime then falls back,
as libuv does for io_uring), never a kill, so a runtime that merely probes one carries
on. A system call of another ABI (32-bit calls on x86-64, x32) is refused too: the
filter could not tell which call it is. bubblewrap loads the filter (``--seccomp FD``)
just before it runs the bot.
"""

from __future__ import annotations

import errno
import os
import platform
import struct

DENIED = {
    "ptrace": errno.EPERM,
    "process_vm_readv": errno.EPERM,
    "process_vm_writev": errno.EPERM,
    "sched_setaffinity": errno.EPERM,
    "add_key": errno.EPERM,
    "request_key": errno.EPERM,
    "keyctl": errno.EPERM,
    "perf_event_open": errno.EPERM,
    "bpf": errno.EPERM,
    "userfaultfd": errno.EPERM,
    "io_uring_setup": errno.ENOSYS,
    "io_uring_enter": errno.ENOSYS,
    "io_uring_register": errno.ENOSYS,
}
"""Refused system calls, and the error each gets."""
F_SETSIG, SIGCONT = 10, 18
REFUSED_ARGUMENTS = (("fcntl", ((1, F_SETSIG), (2, SIGCONT)), errno.EPERM),)
"""Calls refused only with these arguments (by index, low 32 bits), and the error:
``fcntl(fd, F_SETSIG, SIGCONT)`` would have the kernel wake a bot paused by SIGSTOP
whenever its input turns readable."""
ARGUMENT_NUMBERS = {"x86_64": {"fcntl": 72}, "aarch64": {"fcntl": 25}}
"""The numbers of the calls of :data:`REFUSED_ARGUMENTS` on each machine."""
DENIED_CHANNELS = {
    "mincore": errno.ENOSYS,
    "cachestat": errno.ENOSYS,
    "io_setup": errno.ENOSYS,
    "clone3": errno.ENOSYS,  # glibc then falls back to clone, whose flags are checked
    "inotify_init": errno.ENOSYS,  # x86-64 only
    "inotify_init1": errno.ENOSYS,
    "flock": 0,
    "sysinfo": errno.ENOSYS,
}
"""Refused too: calls that read the page cache or hide their flags from the filter;
watching files (an ally at the table would see which files another bot opens); and file
locks, which every process that can open a file shares (even ``/dev/null``): ``flock``
succeeds without taking a lock (error 0), as do the ``fcntl`` locks below, so that a
runtime that locks its own files carries on. ``sysinfo`` tells the machine's free and
shared memory, load and thread count, which allies set and read (see
:mod:`goatarena.referee.proc_view`); glibc's ``sysconf(_SC_PHYS_PAGES)`` reads it without
checking for an error, so a program that asks that gets an unspecified number."""
CLONE_NEWUSER = 0x10000000
RWF_NOWAIT = 0x00000008
POSIX_FADV_DONTNEED = 4
MADV_PAGEOUT = 21
MADV_RANDOM = POSIX_FADV_RANDOM = 1
F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW = 5, 6, 7, 36, 37, 38
REFUSED_WITH_ARGUMENT = (
    ("fcntl", 1, "is", F_GETLK, errno.EINVAL),
    ("fcntl", 1, "is", F_OFD_GETLK, errno.EINVAL),
    ("fcntl", 1, "is", F_SETLK, 0),
    ("fcntl", 1, "is", F_SETLKW, 0),
    ("fcntl", 1, "is", F_OFD_SETLK, 0),
    ("fcntl", 1, "is", F_OFD_SETLKW, 0),
    ("clone", 0, "has", CLONE_NEWUSER, errno.EPERM),
    ("unshare", 0, "has", CLONE_NEWUSER, errno.EPERM),
    ("preadv2", 5, "has", RWF_NOWAIT, errno.EOPNOTSUPP),
    ("fadvise64", 3, "is", POSIX_FADV_DONTNEED, errno.EPERM),
    ("madvise", 2, "is", MADV_PAGEOUT, errno.EINVAL),
    ("madvise", 2, "is", MADV_RANDOM, errno.EINVAL),
    ("fadvise64", 3, "is", POSIX_FADV_RANDOM, errno.EINVAL),
)
"""Calls refused only with one argument: (call, argument's index, ``has`` the flag or
``is`` the value, the value, the error). Every other use of them passes."""
SUMMARY = (
    "ptrace, process_vm_*, sched_setaffinity, keyring, perf, bpf, userfaultfd, io_uring,"
    " SIGCONT as an fd's signal,"
    " page-cache probes (mincore, cachestat, RWF_NOWAIT, AIO, DONTNEED, PAGEOUT, RANDOM),"
    " new user namespaces, inotify, file locks (taken as done), sysinfo"
)
"""The refused calls in a few words, for ``goatarena doctor``."""

SYSCALL_NUMBERS = {
    "x86_64": {
        "ptrace": 101,
        "process_vm_readv": 310,
        "process_vm_writev": 311,
        "sched_setaffinity": 203,
        "add_key": 248,
        "request_key": 249,
        "keyctl": 250,
        "perf_event_open": 298,
        "bpf": 321,
        "userfaultfd": 323,
        "io_uring_setup": 425,
        "io_uring_enter": 426,
        "io_uring_register": 427,
    },
    "aarch64": {
        "ptrace": 117,
        "process_vm_readv": 270,
        "process_vm_writev": 271,
        "sched_setaffinity": 122,
        "add_key": 217,
        "request_key": 218,
        "keyctl": 219,
        "perf_event_open": 241,
        "bpf": 280,
        "userfaultfd": 282,
        "io_uring_setup": 425,
        "io_uring_enter": 426,
        "io_uring_register": 427,
    },
}
"""The numbers of the refused calls on each machine (from the kernel's syscall tables)."""
CHANNEL_CALL_NUMBERS = {
    "x86_64": {
        "mincore": 27,
        "cachestat": 451,
        "io_setup": 206,
        "clone3": 435,
        "clone": 56,
        "unshare": 272,
        "preadv2": 327,
        "fadvise64": 221,
        "madvise": 28,
        "inotify_init": 253,
        "inotify_init1": 294,
        "flock": 73,
        "fcntl": 72,
        "sysinfo": 99,
    },
    "aarch64": {
        "mincore": 232,
        "cachestat": 451,
        "io_setup": 0,
        "clone3": 435,
        "clone": 220,
        "unshare": 97,
        "preadv2": 286,
        "fadvise64": 223,
        "madvise": 233,
        "inotify_init1": 26,
        "flock": 32,
        "fcntl": 25,
        "sysinfo": 179,
    },
}
"""The numbers of :data:`DENIED_CHANNELS` and :data:`REFUSED_WITH_ARGUMENT`'s calls."""
AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
X32_SYSCALL_BIT = 0x40000000

# Classic BPF, as seccomp runs it: instruction codes and the fields of seccomp_data.
_LOAD_WORD = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JUMP_EQUAL = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JUMP_AT_LEAST = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_JUMP_ANY_BIT = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_RETURN = 0x06  # BPF_RET | BPF_K
_NR_OFFSET, _ARCH_OFFSET, _ARGS_OFFSET = 0, 4, 16
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000


def _op(code: int, k: int, jump_true: int = 0, jump_false: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jump_true, jump_false, k)


def filter_program(machine: str | None = None) -> bytes | None:
    """The filter for ``machine`` (this one by default) as BPF, or None if it has no table."""
    machine = machine or platform.machine()
    numbers = SYSCALL_NUMBERS.get(machine)
    if numbers is None:
        return None
    refuse_all = _op(_RETURN, _ERRNO | errno.ENOSYS)
    program = [
        _op(_LOAD_WORD, _ARCH_OFFSET),
        _op(_JUMP_EQUAL, AUDIT_ARCH[machine], jump_true=1),
        refuse_all,  # another ABI: its numbers mean other calls
        _op(_LOAD_WORD, _NR_OFFSET),
    ]
    if machine == "x86_64":
        program += [_op(_JUMP_AT_LEAST, X32_SYSCALL_BIT, jump_false=1), refuse_all]
    program += _argument_checks(CHANNEL_CALL_NUMBERS[machine])
    numbers = {**numbers, **CHANNEL_CALL_NUMBERS[machine]}
    for name, error in {**DENIED, **DENIED_CHANNELS}.items():
        if name not in numbers:
            continue  # a call this machine does not have
        program += [_op(_JUMP_EQUAL, numbers[name], jump_false=1), _op(_RETURN, _ERRNO | error)]
    for name, arguments, error in REFUSED_ARGUMENTS:
        program += _argument_rule(ARGUMENT_NUMBERS[machine][name], arguments, error)
    program.append(_op(_RETURN, _ALLOW))
    return b"".join(program)


def _argument_rule(number: int, arguments: tuple[tuple[int, int], ...], error: int) -> list[bytes]:
    """Refuse call ``number`` with ``error`` if every (index, value) of ``arguments`` holds
    (the low 32 bits of the argument, little-endian); the call number is loaded again
    after, for the rules that follow."""
    count = len(arguments)
    rule = [_op(_JUMP_EQUAL, number, jump_false=2 * count + 1)]
    for place, (index, value) in enumerate(arguments):
        rule.append(_op(_LOAD_WORD, _ARGS_OFFSET + 8 * index))
        rule.append(_op(_JUMP_EQUAL, value, jump_false=2 * (count - 1 - place) + 1))
    return [*rule, _op(_RETURN, _ERRNO | error), _op(_LOAD_WORD, _NR_OFFSET)]


def _argument_checks(numbers: dict[str, int]) -> list[bytes]:
    """The checks of :data:`REFUSED_WITH_ARGUMENT`, each ending with the call's number
    loaded again. An argument's low word is enough: every flag and value tested is in it
    (both machines are little-endian, so it comes first)."""
    program = []
    for name, index, test, value, error in REFUSED_WITH_ARGUMENT:
        compare = _JUMP_ANY_BIT if test == "has" else _JUMP_EQUAL
        program += [
            _op(_JUMP_EQUAL, numbers[name], jump_false=3),
            _op(_LOAD_WORD, _ARGS_OFFSET + 8 * index),
            _op(compare, value, jump_false=1),
            _op(_RETURN, _ERRNO | error),
        ]
        # Reload the number (the next check, and the plain ones, compare it); cheap.
        program.append(_op(_LOAD_WORD, _NR_OFFSET))
    return program


def open_filter(machine: str | None = None) -> int | None:
    """A pipe's read end holding the filter, for bubblewrap's ``--seccomp FD`` (the caller
    closes it once the bot has started), or None where there is no filter for ``machine``."""
    program = filter_program(machine)
    if program is None:
        return None
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, program)  # a few hundred bytes: far below a pipe's buffer
    finally:
        os.close(write_end)
    return read_end
