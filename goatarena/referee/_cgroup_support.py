"""What cgroups this machine lets the runner use, found once per process.

:func:`detect` finds the cgroup version (v1, v2, or a v1 machine's unified hierarchy for
the freezer) and makes this runner's base cgroups, in which
:class:`~goatarena.referee.cgroups.BotCgroup` makes one per bot; nothing is used unless
``statfs`` shows a cgroup file system and the controller's own file is there.
:func:`remove_bases` removes the bases at exit.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
from dataclasses import dataclass, field
from pathlib import Path

from goatarena.referee.cgroup_checks import CONTROL_FILES, is_cgroup
from goatarena.referee.cgroup_watchdog import start_watchdog, thaw_and_kill

ROOT = Path("/sys/fs/cgroup")
WANTED = ("memory", "pids", "freezer", "cpuset", "cpu", "cpuacct")
WANTED_V1 = ("memory", "pids", "freezer", "cpuset", "cpu", "cpuacct")


@dataclass(frozen=True)
class CgroupSupport:
    """What cgroups this machine lets the runner use.

    ``version`` is 1, 2 or None; ``bases`` maps each usable controller to the folder in
    which bot cgroups are made (in v2 all share one folder, and freezing needs no
    controller); ``reason`` says why something is missing.
    """

    version: int | None
    bases: dict[str, Path] = field(default_factory=dict)
    reason: str = ""

    @property
    def controllers(self) -> list[str]:
        """The usable controllers, in a stable order."""
        return [name for name in WANTED if name in self.bases]


def _own_paths() -> dict[str, str]:
    """This process's cgroup by controller ("" for the v2 hierarchy)."""
    paths: dict[str, str] = {}
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, names, path = line.split(":", 2)
            for name in names.split(",") if names else [""]:
                paths[name] = path
    return paths


def write_value(path: Path, value: str) -> None:
    """Write ``value`` to the cgroup file ``path`` (one write: the kernel acts on it)."""
    with open(path, "w") as file:
        file.write(value)


def _make_base(folder: Path) -> Path:
    """A folder of this runner's own in ``folder``; raises OSError if it may not.

    Empty folders left by runners that died without cleaning up are removed first.
    """
    for stale in folder.glob("goatarena-*"):
        pid = stale.name.removeprefix("goatarena-")
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            thaw_and_kill(stale)  # in case its watchdog could not
            for empty in [*stale.glob("bot-*"), stale]:
                with contextlib.suppress(OSError):
                    empty.rmdir()
    base = folder / f"goatarena-{os.getpid()}"
    base.mkdir(exist_ok=True)
    return base


@functools.cache
def detect() -> CgroupSupport:
    """Find the cgroup version and make this runner's base cgroups (once per process).

    The base cgroups are removed when the process exits.
    """
    atexit.register(remove_bases)
    if not ROOT.is_dir():
        return CgroupSupport(None, reason="no /sys/fs/cgroup")
    own = _own_paths()
    if is_cgroup(ROOT, 2):
        return _detect_v2(own.get("", "/"))
    if any(is_cgroup(ROOT / name, 1) for name in WANTED_V1) or is_cgroup(ROOT / "unified", 2):
        return _detect_v1(own)
    return CgroupSupport(None, reason="no cgroup hierarchy mounted")


def _detect_v1(own: dict[str, str]) -> CgroupSupport:
    bases: dict[str, Path] = {}
    problems = []
    unified = _unified_freezer(own.get("", "/"))
    if unified is not None:
        bases["freezer"] = unified
    for name in WANTED_V1:
        if name in bases:
            continue
        mount = ROOT / name
        if not is_cgroup(mount, 1):
            # An empty folder of that name is not the controller (statfs tells).
            problems.append(f"{name}: not mounted")
            continue
        try:
            base = _make_base(mount / own.get(name, "/").lstrip("/"))
            if not (base / CONTROL_FILES[name]).exists():
                base.rmdir()
                problems.append(f"{name}: {mount} holds another controller")
                continue
            if name == "cpuset":
                # A v1 cpuset admits no process until it has CPUs and memory nodes.
                for key in ("cpuset.cpus", "cpuset.mems"):
                    if not (base / key).read_text().strip():
                        write_value(base / key, (base.parent / key).read_text().strip())
        except OSError as error:
            problems.append(f"{name}: {error.strerror or error}")
            continue
        bases[name] = base
    v1_freezer = "freezer" in bases and not (bases["freezer"] / "cgroup.freeze").exists()
    if v1_freezer and not start_watchdog(bases["freezer"]):
        del bases["freezer"]
        problems.append("freezer: no watchdog to thaw bots if the runner dies")
    return CgroupSupport(1, bases, "; ".join(problems))


def _unified_freezer(own: str) -> Path | None:
    """A base folder in the v2 hierarchy that a v1 machine mounts beside its controllers
    (``/sys/fs/cgroup/unified``), whose ``cgroup.freeze`` needs no controller: a tenth of
    the cost of the v1 freezer per pause, and a frozen task there still dies of SIGKILL.
    None where there is none or it may not be used."""
    unified = ROOT / "unified"
    if not is_cgroup(unified, 2):
        return None
    try:
        base = _make_base(unified / own.lstrip("/"))
    except OSError:
        return None
    return base if (base / "cgroup.freeze").exists() else None


def _detect_v2(own: str) -> CgroupSupport:
    if not is_cgroup(ROOT, 2):
        return CgroupSupport(None, reason=f"{ROOT} is no cgroup2 file system")
    try:
        base = _make_base(ROOT / own.lstrip("/"))
    except OSError as error:
        return CgroupSupport(2, reason=f"cannot make a cgroup: {error.strerror or error}")
    bases = {"freezer": base}  # cgroup.freeze needs no controller
    offered = (base / "cgroup.controllers").read_text().split()
    problems = []
    bases["cpuacct"] = base  # cpu.stat counts CPU time with no controller
    for name in ("memory", "pids", "cpuset", "cpu"):
        if name not in offered:
            problems.append(f"{name}: not delegated to {own}")
            continue
        try:
            write_value(base / "cgroup.subtree_control", f"+{name}")
        except OSError as error:
            problems.append(f"{name}: {error.strerror or error}")
            continue
        bases[name] = base
    return CgroupSupport(2, bases, "; ".join(problems))


def remove_bases() -> None:
    """Remove this runner's base cgroups (at exit; they are empty by then)."""
    if detect.cache_info().currsize == 0:
        return
    support = detect()
    for bot in {folder for base in support.bases.values() for folder in base.glob("bot-*")}:
        with contextlib.suppress(OSError):
            bot.rmdir()
    for base in set(detect().bases.values()):
        with contextlib.suppress(OSError):
            base.rmdir()
