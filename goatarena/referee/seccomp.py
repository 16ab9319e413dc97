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
SUMMARY = (
    "ptrace, process_vm_*, sched_setaffinity, keyring, perf, bpf, userfaultfd, io_uring,"
    " SIGCONT as an fd's signal"
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
AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
X32_SYSCALL_BIT = 0x40000000

# Classic BPF, as seccomp runs it: instruction codes and the fields of seccomp_data.
_LOAD_WORD = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JUMP_EQUAL = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JUMP_AT_LEAST = 0x35  # BPF_JMP | BPF_JGE | BPF_K
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
    for name, error in DENIED.items():
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
