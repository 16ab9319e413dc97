"""The page cache as memory between a deal's rotations, without ``mincore``
(tests/bots/hostile_faults.py), and the setting that closes what is left of it.

One game's process brings pages of a large file every sandbox can read (here one made
under ``/usr/local/share``) into the cache; a later game's process (in a tournament: the
deal's next rotation, whose hand is the first one's opponent's) reads them back by its
own major-fault count: a page that needs no major fault was cached. Advised
``MADV_RANDOM`` a fault reads one page, so every page is a bit; refused that advice, a
fault reads around it (``read_ahead_kb``, 8 MiB here) and the dense channel is gone.
What is left (docs/referee.md): bits far apart, read back by timing one-page reads.
``fresh_deals`` gives each rotation a deal of its own, so that nothing learnt of a deal
is worth carrying.
"""

from __future__ import annotations

import json
import os
import random
import re
import shlex
import shutil
import sqlite3
import sys
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from goatarena.cli import main
from goatarena.formats.config import GameEntry, TournamentConfig
from goatarena.formats.schedule import round_robin_schedule
from goatarena.games import find_game
from goatarena.referee.sandbox import probe
from tests.helpers import ROOT
from tests.test_sandbox_counters import matching
from tests.test_sandbox_trust import heard, play, readable_folder

FAULTS = ROOT / "tests" / "bots" / "hostile_faults.py"
MEMORY = ROOT / "tests" / "bots" / "hostile_memory.py"
ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="the runner is not root here")
SHARED = Path("/usr/local/share")
BITS = 64


@pytest.fixture
def shared_file():
    """A file of BITS + 1 pages under /usr/local/share, none of them cached."""
    if probe() is not None:
        pytest.skip(f"no sandbox here: {probe()}")
    if not os.access(SHARED, os.W_OK):
        pytest.skip(f"cannot write a shared file into {SHARED} here")
    path = SHARED / f"goatarena-test-{uuid.uuid4().hex[:12]}.bin"
    try:
        with open(path, "wb") as file:
            file.write(os.urandom((BITS + 1) * os.sysconf("SC_PAGESIZE")))
            file.flush()
            os.fsync(file.fileno())  # clean pages: eviction drops them
            os.posix_fadvise(file.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
        path.chmod(0o644)
        yield path
    finally:
        path.unlink(missing_ok=True)


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_one_page_per_bit_cannot_be_read_back_by_major_faults(tmp_path, shared_file, sandbox):
    folder = readable_folder(tmp_path / "bot")
    script = folder / "bot.py"
    shutil.copy(FAULTS, script)
    bits = "".join(random.choice("01") for _ in range(BITS))
    send = shlex.join([sys.executable, str(script), "send", str(shared_file), "1", bits])
    receive = shlex.join([sys.executable, str(script), "receive", str(shared_file), "1", "64"])
    honest = shlex.join([sys.executable, str(ROOT / "bots" / "python" / "random_bot.py"), "7"])
    outcome, (sent, _), _ = play(tmp_path, send, honest, "--sandbox", sandbox)
    assert "tried send" in sent and outcome["violations"] == [None, None], (sent, outcome)
    outcome, (log, _), _ = play(tmp_path, receive, honest, "--sandbox", sandbox)
    assert "tried receive" in log and outcome["violations"] == [None, None], (log, outcome)
    decoded = heard(log, "majflt")
    if sandbox == "none":  # the attack is real: every page a bit
        assert "advice: random" in sent, sent
        assert matching(bits, decoded) >= 0.9, (bits, decoded)
    else:
        assert "advice: refused" in sent and "advice: refused" in log, (sent, log)
        # The first fault read the pages around it: every later one found them cached.
        assert matching(bits, decoded) <= 0.75, (bits, decoded)


def schedule(fresh: bool) -> list:
    config = TournamentConfig(
        name="t",
        bots={"a": "x", "b": "y", "c": "z"},
        games=[GameEntry(name="goat-lords", players=3)],
        fresh_deals=fresh,
    )
    return round_robin_schedule(config, secret="s")


def test_with_fresh_deals_no_two_rotations_share_a_deal():
    rotated, fresh = schedule(False), schedule(True)
    assert [game.key for game in rotated] == [game.key for game in fresh]
    assert len({game.seed for game in rotated}) == 1  # one table: one deal, rotated
    assert len({game.seed for game in fresh}) == len(fresh) == 3
    base = TournamentConfig(name="t", bots={"a": "x"}, games=[GameEntry(name="goat-lords")])
    assert (
        base.fingerprint()
        != TournamentConfig(
            name="t", bots={"a": "x"}, games=[GameEntry(name="goat-lords")], fresh_deals=True
        ).fingerprint()
    )


def guesses_right(tmp_path: Path, fresh: bool) -> tuple[int, int]:
    """A Goat Lords tournament of the perfect-memory bot against a random one: how many of
    its guesses of an opponent's hand were right, of how many."""
    memory = readable_folder(tmp_path / "memory")
    memory.chmod(0o2777)  # every process of the bot writes there, each a uid of its own
    bot = f"{sys.executable} {MEMORY} {memory}"
    honest = f"{sys.executable} {ROOT / 'bots' / 'python' / 'random_bot.py'} 3"
    # Deals from the file alone (no secret): the same deals, so the same guesses, each run.
    lines = ['name = "memory"', "seed = 11", "deals = 6", "concurrency = 1", "secret_deals = false"]
    lines += [f"fresh_deals = {'true' if fresh else 'false'}"]
    lines += ["[time]", "move_ms = 2000", "[bots]", f"memory = {json.dumps(bot)}"]
    lines += [
        f"honest = {json.dumps(honest)}",
        "[paths.memory]",
        f"write = [{json.dumps(str(memory))}]",
    ]
    lines += ['[[games]]\nname = "goat-lords"\nplayers = 2']
    (tmp_path / "t.toml").write_text("\n".join(lines) + "\n")
    (tmp_path / "results").mkdir()
    db = tmp_path / "results" / "t.sqlite"
    result = CliRunner().invoke(main, ["run", "--quiet", str(tmp_path / "t.toml"), "--db", str(db)])
    assert result.exit_code == 0, result.output
    log = (tmp_path / "results" / "t-logs" / "memory.log").read_text()
    assert log.count("tried memory") == 12, log
    guesses = re.findall(r"^guess own=(\S+) opponent=(\S+)$", log, re.M)
    engine = find_game("goat-lords")
    dealt = set()
    with sqlite3.connect(db) as connection:
        for seed, players in connection.execute("SELECT seed, players FROM games"):
            state = engine.new_state(2, seed, {})
            hands = [",".join(sorted(state.observation(seat)["hand"])) for seat in (0, 1)]
            seat = json.loads(players).index("memory")
            dealt.add((hands[seat], hands[1 - seat]))
        violations = [
            json.loads(row[0])["violations"]
            for row in connection.execute("SELECT result FROM games")
        ]
    assert all(found == [None, None] for found in violations), violations
    return sum(guess in dealt for guess in guesses), len(guesses)


@ROOT_ONLY
@pytest.mark.slow
@pytest.mark.parametrize("fresh", [False, True])
def test_with_fresh_deals_even_a_perfect_memory_learns_no_hand(tmp_path, fresh):
    """A path given to write stands in for any memory between processes (the page
    cache's few bits among them): with rotated deals the second rotation's process knows
    its opponent's hand; with fresh deals there is no deal of an earlier process to find."""
    if probe() is not None:
        pytest.skip(f"no sandbox here: {probe()}")
    right, made = guesses_right(tmp_path, fresh)
    if fresh:
        assert right == 0, (right, made)
    else:
        # A deal's second rotation finds its first (unless seat 0's first move changed
        # the face-up card), and a card shared with other deals adds wrong guesses.
        assert right >= 3, (right, made)
