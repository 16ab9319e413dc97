"""Cgroups of bot processes: freezing (v2, and v1 where this machine has it) and killing.

On a machine with cgroup v1 the unified hierarchy (often mounted, without controllers,
at /sys/fs/cgroup/unified) still freezes and kills: the v2 code runs there.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from goatarena.referee import _cgroup_support, cgroups
from goatarena.referee.cgroups import BotCgroup

BUSY = [sys.executable, "-c", "while True: pass"]


def _v2_root() -> Path | None:
    for root in (Path("/sys/fs/cgroup"), Path("/sys/fs/cgroup/unified")):
        if (root / "cgroup.controllers").exists() and os.access(root, os.W_OK):
            return root
    return None


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.fixture
def v2_cgroup(monkeypatch):
    root = _v2_root()
    if root is None:
        pytest.skip("no writable cgroup v2 hierarchy")
    monkeypatch.setattr(_cgroup_support, "ROOT", root)
    own = _cgroup_support._own_paths().get("", "/")
    support = _cgroup_support._detect_v2(own)
    if "freezer" not in support.bases:
        pytest.skip(f"cannot make a v2 cgroup: {support.reason}")
    folder = support.bases["freezer"] / "bot-test"
    folder.mkdir()
    cgroup = BotCgroup(support, {"freezer": folder})
    yield cgroup
    cgroup.kill_all()
    for _ in range(100):
        if cgroup.remove():
            break
        time.sleep(0.01)
    # On a v1 machine the runner's own freezer base may be this same folder: keep it.
    runners = cgroups.detect().bases.values() if cgroups.detect.cache_info().currsize else ()
    if support.bases["freezer"] not in runners:
        support.bases["freezer"].rmdir()


def test_a_frozen_v2_cgroup_gets_no_cpu_and_can_still_be_killed(v2_cgroup):
    process = subprocess.Popen(BUSY, preexec_fn=v2_cgroup.join)
    try:
        time.sleep(0.3)
        assert v2_cgroup.pids() == [process.pid]
        v2_cgroup.freeze()
        time.sleep(0.1)  # freezing is asynchronous in v2
        frozen_at = cpu_seconds(process.pid)
        time.sleep(0.5)
        assert cpu_seconds(process.pid) - frozen_at < 0.02
        v2_cgroup.thaw()
        # thawed, it runs again: however loaded the machine, it gets some CPU soon
        deadline = time.monotonic() + 10
        while cpu_seconds(process.pid) - frozen_at <= 0.05 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert cpu_seconds(process.pid) - frozen_at > 0.05
        v2_cgroup.freeze()
        # Unlike v1, a frozen v2 task dies of SIGKILL: a dead referee leaves nothing stuck.
        os.kill(process.pid, signal.SIGKILL)
        assert process.wait(timeout=5) == -signal.SIGKILL
    finally:
        process.kill()
        process.wait()


def test_kill_all_ends_every_process_of_the_cgroup(v2_cgroup):
    code = "import os, time\nfor _ in range(3):\n    if os.fork() == 0:\n        os.setsid()\ntime.sleep(60)"
    process = subprocess.Popen([sys.executable, "-c", code], preexec_fn=v2_cgroup.join)
    deadline = time.monotonic() + 5
    while len(v2_cgroup.pids()) < 8 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(v2_cgroup.pids()) == 8
    v2_cgroup.kill_all()
    process.wait(timeout=5)
    deadline = time.monotonic() + 5
    while v2_cgroup.pids() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert v2_cgroup.pids() == []


BURNERS = """
import os, sys
os.sched_setaffinity(0, [int(sys.argv[1])])
for _ in range(int(sys.argv[2]) - 1):
    if os.fork() == 0:
        break
while True:
    pass
"""


def group_cpu_seconds(cgroup: BotCgroup) -> float:
    total = 0.0
    for pid in cgroup.pids():
        with contextlib.suppress(OSError):  # it may have ended since the list was read
            total += cpu_seconds(pid)
    return total


@pytest.mark.skipif("cpu" not in cgroups.detect().controllers, reason="no cpu cgroup here")
def test_a_bot_with_many_busy_processes_gets_one_share_of_a_shared_cpu():
    """Eight busy processes of one bot against one of another, on one CPU: each bot gets
    about half (without the cpu controller, the one would get a ninth)."""
    cpu = min(os.sched_getaffinity(0))
    many = BotCgroup.create(memory_bytes=None, processes=None)
    one = BotCgroup.create(memory_bytes=None, processes=None)
    assert many is not None and one is not None
    started = []
    try:
        for cgroup, count in ((many, 8), (one, 1)):
            command = [sys.executable, "-c", BURNERS, str(cpu), str(count)]
            started.append(subprocess.Popen(command, preexec_fn=cgroup.join))
        # Measured once the two have had a second of that CPU between them, however busy
        # the machine is: only the ratio of their shares is asserted.
        deadline = time.monotonic() + 30
        while group_cpu_seconds(many) + group_cpu_seconds(one) < 1.0:
            assert time.monotonic() < deadline, "the burners got no CPU"
            time.sleep(0.05)
        assert len(many.pids()) == 8
        assert group_cpu_seconds(one) > 0.5 * group_cpu_seconds(many)
    finally:
        for cgroup in (many, one):
            cgroup.kill_all()
        for process in started:
            process.wait()
        for cgroup in (many, one):
            for _ in range(100):
                if cgroup.remove():
                    break
                time.sleep(0.01)


def _freezer() -> cgroups.CgroupSupport:
    support = cgroups.detect()
    if "freezer" not in support.bases or "cpuacct" not in support.bases:
        pytest.skip(f"no cgroup freezer and CPU count here: {support.reason or 'no cgroups'}")
    return support


def test_a_frozen_cgroup_gets_no_cpu_and_its_own_sigcont_cannot_wake_it():
    """Whichever freezer the runner uses here (v2, v2 beside v1 controllers, or v1)."""
    _freezer()
    cgroup = BotCgroup.create(memory_bytes=None, processes=None)
    assert cgroup is not None and cgroup.can_freeze
    process = subprocess.Popen(BUSY, preexec_fn=cgroup.join)
    try:
        time.sleep(0.3)
        cgroup.freeze()
        time.sleep(0.1)
        frozen_at = cgroup.cpu_ns()
        assert frozen_at is not None
        os.kill(process.pid, signal.SIGCONT)  # what a bot's timer would send it
        time.sleep(0.5)
        assert (cgroup.cpu_ns() or 0) - frozen_at < 5_000_000
        cgroup.thaw()
        time.sleep(0.5)
        assert (cgroup.cpu_ns() or 0) - frozen_at > 20_000_000
    finally:
        cgroup.kill_all()
        process.wait()
        for _ in range(100):
            if cgroup.remove():
                break
            time.sleep(0.01)


RUNNER_THAT_DIES = """
import os, signal, subprocess, sys, time
from goatarena.referee import _cgroup_support, cgroups
_cgroup_support._unified_freezer = lambda own: None  # the v1 freezer, even beside a unified one
cgroup = cgroups.BotCgroup.create(memory_bytes=None, processes=None)
bot = subprocess.Popen([sys.executable, "-c", "while True: pass"], preexec_fn=cgroup.join)
cgroup.freeze()
print(bot.pid, flush=True)
time.sleep(60)
"""


def test_bots_a_dead_runner_left_frozen_in_v1_are_thawed_and_die_with_it():
    """A task the v1 freezer holds cannot die even of SIGKILL: the runner's watchdog
    thaws and kills its bots once it has gone, however it died."""
    if cgroups.detect().version != 1 or not (cgroups.ROOT / "freezer" / "tasks").exists():
        pytest.skip("no cgroup v1 freezer here")
    runner = subprocess.Popen(
        [sys.executable, "-c", RUNNER_THAT_DIES], stdout=subprocess.PIPE, text=True
    )
    assert runner.stdout is not None
    bot = int(runner.stdout.readline())
    time.sleep(0.2)
    assert _freezer_state(bot) == "FROZEN"
    runner.kill()
    runner.wait()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _alive(bot):
        time.sleep(0.05)
    assert not _alive(bot)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def _freezer_state(pid: int) -> str:
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        if "freezer" in names.split(","):
            return (
                (cgroups.ROOT / "freezer" / path.lstrip("/") / "freezer.state").read_text().strip()
            )
    return ""
