"""A referee's thread asks for a short time slice, so that a bot's deadline is kept
promptly on a busy machine; the bots it starts get the ordinary slice."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio

from goatarena.referee.bot import open_bot
from goatarena.referee.latency import (
    SCHED_RESET_ON_FORK,
    SLICE_NS,
    ask_prompt_wakeups,
    clocks_first,
)
from tests.helpers import ROOT, may_be_real_time, misbehaving

SLEEPER = [sys.executable, "-c", "import time; time.sleep(30)"]


def slice_ns(sched: Path) -> int | None:
    """A thread's slice as the scheduler's debug file shows it (None: not shown)."""
    found = re.search(r"^se\.slice\s*:\s*(\d+)", sched.read_text(), re.MULTILINE)
    return int(found.group(1)) if found else None


def in_thread(work: Callable[[], Any]) -> Any:
    """``work()`` in a thread of its own (the test's thread keeps its slice)."""
    result: list[Any] = []
    thread = threading.Thread(target=lambda: result.append(work()))
    thread.start()
    thread.join()
    return result[0]


def own_slice() -> int | None:
    return slice_ns(Path("/proc/thread-self/sched"))


@pytest.fixture(scope="module", autouse=True)
def granted() -> None:
    said = in_thread(ask_prompt_wakeups)
    if said:
        pytest.skip(f"this machine refuses the request: {said}")
    if in_thread(lambda: (ask_prompt_wakeups(), own_slice())[1]) is None:
        pytest.skip("this kernel does not show a thread's slice")


def test_the_thread_that_asks_gets_the_short_slice_and_others_keep_theirs():
    def asked() -> tuple[str, int | None, str, int | None]:
        return ask_prompt_wakeups(), own_slice(), ask_prompt_wakeups(), own_slice()

    first, short, again, still = in_thread(asked)
    assert first == again == "" and short == still == SLICE_NS
    assert in_thread(own_slice) != SLICE_NS  # a thread that did not ask


def test_a_process_started_by_the_thread_gets_the_ordinary_slice():
    def child_slice() -> int | None:
        ask_prompt_wakeups()
        shown = subprocess.run(["cat", "/proc/self/sched"], capture_output=True, text=True)
        found = re.search(r"^se\.slice\s*:\s*(\d+)", shown.stdout, re.MULTILINE)
        return int(found.group(1)) if found else None

    assert in_thread(child_slice) not in (None, SLICE_NS)


def test_a_referee_keeping_a_bots_clock_is_woken_promptly_and_the_bot_is_not():
    async def referee() -> tuple[int | None, int | None]:
        async with open_bot(SLEEPER) as bot:
            return own_slice(), slice_ns(Path(f"/proc/{bot.process.pid}/sched"))

    referee_slice, bot_slice = in_thread(lambda: trio.run(referee))
    assert referee_slice == SLICE_NS
    assert bot_slice not in (None, SLICE_NS)


def policy_of(thread: int) -> int:
    return os.sched_getscheduler(thread) & ~SCHED_RESET_ON_FORK


@pytest.mark.skipif(not may_be_real_time(), reason="no privilege for real-time priority here")
def test_a_referee_thread_is_real_time_while_it_keeps_clocks_and_its_bots_are_not():
    async def referee() -> tuple[str, int, int, int]:
        with clocks_first() as said:
            async with open_bot(SLEEPER) as bot:
                helper = await trio.to_thread.run_sync(threading.get_native_id)
                return said, policy_of(0), policy_of(bot.process.pid), policy_of(helper)

    def after() -> tuple[tuple[str, int, int, int], int, int | None]:
        return trio.run(referee), policy_of(0), own_slice()

    (said, referee_policy, bot_policy, helper_policy), policy, slice_after = in_thread(after)
    assert said == "" and referee_policy == os.SCHED_FIFO
    assert bot_policy == helper_policy == os.SCHED_OTHER  # not inherited
    assert policy == os.SCHED_OTHER and slice_after == SLICE_NS  # ordinary again


@pytest.mark.skipif(
    os.geteuid() != 0 or not may_be_real_time(), reason="needs root that may be real-time"
)
def test_without_privilege_a_referee_says_so_and_keeps_the_short_slice():
    code = (
        "import os\n"
        "from goatarena.referee.latency import clocks_first\n"
        "os.setgroups([]); os.setgid(65534); os.setuid(65534)\n"
        "with clocks_first() as said:\n"
        "    print(said); print(open('/proc/thread-self/sched').read())\n"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           cwd=ROOT, check=True)  # fmt: skip
    said = shown.stdout.splitlines()[0]
    assert said == "no real-time priority (Operation not permitted): a short slice instead"
    assert re.search(rf"^se\.slice\s*:\s*{SLICE_NS}$", shown.stdout, re.MULTILINE)


def descendants(pid: int) -> list[int]:
    """Every live process below ``pid``."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            for child in (task / "children").read_text().split():
                found += [int(child), *descendants(int(child))]
    return found


def command_line(pid: int) -> str:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    return ""


@pytest.mark.skipif(not may_be_real_time(), reason="no privilege for real-time priority here")
def test_a_runs_referee_processes_keep_clocks_first_and_their_bots_do_not(tmp_path):
    thinking = misbehaving("just-in-time", 0, 300)  # the first move takes most of 2 s
    (tmp_path / "t.toml").write_text(
        f'name = "t"\nseed = 1\n[time]\nmove_ms = 2000\n[bots]\nslow = "{thinking}"\n'
        'quick = "builtin:random"\n[[games]]\nname = "mountain-goats"\nplayers = 2\n'
    )
    run = subprocess.Popen([sys.executable, "-m", "goatarena", "run", "t.toml"], cwd=tmp_path,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        seen: tuple[list[int], list[int]] = ([], [])
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and run.poll() is None:
            below = descendants(run.pid)
            bots = [pid for pid in below if "misbehaving.py" in command_line(pid)]
            # A referee process with a bot started is past its start-up (and its priority).
            referees = [
                pid
                for pid in below
                if "goatarena.running.procs" in command_line(pid)
                and set(bots) & set(descendants(pid))
            ]
            if referees and bots:
                with contextlib.suppress(ProcessLookupError):
                    seen = ([policy_of(pid) for pid in referees], [policy_of(pid) for pid in bots])
                    break
            time.sleep(0.05)
        assert seen[0] and set(seen[0]) == {os.SCHED_FIFO}
        assert seen[1] and set(seen[1]) == {os.SCHED_OTHER}
        assert run.wait(timeout=120) == 0, run.stderr.read() if run.stderr else ""
    finally:
        run.kill()
        run.wait()
