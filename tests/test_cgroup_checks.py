"""Cgroup controllers checked, not assumed: a fake freezer, and pauses read back.

A plain folder named ``freezer`` (no controller mounted there) was taken for the v1
freezer: the referee wrote ``FROZEN`` into a plain file, and a paused bot kept a quarter
of every pause. The attacker (tests/bots/hostile_freezer.py) spins a thread between its
turns and says how much CPU it got while paused; its opponent, on the same CPU, spins
100 ms of each turn.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from pathlib import Path

import pytest

from goatarena.referee import _cgroup_support, cgroups
from goatarena.referee.cgroup_checks import is_cgroup
from goatarena.referee.cgroups import CgroupSupport
from goatarena.referee.sandbox import probe
from tests.helpers import ROOT
from tests.test_pause import pause_bot, play_on_one_cpu

FREEZER_BOT = shlex.join([sys.executable, str(ROOT / "tests" / "bots" / "hostile_freezer.py")])
HONEST = pause_bot("honest", 100)
PAUSED_SHARE = 0.2
"""The most of its pauses the attacker may have had the CPU for (with no pause at all, it
shares the CPU with its opponent: about half)."""
PAUSES = 25
"""Rounds played (the attacker's pauses): 2.5 s of pauses measured, where a whole game of
100 took 10 s to say the same."""
V1 = [name for name in cgroups.WANTED_V1 if is_cgroup(cgroups.ROOT / name, 1)]
V1_HERE = pytest.mark.skipif(
    not V1 or os.geteuid() != 0,
    reason="no cgroup v1 controllers here that the runner may use beside a fake freezer",
)
pytestmark = pytest.mark.skipif(probe() is not None, reason=f"no sandbox here: {probe()}")


def paused_share(log: Path) -> float:
    """The part of its pauses the attacker had the CPU for, from its log."""
    pairs = re.findall(r"^paused-cpu ([\d.]+) of ([\d.]+)$", log.read_text(), re.M)
    assert len(pairs) >= 8, log.read_text()[-500:]
    return sum(float(used) for used, _ in pairs) / sum(float(wall) for _, wall in pairs)


@pytest.fixture
def fresh_detect():
    """detect() found afresh in the test and after it (it is cached per process)."""
    cgroups.remove_bases()
    cgroups.detect.cache_clear()
    yield
    cgroups.remove_bases()
    cgroups.detect.cache_clear()


def fake_hierarchy(root: Path, *, freezer: str) -> Path:
    """A cgroup root as a machine might show it: this machine's v1 controllers, no
    unified hierarchy, and the freezer ``"real"``, ``"plain"`` (an empty folder, no
    controller mounted) or ``"missing"``."""
    root.mkdir()
    for name in V1:
        if name != "freezer":
            (root / name).symlink_to(cgroups.ROOT / name)
    if freezer == "real":
        (root / "freezer").symlink_to(cgroups.ROOT / "freezer")
    elif freezer == "plain":
        (root / "freezer").mkdir()
    return root


def test_folders_that_are_no_cgroup_file_system_are_never_used(fresh_detect, tmp_path, monkeypatch):
    fake = tmp_path / "cgroup"
    for name in ("freezer", "memory", "pids", "unified"):
        (fake / name).mkdir(parents=True)
    (fake / "cgroup.controllers").write_text("memory pids cpu\n")
    (fake / "unified" / "cgroup.controllers").write_text("")
    monkeypatch.setattr(_cgroup_support, "ROOT", fake)
    support = cgroups.detect()
    assert support.version is None and support.bases == {}, support
    assert not list(fake.rglob("goatarena-*"))


@V1_HERE
@pytest.mark.slow
@pytest.mark.skipif("freezer" not in V1, reason="no v1 freezer here")
@pytest.mark.parametrize("freezer", ["plain", "real"])
def test_a_bot_beside_an_empty_freezer_folder_is_paused_all_the_same(
    fresh_detect, tmp_path, monkeypatch, freezer
):
    """Unified hierarchy hidden: the real v1 freezer pauses; an empty folder in its place
    is not taken for it, and signals pause instead."""
    monkeypatch.setattr(
        _cgroup_support, "ROOT", fake_hierarchy(tmp_path / "cgroup", freezer=freezer)
    )
    support = cgroups.detect()
    assert ("freezer" in support.bases) is (freezer == "real"), support
    if freezer == "plain":
        assert "freezer: not mounted" in support.reason
        assert not list((tmp_path / "cgroup" / "freezer").iterdir())
    else:
        assert (support.bases["freezer"] / "freezer.state").exists()
    result = play_on_one_cpu([HONEST, FREEZER_BOT], tmp_path / "game", rounds=PAUSES)
    assert result.all_violations[0] == [], result.all_violations
    if freezer == "real":
        assert result.all_violations[1] == [], result.all_violations
    else:  # by signal a thread that runs on may be found awake: it forfeits, or is stopped
        assert all(found.cause == "escape" for found in result.all_violations[1])
    share = paused_share(tmp_path / "game" / "seat1.log")
    assert share < PAUSED_SHARE, f"the attacker had the CPU for {share:.0%} of its pauses"


def test_a_pause_that_did_not_take_is_an_escape_not_silence(fresh_detect, tmp_path, monkeypatch):
    """A freezer that slipped past detection (here: a plain folder handed over as if it
    were one) is found out at the first pause it fails: each bot it failed to pause is
    stopped with ``escape``, blaming the referee's machine, instead of playing on with
    CPU in its opponents' turns."""
    plain = tmp_path / "not-a-freezer"
    plain.mkdir()
    monkeypatch.setattr(cgroups, "detect", lambda: CgroupSupport(2, {"freezer": plain}))
    result = play_on_one_cpu([HONEST, FREEZER_BOT], tmp_path / "game")
    for violations in result.all_violations:
        [violation] = violations
        assert violation.cause == "escape", result.all_violations
        assert "the referee's pause did not take" in violation.detail, violation.detail
        assert "is no cgroup file" in violation.detail, violation.detail
        assert violation.decision <= 2
