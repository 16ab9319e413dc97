"""A running ladder: bots added, updated and retired while it runs, suspension, resume,
readers from another process, and ``ladder why``."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
import trio
from click.testing import CliRunner

from goatarena.cli import main
from goatarena.formats.ladder.deals import parse_deal
from goatarena.formats.ladder.edit import add_bot, retire_bot, update_bot
from goatarena.formats.tournament_file import load_config
from goatarena.running.runner import Runner
from goatarena.store.opening import open_store
from goatarena.store.standings import retired_bots
from tests.helpers import RANDOM_BOT, ROOT, python_bot

pytestmark = pytest.mark.slow


def write_ladder(tmp_path: Path, bots: dict[str, str], settings: str = "") -> Path:
    lines = [f"{json.dumps(name)} = {json.dumps(command)}" for name, command in bots.items()]
    path = tmp_path / "lad.toml"
    path.write_text(
        'name = "lad"\nformat = "ladder"\nseed = 5\nsandbox = "none"\nconcurrency = 2\n'
        "secret_deals = false\n\n[bots]\n" + "\n".join(lines) + "\n\n"
        f"[ladder]\npoll_s = 0.2\n{settings}\n\n"
        '[[games]]\nname = "mountain-goats"\nplayers = 2\n'
    )
    return path


def games_of(runner: Runner, name: str) -> int:
    assert runner.ladder is not None
    return runner.ladder.matchmakers[0].ratings.games.get(name, 0)


async def until(condition, what: str, timeout_s: float = 60.0) -> None:
    with trio.move_on_after(timeout_s):
        while not condition():
            await trio.sleep(0.05)
        return
    raise AssertionError(f"timed out waiting until {what}")


def run_with(path: Path, db: Path, script) -> Runner:
    """Run the ladder in ``path`` while ``script(runner)`` changes it; then stop it."""
    config = load_config(path)
    store = open_store(db)
    store.lock_for_run()
    runner = Runner(config, store)
    runner.source = path
    runner.claim()

    async def main_task() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(runner.run)
            await until(lambda: runner.ladder is not None, "the ladder starts")
            await script(runner)
            nursery.cancel_scope.cancel()

    try:
        trio.run(main_task)
    finally:
        store.close()
    return runner


def test_bots_added_updated_and_retired_while_it_runs_join_and_leave_the_table(tmp_path):
    path = write_ladder(tmp_path, {"a": RANDOM_BOT, "b": RANDOM_BOT})
    db = tmp_path / "lad.sqlite"
    seen: dict[str, object] = {}

    async def script(runner: Runner) -> None:
        ladder = runner.ladder
        assert ladder is not None
        await until(lambda: games_of(runner, "a") >= 4, "a and b play")
        add_bot(path, "c", RANDOM_BOT)
        await until(lambda: games_of(runner, "c") >= 4, "the newcomer c plays")
        update_bot(path, "a", RANDOM_BOT)
        await until(lambda: games_of(runner, "a@2") >= 4, "a@2 plays")
        assert "a" not in ladder.matchmakers[0].active
        retire_bot(path, "b")
        await until(lambda: "b" not in ladder.matchmakers[0].active, "b leaves")
        pending = ladder.matchmakers[0].pending
        await until(lambda: pending["a"] == pending["b"] == 0, "the deals in flight end")
        b_games = games_of(runner, "b")
        a_games = games_of(runner, "a")
        c_games = games_of(runner, "c")
        await until(lambda: games_of(runner, "c") >= c_games + 4, "more games of the others")
        assert games_of(runner, "b") == b_games and games_of(runner, "a") == a_games
        seen["active"] = list(ladder.matchmakers[0].active)

    run_with(path, db, script)
    assert seen["active"] == ["a@2", "c"]
    store = open_store(db, create=False)
    try:
        assert retired_bots(store) == ["a", "b"]
        stored = list(store.games())
        choices = store.ladder_choices()
    finally:
        store.close()
    players = Counter(name for game in stored for name in game.result.players)
    assert {"a", "b", "c", "a@2"} <= set(players)
    for game in stored:  # every game was chosen by the rule, and says why
        parsed = parse_deal(game.key)
        assert parsed is not None
        assert game.key.rsplit("/", 1)[0] in choices
    live = CliRunner().invoke(main, ["standings", "--db", str(db)])
    every = CliRunner().invoke(main, ["standings", "--db", str(db), "--all"])
    assert live.exit_code == 0 and every.exit_code == 0
    assert "a@2" in live.output and " b " not in live.output.split("retired")[0]
    assert "retired: a, b" in live.output and "--all shows them" in live.output
    assert " b " in every.output
    why = CliRunner().invoke(main, ["ladder", "why", "--db", str(db), stored[-1].key])
    assert why.exit_code == 0 and "chosen by the" in why.output and "rule" in why.output


FLAKY = """
import os, sys
from goatarena.sdk import Request, SeededBot, run

class Flaky(SeededBot):
    name = "flaky"
    def choose(self, request: Request) -> int:
        if os.path.exists(MARKER):
            return request.action_count + 7
        return self.rng.randrange(request.action_count)

run(Flaky(None))
"""


def test_a_version_whose_games_break_is_suspended_with_its_reason_until_updated(tmp_path):
    marker = tmp_path / "now-misbehave"
    flaky = python_bot(f"MARKER = {str(marker)!r}\n" + FLAKY)
    path = write_ladder(
        tmp_path,
        {"a": RANDOM_BOT, "b": RANDOM_BOT, "flaky": flaky},
        "suspend_games = 20\nsuspend_share = 0.2",
    )
    db = tmp_path / "lad.sqlite"

    async def script(runner: Runner) -> None:
        ladder = runner.ladder
        assert ladder is not None
        await until(lambda: games_of(runner, "flaky") >= 4, "flaky passes validation and plays")
        marker.touch()
        await until(lambda: "flaky" in ladder.put_out, "flaky is suspended", 120)
        assert "flaky" not in ladder.matchmakers[0].active
        update_bot(path, "flaky", RANDOM_BOT)
        await until(lambda: games_of(runner, "flaky@2") >= 2, "its new version plays")

    run_with(path, db, script)
    store = open_store(db, create=False)
    try:
        reason = store.disqualified()["flaky"]
    finally:
        store.close()
    assert reason.startswith("suspended: ") and "of its last" in reason


def test_a_newcomer_that_fails_its_validation_never_plays_anyone(tmp_path):
    broken = python_bot("import sys; sys.exit(3)")
    path = write_ladder(tmp_path, {"a": RANDOM_BOT, "b": RANDOM_BOT})
    db = tmp_path / "lad.sqlite"

    async def script(runner: Runner) -> None:
        ladder = runner.ladder
        assert ladder is not None
        await until(lambda: games_of(runner, "a") >= 2, "a and b play")
        add_bot(path, "broken", broken)
        await until(lambda: "broken" in ladder.put_out, "broken is suspended")

    runner = run_with(path, db, script)
    assert runner.ladder is not None
    assert "did not pass its validation" in runner.ladder.put_out["broken"]
    assert games_of(runner, "broken") == 0


def goatarena(*args: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "goatarena", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        start_new_session=True,
    )


def stored_count(db: Path) -> int:
    if not db.exists():
        return 0
    store = open_store(db, create=False)
    try:
        return store.count()
    finally:
        store.close()


def test_a_ladder_killed_resumes_with_nothing_lost_or_stored_twice(tmp_path):
    path = write_ladder(tmp_path, {"a": RANDOM_BOT, "b": RANDOM_BOT, "c": RANDOM_BOT})
    db = tmp_path / "results" / "lad.sqlite"
    run = goatarena("run", str(path), "--quiet", cwd=tmp_path)
    deadline = time.monotonic() + 90
    while stored_count(db) < 6 and time.monotonic() < deadline:
        # Readers from another process while it runs: never blocked, never blocking.
        reader = subprocess.run(
            [sys.executable, "-m", "goatarena", "standings", "--db", str(db)],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        assert "Traceback" not in reader.stderr
        time.sleep(0.2)
    os.killpg(run.pid, signal.SIGKILL)
    run.communicate()
    before = stored_count(db)
    assert before >= 6
    store = open_store(db, create=False)
    kept = {game.key for game in store.games()}
    store.close()
    path.write_text(
        path.read_text().replace("poll_s = 0.2", f"poll_s = 0.2\nstop_games = {before}")
    )
    again = goatarena("run", str(path), "--quiet", cwd=tmp_path)
    out, err = again.communicate(timeout=180)
    assert again.returncode == 0, err
    assert "stopped: every active bot has" in err
    store = open_store(db, create=False)
    try:
        games = list(store.games())
    finally:
        store.close()
    keys = [game.key for game in games]
    assert len(keys) == len(set(keys)) and kept <= set(keys)
    deals = Counter(key.rsplit("/", 1)[0] for key in keys)
    assert all(count == 2 for count in deals.values()), deals  # no deal left cut short
    report = subprocess.run(
        [
            sys.executable,
            "-m",
            "goatarena",
            "report",
            "--db",
            str(db),
            "-o",
            str(tmp_path / "r.html"),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert report.returncode == 0, report.stderr
