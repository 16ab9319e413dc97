"""A build runs with what the games leave: its processes are SCHED_IDLE, in the idle I/O
class and in an idle cgroup, so that ordinary work (a referee, a bot) beside it gets the
CPU as if the build were not there, and its wait for the CPU does not count against its
time. A validation is a timed game and plays at the games' priority."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from goatarena.competition.builds import (
    BuildLimits,
    BuildResult,
    build_folder,
    close_after_build,
    open_to_build,
    pin_python,
)
from goatarena.competition.validation import validate
from goatarena.formats.tournament_file import load_config
from goatarena.referee.sandbox import SandboxPolicy, probe

pytestmark = pytest.mark.skipif(probe() is not None, reason="no sandbox on this machine")

LIMITS = BuildLimits(
    seconds=60, memory_bytes=512 << 20, processes=64, file_bytes=16 << 20, log_bytes=8 << 10
)
PRIORITY = """\
import ctypes, os, platform
IOPRIO_GET = {"x86_64": 252, "aarch64": 31}
libc = ctypes.CDLL(None, use_errno=True)
io_class = libc.syscall(IOPRIO_GET[platform.machine()], 1, 0) >> 13
print(os.sched_getscheduler(0), io_class)
"""
SHARE = """\
import sys, time
open("started", "w").close()
time.sleep(0.5)  # for the ordinary work to start beside it
began, cpu = time.monotonic(), time.process_time()
while time.monotonic() - began < float(sys.argv[1]):
    pass
print((time.process_time() - cpu) / (time.monotonic() - began))
"""
"""Busy for a while on the CPU it has; the share of that CPU it got."""
WORK = """\
import time
open("started", "w").close()
time.sleep(0.5)  # for the ordinary work to start beside it
cpu = time.process_time()
while time.process_time() - cpu < 0.3:
    pass
print("done")
"""
"""Work for 0.3 s of CPU time, however long it waits for it."""
BUSY = "import sys, time\nend = time.monotonic() + float(sys.argv[1])\nwhile time.monotonic() < end: pass"
PINNED_BUSY = f"import os, sys\nos.sched_setaffinity(0, {{int(sys.argv.pop(1))}})\n{BUSY}"


def build_with(
    tmp_path: Path, script: str, *arguments: str, limits: BuildLimits = LIMITS, beside: float = 0
) -> tuple[BuildResult, str]:
    """Build a folder whose ``make`` runs ``script``: the result and what it printed. With
    ``beside``, everything runs on one CPU, where an ordinary process is busy for up to
    ``beside`` seconds from when the script says it started (till the script ends)."""
    folder = tmp_path / "build"
    folder.mkdir()
    (folder / "probe.py").write_text(script)
    words = " ".join([sys.executable, "probe.py", *arguments])
    (folder / "Makefile").write_text(f"all:\n\t@{words} > said\n\t@touch bot; chmod +x bot\n")
    (folder / "said").write_text("")  # empty until the script has ended
    open_to_build(folder)
    result: list[BuildResult] = []

    async def building(nursery: trio.Nursery) -> None:
        result.append(await build_folder(folder, "make", "./bot", limits, tmp_path / "log"))
        nursery.cancel_scope.cancel()  # the ordinary work too, if still there

    async def ordinary_work() -> None:
        while not (folder / "started").exists():
            await trio.sleep(0.02)
        busy = [sys.executable, "-c", BUSY, str(beside)]
        process = await trio.lowlevel.open_process(busy)
        try:
            while process.poll() is None and not (folder / "said").read_text():
                await trio.sleep(0.02)
        finally:
            process.kill()
            with trio.CancelScope(shield=True):
                await process.wait()

    async def both() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(building, nursery)
            if beside:
                nursery.start_soon(ordinary_work)

    everywhere = os.sched_getaffinity(0)
    if beside:
        pin_every_thread({min(everywhere)})  # the build and the work inherit it
    try:
        trio.run(both)
    finally:
        pin_every_thread(everywhere)
    return result[0], (folder / "said").read_text()


def pin_every_thread(cpus: set[int]) -> None:
    """Let every thread of this process run on ``cpus`` only: a process started from any
    of them (trio starts processes from worker threads made earlier) inherits it."""
    for thread in os.listdir("/proc/self/task"):
        os.sched_setaffinity(int(thread), cpus)


@pytest.mark.skipif(sys.platform != "linux", reason="Linux's scheduling classes")
def test_a_builds_processes_run_at_idle_priority_for_cpu_and_disk(tmp_path):
    result, said = build_with(tmp_path, PRIORITY)
    assert result.ok, result.log
    policy, io_class = said.split()
    assert int(policy) == os.SCHED_IDLE
    assert int(io_class) == 3  # IOPRIO_CLASS_IDLE


@pytest.mark.skipif(sys.platform != "linux", reason="Linux's scheduling classes")
def test_a_build_leaves_its_cpu_to_ordinary_work(tmp_path):
    """A build busy on a CPU where an ordinary process is busy too gets next to nothing of
    it (at an ordinary priority it would get half; at nice 10 in a cgroup of its own, as
    builds ran before, about as much)."""
    result, said = build_with(tmp_path, SHARE, "1.5", beside=60)
    assert result.ok, result.log
    assert float(said) < 0.1


@pytest.mark.skipif(sys.platform != "linux", reason="Linux's scheduling classes")
def test_a_builds_wait_for_the_cpu_does_not_count_against_its_time(tmp_path):
    """An ordinary process keeps the build's only CPU for 5 s: the build, with 4 s to run
    and work for 0.3 s, ends later than 4 s after it started, and is not stopped."""
    short = BuildLimits(
        seconds=4, memory_bytes=512 << 20, processes=64, file_bytes=16 << 20, log_bytes=8 << 10
    )
    result, said = build_with(tmp_path, WORK, limits=short, beside=5)
    assert result.ok, f"{result.reason}\n{result.log}"
    assert said.strip() == "done"
    assert result.seconds > 4


KIT = Path(__file__).resolve().parent.parent / "goatarena" / "kits" / "python"
THINKER = """\
import time
from goatarena.sdk import Request, SeededBot, run


class Thinker(SeededBot):
    name = "thinker"

    def choose(self, request: Request) -> int:
        began = time.process_time()
        while time.process_time() - began < 0.01:  # 10 ms of CPU: 10 % of its time
            pass
        return self.rng.randrange(request.action_count)


run(Thinker())
"""
VALIDATED = """\
name = "class"
format = "ladder"
[time]
move_ms = 100
[bots]
random = "builtin:random"
greedy = "builtin:greedy"
[[games]]
name = "mountain-goats"
players = 2
"""


@pytest.mark.slow
def test_a_validation_plays_at_the_games_priority_so_a_busy_machine_fails_no_bot(tmp_path):
    """Validation games are timed games, so unlike a build they are not run idle: an
    honest bot that thinks for 10 % of its time passes beside ordinary work busy on every
    CPU (idle, it would get next to no CPU and time out: works locally, fails on the
    server)."""
    folder = tmp_path / "thinker"
    shutil.copytree(KIT, folder)
    (folder / "main.py").write_text(THINKER)
    pin_python(folder)
    close_after_build(folder)
    file = tmp_path / "class.toml"
    file.write_text(VALIDATED)
    config = load_config(file)
    busy = [
        subprocess.Popen([sys.executable, "-c", PINNED_BUSY, str(cpu), "300"])
        for cpu in sorted(os.sched_getaffinity(0))
    ]
    try:
        checked = trio.run(
            lambda: validate(
                str(folder / "bot"),
                config,
                games=1,
                reference=config.bots["random"],
                sandbox=SandboxPolicy(),
            )
        )
    finally:
        for process in busy:
            process.kill()
            process.wait()
    assert checked.ok, f"{checked.reason}\n{checked.log[-2000:]}"
