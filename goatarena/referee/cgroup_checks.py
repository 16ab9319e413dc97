"""Whether a folder is a cgroup file system, and what the kernel says of a freeze.

:mod:`goatarena.referee.cgroups` takes nothing on trust: a hierarchy is used only where
``statfs`` shows a cgroup file system, and a pause is read back from the kernel's own
files (a plain folder named ``freezer`` would take any word written into it).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
import sys
from pathlib import Path

CGROUP_MAGIC = {1: 0x0027E0EB, 2: 0x63677270}
"""By cgroup version: the file system type ``statfs`` reports for a hierarchy
(``CGROUP_SUPER_MAGIC``, ``CGROUP2_SUPER_MAGIC``)."""
CONTROL_FILES = {
    "memory": "memory.limit_in_bytes",
    "pids": "pids.max",
    "freezer": "freezer.state",
    "cpuset": "cpuset.cpus",
    "cpu": "cpu.shares",
    "cpuacct": "cpuacct.usage",
}
"""The file each v1 controller shows in a cgroup below its hierarchy's root: a folder
without it holds no such controller, whatever its name."""
FROZEN_STATES = {1: ("FROZEN", "FREEZING"), 2: ("frozen 1", "frozen 0")}
"""By cgroup version: what the kernel says of a cgroup frozen, and of one it is still
freezing (v1 ``freezer.state``; v2 the ``frozen`` line of ``cgroup.events``)."""
_STATFS_BYTES = 120
"""The size of ``struct statfs`` on x86-64 and aarch64 (its first word is the type)."""


def filesystem_type(path: Path) -> int | None:
    """The file system type of ``path`` by ``statfs(2)`` (None where it cannot be read)."""
    libc = _libc()
    buffer = ctypes.create_string_buffer(_STATFS_BYTES)
    if libc is None or libc.statfs(os.fsencode(path), buffer) != 0:
        return None
    return int.from_bytes(buffer.raw[: ctypes.sizeof(ctypes.c_long)], sys.byteorder)


@functools.cache
def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name, use_errno=True)
    except OSError:
        return None


def is_cgroup(path: Path, version: int) -> bool:
    """Whether ``path`` lies in a cgroup file system of ``version``, as ``statfs`` says."""
    return filesystem_type(path) == CGROUP_MAGIC[version]


def read_freeze_state(fd: int, version: int, name: str) -> str:
    """What the kernel says of a cgroup asked to freeze, read from ``fd`` (open on its
    ``name``: v1 ``freezer.state``, v2 ``cgroup.events``, checked to be a cgroup file by
    :func:`open_state_file`): ``"frozen"``, ``"freezing"`` (not every task stopped yet),
    or what it says instead. One ``pread``."""
    try:
        said = os.pread(fd, 256, 0).decode("ascii", "replace")
    except OSError as error:
        return f"{name} cannot be read ({error.strerror or error})"
    frozen, freezing = FROZEN_STATES[version]
    words = said.splitlines() if version == 2 else [said.strip()]
    if frozen in words:
        return "frozen"
    if freezing in words:
        return "freezing"
    return f"{name} says {' '.join(said.split())[:80] or 'nothing'}"


def open_state_file(state: Path, version: int) -> int | str:
    """A descriptor open on a freezer's state file, or why it cannot be one (not in a
    cgroup file system of ``version`` by ``fstatfs``: a plain file takes any word)."""
    try:
        fd = os.open(state, os.O_RDONLY | os.O_CLOEXEC)
    except OSError as error:
        return f"{state} cannot be read ({error.strerror or error})"
    if filesystem_type(Path(f"/proc/self/fd/{fd}")) != CGROUP_MAGIC[version]:
        os.close(fd)
        return f"{state} is no cgroup file"
    return fd
