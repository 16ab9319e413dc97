"""Local referee processes hold a queued game each but play one game per CPU slot: every
game's bots are pinned to the slot's one CPU, never left unpinned by a second game that
the queue let in beside the first."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from goatarena.referee.cgroups import detect
from goatarena.referee.sandbox import probe

pytestmark = [
    pytest.mark.skipif(probe() is not None, reason=f"no sandbox here: {probe()}"),
    pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs: two slots"),
    pytest.mark.skipif("cpuset" not in detect().bases, reason="no cpuset cgroup to pin with"),
]

BOT = """\
import os, random, sys
from goatarena.sdk import Bot, run

class Pinned(Bot):
    name = "pinned"
    def start(self, game):
        print(f"affinity {sorted(os.sched_getaffinity(0))}", file=sys.stderr, flush=True)
        self.rng = random.Random(game.seed)
    def choose(self, request):
        return self.rng.randrange(request.action_count)

run(Pinned())
"""


def test_each_game_of_a_two_slot_run_is_pinned_to_one_cpu(tmp_path: Path) -> None:
    bots = {}
    for name in ("a", "b", "c"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "bot.py").write_text(BOT)
        bots[name] = f"{sys.executable} {name}/bot.py"
    lines = "\n".join(f'{name} = "{command}"' for name, command in bots.items())
    (tmp_path / "t.toml").write_text(
        f'name = "slots"\ndeals = 8\nconcurrency = 2\n[bots]\n{lines}\n'
        '[[games]]\nname = "mountain-goats"\nplayers = 2\n'
    )
    done = subprocess.run(
        [sys.executable, "-m", "goatarena", "run", "t.toml", "--quiet"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    seen = [
        re.findall(r"affinity \[([\d, ]+)\]", log.read_text())
        for log in (tmp_path / "results" / "slots-logs").glob("*.log")
    ]
    affinities = [found for log in seen for found in log]
    assert len(affinities) >= 3 * 2 * 8 // 2  # a line at every game of every bot, roughly
    assert all("," not in cpus for cpus in affinities), affinities
    assert len(set(affinities)) == 2  # both slots played
