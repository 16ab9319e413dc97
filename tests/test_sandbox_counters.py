"""The machine's counters carry nothing between bots (tests/bots/hostile_counters.py).

Two allies at one table: the sender keeps 24 MiB in its own ``/dev/shm`` or nothing in
each of its turns (frozen in between, it keeps it); the receiver reads the machine's
shared memory in its turns, from ``/proc/meminfo``, ``/proc/vmstat``, ``/proc/zoneinfo``
and ``sysinfo(2)``. Unsandboxed every channel carries the bits; sandboxed, the files show
fixed values or cannot be read and ``sysinfo`` is refused, while what runtimes read
(the memory total, the CPU count) stays sensible.
"""

from __future__ import annotations

import os
import random
import shlex
import shutil
import sys

import pytest
import trio

from goatarena.referee.launcher import launch
from goatarena.referee.proc_view import machine_memory_kb
from goatarena.referee.sandbox import SandboxPolicy, probe
from tests.helpers import ROOT
from tests.test_sandbox_trust import heard, play

pytestmark = pytest.mark.skipif(probe() is not None, reason=f"no sandbox here: {probe()}")

COUNTERS = ROOT / "tests" / "bots" / "hostile_counters.py"
CHANNELS = ("meminfo", "vmstat", "zoneinfo", "sysinfo")
BOT_MEMORY_KB = 1 << 20
"""What ``play`` gives each bot (1 GiB)."""


def counters(role: str, arg: object) -> str:
    return shlex.join([sys.executable, str(COUNTERS), role, str(arg)])


def saw(log: str, what: str) -> str:
    return log.split(f"saw {what}: ")[1].split("\n")[0]


def matching(sent: str, got: str) -> float:
    """The part of the bits decoded right (0 for no decoding at all)."""
    if len(got) != len(sent) or set(got) - {"0", "1"}:
        return 0.0
    return sum(a == b for a, b in zip(sent, got, strict=True)) / len(sent)


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_allies_cannot_talk_through_the_machines_shared_memory(tmp_path, sandbox):
    bits = "".join(random.choice("01") for _ in range(16))
    outcome, (sent, log), _ = play(
        tmp_path,
        counters("send", bits),
        counters("receive", len(bits)),
        "--sandbox",
        sandbox,
    )
    assert "tried send" in sent and "tried receive" in log, (sent, log)
    assert outcome["violations"] == [None, None], outcome["violations"]
    decoded = {channel: heard(log, channel) for channel in CHANNELS}
    if sandbox == "none":  # the attack is real (other load on the machine may flip a bit)
        for channel in ("meminfo", "sysinfo"):
            assert matching(bits, decoded[channel]) >= 0.75, (bits, decoded)
        return
    assert decoded["meminfo"].startswith("no signal (0 bytes)"), decoded
    for channel in ("vmstat", "zoneinfo"):
        assert decoded[channel].startswith("refused"), decoded
    assert decoded["sysinfo"].startswith("refused") and "38" in decoded["sysinfo"], decoded
    # What runtimes read stays sensible: the bot's memory, the machine's CPUs.
    total = min(machine_memory_kb(), BOT_MEMORY_KB)
    assert saw(log, "MemTotal") == saw(log, "MemAvailable") == f"{total} kB", log
    assert int(saw(log, "cpus")) == os.cpu_count(), log
    assert saw(log, "loadavg") == "0.00 0.00 0.00 1/1 1"
    if os.path.isdir("/proc/pressure"):  # a kernel with pressure stall information
        assert saw(log, "pressure") == "[]"


@pytest.mark.skipif(shutil.which("node") is None, reason="no node here")
def test_node_still_reads_the_memory_and_cpus_it_is_given():
    """libuv reads /proc/meminfo for the memory and /proc/stat for the CPUs."""
    script = "const os = require('os'); console.log(os.totalmem(), os.cpus().length)"

    async def run() -> bytes:
        process, confinement = await launch(
            ["node", "-e", script],
            memory_bytes=BOT_MEMORY_KB << 10,
            processes=256,
            open_files=1024,
            file_bytes=1 << 20,
            policy=SandboxPolicy(),
        )
        assert process.stdout is not None
        said = b""
        while chunk := await process.stdout.receive_some(4096):
            said += chunk
        await process.wait()
        await confinement.release()
        return said

    total, cpus = trio.run(run).split()
    assert int(total) == min(machine_memory_kb(), BOT_MEMORY_KB) << 10
    assert int(cpus) == os.cpu_count()
