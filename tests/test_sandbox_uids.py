"""Every bot process of a root runner has a uid of its own: what the kernel counts per
user (pending signals, message queue bytes, processes) one bot cannot use up for another.

The attacker (tests/bots/hostile_uid.py) makes POSIX timers and message queues until the
kernel refuses more; its victim, at another table of the same referee, makes one of each
in every decision. With one uid for both, as when every bot ran as ``nobody``, the victim
gets neither.
"""

from __future__ import annotations

import collections
import os
import re
import resource
import shlex
import sys
from pathlib import Path

import pytest
import trio

from goatarena.games import find_game
from goatarena.referee import BotLimits, MatchResult, TimeControl, launcher, play_match
from goatarena.referee.bot import open_bot
from goatarena.referee.bot_uids import UID_BASE, UID_COUNT, BotUid
from goatarena.referee.lineup import open_lineup
from goatarena.referee.sandbox import SandboxPolicy, probe
from tests.helpers import RANDOM_BOT, ROOT

pytestmark = [
    pytest.mark.skipif(probe() is not None, reason=f"no sandbox here: {probe()}"),
    pytest.mark.skipif(
        os.geteuid() != 0, reason="bots have uids of their own only where the runner is root"
    ),
]

SCRIPT = ROOT / "tests" / "bots" / "hostile_uid.py"
SHARED_UID = 65534
"""The one uid every bot of a root runner had before: ``nobody``."""


def uid_bot(role: str) -> str:
    return f"{shlex.quote(sys.executable)} {SCRIPT} {role}"


def said(log: Path) -> collections.Counter[str]:
    return collections.Counter(log.read_text().splitlines())


def play_beside_a_hog(logs: Path) -> MatchResult:
    """The victim's game, played while the hog, started first, holds all it got."""

    async def main() -> MatchResult:
        sandbox = SandboxPolicy()
        async with open_lineup(
            [uid_bot("hog")], startup_s=30, sandbox=sandbox, log_dir=logs / "hog"
        ):
            victims = [uid_bot("victim"), RANDOM_BOT]
            async with open_lineup(victims, startup_s=10, sandbox=sandbox, log_dir=logs) as bots:
                control = TimeControl(move_ms=2000)
                return await play_match(
                    find_game("mountain-goats"), bots, seed=1, time_control=control
                )

    (logs / "hog").mkdir(parents=True)
    return trio.run(main)


@pytest.mark.parametrize("walls", ["own uids and shares", "one uid, no shares"])
def test_a_bot_cannot_use_up_what_the_kernel_counts_per_user_for_another(
    tmp_path, monkeypatch, walls
):
    if walls == "one uid, no shares":  # as before
        monkeypatch.setattr(launcher, "claim_uid", lambda: BotUid(SHARED_UID, -1))
        monkeypatch.setattr(launcher, "PER_USER_SHARES", {})
    result = play_beside_a_hog(tmp_path)
    [hogged] = [line for line in said(tmp_path / "hog" / "seat0.log") if line.startswith("hogged")]
    timers, queues = map(int, re.findall(r"\d+", hogged))
    assert timers >= 1024 and queues > 0, hogged  # until the kernel refused more
    assert result.all_violations == [[], []]
    victim = said(tmp_path / "seat0.log")
    decisions = result.latency[0].decisions if result.latency[0] else 0
    assert decisions > 10
    if walls == "one uid, no shares":  # the attack is real
        assert victim["timer refused: Resource temporarily unavailable"] == decisions, victim
        assert victim["queue refused: Too many open files"] == decisions, victim
    else:
        assert victim == {"timer ok": decisions, "queue ok": decisions}, victim
        # Its share of its own uid's count, which bounds what it takes of a shared one.
        assert timers == launcher.PER_USER_SHARES[resource.RLIMIT_SIGPENDING], hogged


def test_bot_processes_alive_at_once_each_have_a_uid_of_their_own_until_they_end():
    async def main() -> list[BotUid]:
        async with open_lineup([RANDOM_BOT] * 3, startup_s=10, sandbox=SandboxPolicy()) as bots:
            claimed = [bot.confinement.uid for bot in bots]
            assert all(uid is not None for uid in claimed)
            ids = [uid.uid for uid in claimed if uid is not None]
            assert len(set(ids)) == 3 and all(UID_BASE <= uid < UID_BASE + UID_COUNT for uid in ids)
            for bot, uid in zip(bots, ids, strict=True):
                inside = [pid for pid in bot.confinement.members() if pid != bot.pid]
                assert {_real_uid(pid) for pid in inside} - {0} == {uid}
        return [uid for uid in claimed if uid is not None]

    for uid in trio.run(main):
        assert uid.released


def _real_uid(pid: int) -> int:
    """The real uid of process ``pid`` (-1 once it is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return -1
    return int(re.search(r"^Uid:\s+(\d+)", status, re.M).group(1))  # type: ignore[union-attr]


def test_without_a_pids_cgroup_a_fork_bomb_stops_at_the_process_limit(monkeypatch):
    """Its own uid makes RLIMIT_NPROC count only its own processes."""
    monkeypatch.setattr(launcher.BotCgroup, "create", classmethod(lambda cls, **_: None))
    limits = BotLimits(processes=48)

    async def main() -> str:
        async with open_bot(uid_bot("forks"), limits=limits, sandbox=SandboxPolicy()) as bot:
            assert bot.confinement.cgroup is None
            await bot.greet(10)
            await bot.resume_async()
            await bot.send_bytes(b'{"type":"decide","decision":1,"actions":[0]}\n')
            with trio.fail_after(20):
                while b"forked" not in bot.stderr_tail:
                    await trio.sleep(0.05)
            return bot.stderr_tail.decode()

    [forked] = re.findall(r"forked (\d+)", trio.run(main))
    assert 0 < int(forked) < limits.processes
