"""A pause that holds: a bot gets no CPU between its turns, whatever it does to wake itself.

The attacker (tests/bots/hostile_pause.py) forks workers whose POSIX timers send them
SIGCONT every 2 ms, with their leader threads exited (zombies) and other threads spinning;
its opponent, pinned to the same CPU, counts how much work it gets done per decision.
"""

from __future__ import annotations

import re
import shlex
import statistics
import sys
import threading
from pathlib import Path
from unittest import mock

import pytest
import trio

from goatarena.games import find_game, mountain_goats
from goatarena.referee import MatchResult, TimeControl, play_match
from goatarena.referee.bot import open_bot
from goatarena.referee.cgroups import BotCgroup, detect
from goatarena.referee.confinement import WAKE_ON_LOOP_TASKS, Confinement
from goatarena.referee.lineup import open_lineup
from goatarena.referee.sandbox import SandboxPolicy, probe
from tests.helpers import RANDOM_BOT, ROOT, python_bot

pytestmark = pytest.mark.skipif(probe() is not None, reason=f"no sandbox here: {probe()}")

MOUNTAIN_GOATS = find_game("mountain-goats")
CONTROL = TimeControl(move_ms=300, startup_ms=5000)
SCRIPT = ROOT / "tests" / "bots" / "hostile_pause.py"
KEPT_SHARE = 0.65
"""The least part of its CPU share an honest bot keeps beside the attacker (unchecked,
the attack took 56-70 % of its work)."""
SHARE_ROUNDS = 50
"""Rounds per game where a CPU share is measured: half a whole game's 100, and still an
upper quartile that a burst of other load seldom moves (with 30, one in six games of a
bot that paused nothing kept over 65 %)."""
SHARE_ATTEMPTS = 2
"""Pairs of games played, their shares taken together, before a low share fails: a burst
of other load on a shared machine can take a short game's upper quartile, but not that of
two; the attack takes its share in every game."""


def pause_bot(role: str, number: int | None = None) -> str:
    command = f"{shlex.quote(sys.executable)} {SCRIPT} {role}"
    return command if number is None else f"{command} {number}"


def play_on_one_cpu(
    commands: list[str], log_dir: Path, rounds: int = mountain_goats.MAX_ROUNDS
) -> MatchResult:
    """One game of at most ``rounds`` rounds with every bot sandboxed and pinned to CPU 0,
    logs in ``log_dir``. A check that a pause holds needs only a few dozen pauses: a
    game cut short (the bots here never end one sooner) spares the rest of the 100."""

    async def main() -> MatchResult:
        async with open_lineup(
            commands, startup_s=5, log_dir=log_dir, sandbox=SandboxPolicy()
        ) as bots:
            for bot in bots:
                bot.pin(0)
            return await play_match(MOUNTAIN_GOATS, bots, seed=1, time_control=CONTROL)

    log_dir.mkdir()
    with mock.patch.object(mountain_goats, "MAX_ROUNDS", rounds):
        return trio.run(main)


def cpu_share(logs: list[Path]) -> float:
    """The honest bot's usual share of the CPU in its turns, from its logs: the upper
    quartile, as other load on a shared machine takes some at random, and an attacker
    takes it in every turn."""
    text = "".join(log.read_text() for log in logs)
    shares = [float(share) for share in re.findall(r"^share ([\d.]+)$", text, re.M)]
    assert len(shares) >= 8, text[-500:]
    return statistics.quantiles(shares, n=4)[2]


def kept_share(folders: list[Path]) -> float:
    """The honest seat's CPU share beside the attacker, as a part of its share alone, over
    the games played in ``folders``."""
    attacked = cpu_share([folder / "attacked" / "seat0.log" for folder in folders])
    return attacked / cpu_share([folder / "alone" / "seat0.log" for folder in folders])


def freezes() -> bool:
    support = detect()
    return "freezer" in support.bases


def test_a_frozen_bot_whose_timers_send_sigcont_steals_nothing(tmp_path):
    if not freezes():
        pytest.skip(f"no cgroup freezer here: {detect().reason or 'no cgroups'}")
    honest, timers = pause_bot("honest"), pause_bot("timers")
    folders: list[Path] = []
    for attempt in range(SHARE_ATTEMPTS):
        folders.append(folder := tmp_path / str(attempt))
        folder.mkdir()
        baseline = play_on_one_cpu([honest, honest], folder / "alone", rounds=SHARE_ROUNDS)
        attacked = play_on_one_cpu([honest, timers], folder / "attacked", rounds=SHARE_ROUNDS)
        assert baseline.all_violations == [[], []] and attacked.all_violations == [[], []]
        # The kernel is not asked to wake it when its input is ready, either.
        assert "setsig refused" in (folder / "attacked" / "seat1.log").read_text()
        kept = kept_share(folders)
        if kept >= KEPT_SHARE:
            break
    assert kept >= KEPT_SHARE, f"the honest bot kept {kept:.0%} of its CPU share"


def test_where_pausing_is_by_signal_a_bot_that_wakes_itself_forfeits(tmp_path, monkeypatch):
    # As where there is no freezer (cgroup v1 without it, or no cgroups at all).
    monkeypatch.setattr(BotCgroup, "can_freeze", property(lambda self: False))
    attacked = play_on_one_cpu([pause_bot("honest"), pause_bot("timers")], tmp_path / "attacked")
    violation = attacked.violations[1]
    assert violation is not None and violation.cause == "escape", attacked.all_violations
    assert violation.detail.startswith("woke itself 3 times while paused between its turns")
    # Found within its first pauses (two wakes are forgiven), not tolerated to the end.
    assert violation.decision <= 40 < len(attacked.decisions)
    assert attacked.all_violations[0] == [] and attacked.ranks == [1, 2]


def test_honest_bots_paused_by_signal_are_never_taken_for_bots_that_wake_themselves(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(BotCgroup, "can_freeze", property(lambda self: False))
    honest = play_on_one_cpu([pause_bot("honest"), pause_bot("honest")], tmp_path / "alone")
    assert honest.all_violations == [[], []]


MANY_PROCESSES = f"""
import os, sys, time
for _ in range({WAKE_ON_LOOP_TASKS + 8}):
    if os.fork() == 0:
        time.sleep(60)
        os._exit(0)
print('{{"type":"hello","name":"t"}}', flush=True)
sys.stdin.read()
"""


@pytest.mark.parametrize("pausing", ["freezer", "signals"])
@pytest.mark.parametrize("size", ["many", "few"])
def test_a_bot_of_many_processes_is_woken_off_the_event_loop(monkeypatch, pausing, size):
    """Waking hundreds of tasks at once held the loop every game shares for up to 100 ms."""
    if pausing == "freezer" and not freezes():
        pytest.skip(f"no cgroup freezer here: {detect().reason or 'no cgroups'}")
    if pausing == "signals":
        monkeypatch.setattr(BotCgroup, "can_freeze", property(lambda self: False))
    on_loop: list[bool] = []
    resume = Confinement.resume

    def resume_and_say_where(self: Confinement) -> None:
        on_loop.append(threading.current_thread() is threading.main_thread())
        resume(self)

    monkeypatch.setattr(Confinement, "resume", resume_and_say_where)
    command = python_bot(MANY_PROCESSES) if size == "many" else RANDOM_BOT

    async def main() -> None:
        async with open_bot(command, sandbox=SandboxPolicy()) as bot:
            assert await bot.greet(20) is not None
            await trio.sleep(0.2)  # stopped by signals: the sweeps have found all of it
            await bot.resume_async()

    trio.run(main)
    assert on_loop[0] is (size == "few"), on_loop
