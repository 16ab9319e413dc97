"""The seccomp filter, run by a small classic-BPF interpreter: every refused call gets its
error on each machine, every other call passes, and calls of another ABI are refused.
(That the kernel applies it is tests/test_sandbox_escape.py's to show.)"""

from __future__ import annotations

import errno
import os
import struct

import pytest

from goatarena.referee import seccomp

ALLOW = 0x7FFF0000


def run_filter(program: bytes, *, arch: int, nr: int, args: tuple[int, ...] = ()) -> int:
    """What ``program`` returns for system call ``nr`` of ABI ``arch`` with ``args``."""
    words = [*args, *[0] * (6 - len(args))]
    data = struct.pack("=iIQ6Q", nr, arch, 0, *words)  # nr, arch, ip, six arguments
    ops = [struct.unpack("=HBBI", program[at : at + 8]) for at in range(0, len(program), 8)]
    accumulator, pc = 0, 0
    while True:
        code, jump_true, jump_false, k = ops[pc]
        if code == 0x20:  # load a word of the data
            accumulator = struct.unpack_from("=I", data, k)[0]
        elif code in (0x15, 0x35, 0x45):  # jump if equal / if at least / if any bit
            hit = {0x15: accumulator == k, 0x35: accumulator >= k, 0x45: accumulator & k}[code]
            pc += jump_true if hit else jump_false
        elif code == 0x06:
            return k
        else:
            raise AssertionError(f"unexpected instruction {code:#x}")
        pc += 1


@pytest.mark.parametrize("machine", sorted(seccomp.SYSCALL_NUMBERS))
def test_each_refused_call_gets_its_error_and_others_pass(machine):
    program = seccomp.filter_program(machine)
    assert program is not None
    arch = seccomp.AUDIT_ARCH[machine]
    numbers = seccomp.SYSCALL_NUMBERS[machine]
    assert set(numbers) == set(seccomp.DENIED)
    for name, error in seccomp.DENIED.items():
        assert run_filter(program, arch=arch, nr=numbers[name]) == 0x00050000 | error, name
    channels = seccomp.CHANNEL_CALL_NUMBERS[machine]
    for name, error in seccomp.DENIED_CHANNELS.items():
        if name not in channels:
            continue  # not a call of this machine
        assert run_filter(program, arch=arch, nr=channels[name]) == 0x00050000 | error, name
    refused = set(numbers.values()) | {
        channels[name] for name in seccomp.DENIED_CHANNELS if name in channels
    }
    for nr in range(0, 460):
        if nr not in refused:
            assert run_filter(program, arch=arch, nr=nr) == ALLOW, nr


@pytest.mark.parametrize("machine", sorted(seccomp.SYSCALL_NUMBERS))
def test_calls_are_refused_only_with_the_argument_that_opens_a_channel(machine):
    program = seccomp.filter_program(machine)
    assert program is not None
    arch = seccomp.AUDIT_ARCH[machine]
    numbers = seccomp.CHANNEL_CALL_NUMBERS[machine]
    for name, index, test, value, error in seccomp.REFUSED_WITH_ARGUMENT:
        args = [0] * 6
        args[index] = value | (0x11 if test == "has" else 0)  # other flags beside it
        assert run_filter(program, arch=arch, nr=numbers[name], args=tuple(args)) == (
            0x00050000 | error
        ), name
        args[index] = 0x11 if test == "has" else 1031  # another flag, another command
        assert run_filter(program, arch=arch, nr=numbers[name], args=tuple(args)) == ALLOW, name
    # A fork, a thread and a plain read pass: only a new user namespace is refused.
    clone_thread = 0x003D0F00
    assert run_filter(program, arch=arch, nr=numbers["clone"], args=(clone_thread,)) == ALLOW


def test_calls_of_another_abi_are_refused():
    program = seccomp.filter_program("x86_64")
    assert program is not None
    enosys = 0x00050000 | errno.ENOSYS
    i386 = 0x40000003
    assert run_filter(program, arch=i386, nr=26) == enosys  # ptrace in the 32-bit table
    assert run_filter(program, arch=i386, nr=3) == enosys
    x32_read = seccomp.X32_SYSCALL_BIT | 0
    assert run_filter(program, arch=seccomp.AUDIT_ARCH["x86_64"], nr=x32_read) == enosys


def test_a_machine_without_a_table_has_no_filter():
    assert seccomp.filter_program("riscv64") is None
    assert seccomp.open_filter("riscv64") is None


def test_the_filter_is_handed_over_in_a_pipe_that_ends_with_it():
    fd = seccomp.open_filter("x86_64")
    assert fd is not None
    try:
        assert os.read(fd, 1 << 16) == seccomp.filter_program("x86_64")
        assert os.read(fd, 1) == b""  # bubblewrap reads to the end of the pipe
    finally:
        os.close(fd)


@pytest.mark.parametrize("machine", sorted(seccomp.SYSCALL_NUMBERS))
def test_sigcont_as_a_descriptors_signal_is_refused_and_every_other_fcntl_passes(machine):
    program = seccomp.filter_program(machine)
    assert program is not None
    arch = seccomp.AUDIT_ARCH[machine]
    fcntl = seccomp.ARGUMENT_NUMBERS[machine]["fcntl"]
    f_setsig, sigcont, sigio = seccomp.F_SETSIG, seccomp.SIGCONT, 29
    eperm = 0x00050000 | errno.EPERM
    assert run_filter(program, arch=arch, nr=fcntl, args=(0, f_setsig, sigcont)) == eperm
    # The high half of a 64-bit argument is ignored by the kernel, and so by the filter.
    assert run_filter(program, arch=arch, nr=fcntl, args=(0, f_setsig, sigcont | 1 << 32)) == eperm
    for args in [(0, f_setsig, sigio), (0, 4, sigcont), (0, 1, 0), (5, f_setsig, 0)]:
        assert run_filter(program, arch=arch, nr=fcntl, args=args) == ALLOW, args
    # The same arguments to another call pass; and the refused calls still get their error.
    read = {"x86_64": 0, "aarch64": 63}[machine]  # a call no rule names
    assert run_filter(program, arch=arch, nr=read, args=(0, f_setsig, sigcont)) == ALLOW
    ptrace = seccomp.SYSCALL_NUMBERS[machine]["ptrace"]
    assert run_filter(program, arch=arch, nr=ptrace, args=(0, f_setsig, sigcont)) == eperm
