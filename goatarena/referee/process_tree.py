"""Bot processes as ``/proc`` shows them: a process tree, and whether a process (every
thread of it) has stopped, for pausing by signals where there is no freezer."""

from __future__ import annotations

import os

SETTLED_STATES = frozenset(b"tTZX")
"""States in /proc of a process that can no longer fork: stopped, or dead."""


def process_tree(root: int) -> list[int]:
    """``root`` and all its descendants now, parents before children (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as file:
                stat = file.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(b")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def _state(pid: int, task: int | None = None) -> int:
    """The state letter of ``pid`` (or of its thread ``task``) in /proc as a byte (``X``,
    dead, once it is gone)."""
    path = f"/proc/{pid}/stat" if task is None else f"/proc/{pid}/task/{task}/stat"
    try:
        with open(path, "rb") as file:
            stat = file.read()
    except OSError:
        return ord("X")
    return stat[stat.rindex(b")") + 2]


def settled(pid: int) -> bool:
    """Whether process ``pid`` can run no more: stopped or dead, every thread of it.

    A leader that has exited shows as a zombie while its other threads run on: then each
    thread's own state counts."""
    state = _state(pid)
    if state not in SETTLED_STATES:
        return False
    if state != ord("Z"):
        return True
    return all(_state(pid, task) in SETTLED_STATES for task in tasks(pid) if task != pid)


def tasks(pid: int) -> list[int]:
    try:
        return [int(name) for name in os.listdir(f"/proc/{pid}/task")]
    except OSError:
        return [pid]
