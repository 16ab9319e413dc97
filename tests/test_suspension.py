"""A bot that crashes in every game is suspended, not restarted for ever; a bot that
burns more CPU than its start-up time before its hello fails to start."""

from __future__ import annotations

import trio
from click.testing import CliRunner

from goatarena.cli import main
from goatarena.referee.confinement import Confinement
from goatarena.referee.lineup import open_lineup
from goatarena.store import open_store
from tests.helpers import RANDOM_BOT, misbehaving
from tests.test_tournament import write_config


def test_a_kamikaze_bot_is_suspended_after_its_crash_limit_and_the_others_lose_nothing(
    tmp_path,
):
    """It burns CPU before its hello and dies at its first decision, in every game."""
    bots = {"alpha": RANDOM_BOT, "beta": RANDOM_BOT, "kamikaze": misbehaving("kamikaze", 0, 200)}
    config = write_config(tmp_path / "t.toml", bots=bots, extra="deals = 6\ncrash_limit = 2")
    db = tmp_path / "t.sqlite"
    result = CliRunner().invoke(main, ["run", str(config), "--db", str(db), "--quiet"])
    assert result.exit_code == 0, result.output
    said = (
        "goatarena: bot 'kamikaze' was put out of the tournament: suspended after crashing"
        " in 2 games in a row (last: crash: exited with code 3: giving up)"
    )
    assert said in result.output
    store = open_store(db)
    try:
        assert store.disqualified()["kamikaze"].startswith("suspended after crashing in 2 games")
        games = [game.result for game in store.games()]
    finally:
        store.close()
    started = 0
    for game in games:
        for name, violations in zip(game.players, game.all_violations, strict=True):
            if name != "kamikaze":
                assert violations == [], (name, violations)
            elif violations and "disqualified" not in violations[0].detail:
                started += 1  # a game its process played (and crashed in)
    # Two in a row, and at most the games already handed out beside them: two playing
    # and one queued at each of the two referee processes, less the one that crashed.
    assert 2 <= started <= 5
    assert len(games) == 3 * 6 * 2  # every game is still played and stored


def test_a_crash_limit_of_zero_never_suspends(tmp_path):
    bots = {"alpha": RANDOM_BOT, "kamikaze": misbehaving("kamikaze", 0, 10)}
    config = write_config(tmp_path / "t.toml", bots=bots, extra="deals = 2\ncrash_limit = 0")
    db = tmp_path / "t.sqlite"
    result = CliRunner().invoke(main, ["run", str(config), "--db", str(db), "--quiet"])
    assert result.exit_code == 0, result.output
    assert "put out" not in result.output
    store = open_store(db)
    try:
        assert store.disqualified() == {}
    finally:
        store.close()


def test_a_negative_crash_limit_is_refused_in_one_line(tmp_path):
    config = write_config(tmp_path / "t.toml", extra="crash_limit = -1")
    result = CliRunner().invoke(main, ["run", str(config), "--db", str(tmp_path / "t.sqlite")])
    assert result.exit_code == 2
    assert "crash_limit: must be at least 0, not -1" in result.output


def test_cpu_used_before_the_hello_beyond_the_start_up_time_fails_the_start(monkeypatch):
    """Where the bot's cgroup counts its CPU: many busy threads may say hello in time yet
    take more CPU than the start-up allows."""
    monkeypatch.setattr(Confinement, "cpu_ms", lambda self: 2500.0)

    async def main() -> object:
        async with open_lineup([RANDOM_BOT], startup_s=2) as bots:
            return bots[0].broken

    broken = trio.run(main)
    assert broken is not None and str(broken) == (
        "timeout: used 2500 ms of CPU before its hello, more than the 2000 ms it has to start"
    )
