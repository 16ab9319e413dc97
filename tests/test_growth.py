"""Growing a tournament and gauntlets: stored games are kept when the file only grows,
incomparable changes are refused naming each field, a gauntlet plays only its
challengers' tables."""

from __future__ import annotations

import json
import sqlite3

import msgspec
import pytest
from click.testing import CliRunner

from goatarena.cli import main
from goatarena.formats.config import GameEntry, TournamentConfig
from goatarena.formats.growth import incomparable_changes
from goatarena.formats.schedule import gauntlet_schedule, round_robin_schedule
from goatarena.formats.tournament_file import load_config
from tests.helpers import RANDOM_BOT
from tests.test_tournament import write_config

BASE = TournamentConfig(
    name="t",
    bots={"a": "x", "b": "y"},
    games=[GameEntry(name="mountain-goats")],
    deals=2,
)


def grown(**changes) -> TournamentConfig:
    return msgspec.structs.replace(BASE, **changes)


@pytest.mark.parametrize(
    "new",
    [
        grown(bots={"a": "x", "b": "y", "c": "z"}),
        grown(games=[*BASE.games, GameEntry(name="goat-lords")]),
        grown(deals=5),
        grown(concurrency=7),
        grown(format="gauntlet", bots={"a": "x", "b": "y", "c": "z"}, challengers=["c"]),
    ],
    ids=["bot", "game", "deals", "concurrency", "to-gauntlet"],
)
def test_growing_changes_nothing_stored_games_depend_on(new):
    assert incomparable_changes(BASE, new) == []


@pytest.mark.parametrize(
    ("new", "named"),
    [
        (grown(bots={"a": "x", "b": "y2"}), "bots.b: command 'y' -> 'y2'"),
        (grown(bots={"a": "x", "c": "y"}), "bots.b: removed"),
        (grown(deals=1), "deals: 2 -> 1"),
        (grown(seed=9), "seed: 0 -> 9"),
        (grown(memory_mb=64), "memory_mb: 1024 -> 64"),
        (grown(games=[GameEntry(name="mountain-goats", players=3)]), "games[0].players: 2 -> 3"),
        (
            grown(games=[GameEntry(name="mountain-goats", options={"rounds": 3})]),
            "games[0].options",
        ),
        (grown(format="swiss"), "format: 'round-robin' -> 'swiss'"),
    ],
)
def test_incomparable_changes_are_named(new, named):
    changes = incomparable_changes(BASE, new)
    assert any(named in change for change in changes), changes


def test_a_command_stored_relative_to_the_working_directory_is_still_the_same(tmp_path):
    (tmp_path / "bot.py").write_text("")
    old = grown(bots={"a": "python3 bot.py", "b": "y"})
    new = grown(bots={"a": f"python3 {tmp_path / 'bot.py'}", "b": "y"})
    assert incomparable_changes(old, new, workdir=tmp_path) == []
    assert incomparable_changes(old, new, workdir=tmp_path / "elsewhere") != []


def test_time_control_changes_name_the_field():
    from goatarena.referee.clock import TimeControl

    changes = incomparable_changes(BASE, grown(time=TimeControl(move_ms=50)))
    assert changes == ["time.move_ms: 1000 -> 50"]


def test_a_swiss_grows_only_by_rounds():
    swiss = grown(format="swiss", rounds=3)
    assert incomparable_changes(swiss, msgspec.structs.replace(swiss, rounds=5)) == []
    more_bots = msgspec.structs.replace(swiss, bots={"a": "x", "b": "y", "c": "z"})
    assert "a Swiss cannot take new bots" in " ".join(incomparable_changes(swiss, more_bots))
    fewer = msgspec.structs.replace(swiss, rounds=2)
    assert incomparable_changes(swiss, fewer) == ["rounds: 3 -> 2 (fewer)"]


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def rows(db) -> dict[str, float]:
    with sqlite3.connect(db) as connection:
        return dict(connection.execute("SELECT key, finished_at FROM games").fetchall())


def test_adding_a_bot_to_a_finished_tournament_plays_only_its_games(tmp_path):
    db = tmp_path / "t.sqlite"
    two = {"alpha": RANDOM_BOT, "beta": RANDOM_BOT}
    first = write_config(tmp_path / "t.toml", bots=two, extra="deals = 2")
    assert run("run", str(first), "--db", str(db), "--quiet").exit_code == 0
    before = rows(db)
    assert len(before) == 4  # one table, two deals, two rotations
    three = {**two, "gamma": RANDOM_BOT}
    write_config(tmp_path / "t.toml", bots=three, extra="deals = 2")
    ran = run("run", str(first), "--db", str(db))
    assert ran.exit_code == 0, ran.output
    assert "12 games" in ran.output and "resuming after 4 stored" in ran.output
    after = rows(db)
    assert len(after) == 12
    # The stored games are the same rows, untouched; every new one seats gamma.
    assert {key: after[key] for key in before} == before
    assert all("gamma" in key for key in set(after) - set(before))
    # And more deals: only the new deal's games are played.
    write_config(tmp_path / "t.toml", bots=three, extra="deals = 3")
    assert run("run", str(first), "--db", str(db), "--quiet").exit_code == 0
    assert len(rows(db)) == 18 and all(after[key] == rows(db)[key] for key in after)


def test_an_incomparable_change_is_refused_before_anything_is_played(tmp_path):
    db = tmp_path / "t.sqlite"
    config = write_config(tmp_path / "t.toml")
    assert run("run", str(config), "--db", str(db), "--quiet").exit_code == 0
    before = rows(db)
    changed = dict(alpha=RANDOM_BOT + " 3", beta=RANDOM_BOT, gamma=RANDOM_BOT)
    write_config(tmp_path / "t.toml", bots=changed, extra="memory_mb = 512")
    refused = run("run", str(config), "--db", str(db), "--quiet")
    assert refused.exit_code == 2
    assert "bots.alpha: command" in refused.output and "memory_mb: 1024 -> 512" in refused.output
    assert "--fresh" in refused.output and "new name" in refused.output
    assert "resuming" not in refused.output
    assert rows(db) == before
    # --fresh puts the old database aside and starts again.
    fresh = run("run", str(config), "--db", str(db), "--quiet", "--fresh")
    assert fresh.exit_code == 0, fresh.output
    assert len(rows(db)) == 6 and not set(rows(db).values()) & set(before.values())
    (aside,) = tmp_path.glob("t.sqlite.*.old")
    assert rows(aside) == before


def test_gauntlet_schedule_is_the_round_robin_tables_of_the_challengers():
    config = grown(
        format="gauntlet",
        bots={"a": "x", "b": "y", "c": "z", "new": "n"},
        challengers=["new"],
        deals=3,
    )
    games = gauntlet_schedule(config)
    everything = {game.key: game for game in round_robin_schedule(config)}
    assert len(games) == 3 * 3 * 2  # three opponents, three deals, two seatings
    assert all("new" in game.seating and everything[game.key] == game for game in games)
    deals = [int(game.key.rsplit("/", 2)[1][1:]) for game in games]
    assert deals == sorted(deals)


def test_a_gauntlet_against_a_stored_pool_plays_only_the_challengers_tables(tmp_path):
    db = tmp_path / "t.sqlite"
    config = write_config(tmp_path / "t.toml")  # alpha, beta, gamma: 6 games
    assert run("run", str(config), "--db", str(db), "--quiet").exit_code == 0
    pool = rows(db)
    bots = {"alpha": RANDOM_BOT, "beta": RANDOM_BOT, "gamma": RANDOM_BOT, "new": RANDOM_BOT}
    write_config(tmp_path / "t.toml", bots=bots, extra='format = "gauntlet"\nchallengers = ["new"]')
    ran = run("run", str(config), "--db", str(db), "--quiet")
    assert ran.exit_code == 0, ran.output
    after = rows(db)
    assert len(after) == 12 and all(after[key] == pool[key] for key in pool)
    assert all("new" in key for key in set(after) - set(pool))
    data = json.loads(run("standings", "--db", str(db), "--format", "json").output)
    by_bot = {row["bot"]: row for row in data["standings"]["overall"]}
    # The challenger is rated against the pool, whose own games count too.
    assert by_bot["new"]["games"] == 6 and by_bot["alpha"]["games"] == 6


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ('challengers = ["alpha"]', "challengers: only a gauntlet"),
        ('format = "gauntlet"', "challengers: a gauntlet needs at least one"),
        ('format = "gauntlet"\nchallengers = ["zed"]', "'zed' is not one of the bots"),
        (
            'format = "gauntlet"\nchallengers = ["alpha"]\n[sprt]\nelo1 = 5',
            "sprt: tests one challenger against one baseline",
        ),
        ("rounds = 3", "rounds: only a Swiss tournament has rounds"),
        ("[sprt]\nelo1 = 5", "sprt: an SPRT runs in a gauntlet"),
    ],
)
def test_gauntlet_and_round_settings_are_checked(tmp_path, extra, message):
    path = write_config(tmp_path / "t.toml")
    text = path.read_text()
    # Tables such as [sprt] go after the top-level keys and before [time].
    path.write_text(text.replace("[time]", extra + "\n[time]", 1))
    result = run("run", str(path), "--db", str(tmp_path / "t.sqlite"))
    assert result.exit_code == 2 and message in result.output, result.output
    assert not (tmp_path / "t.sqlite").exists()


def test_sprt_settings_are_checked(tmp_path):
    path = write_config(
        tmp_path / "t.toml",
        bots={"alpha": RANDOM_BOT, "beta": RANDOM_BOT},
        extra='format = "gauntlet"\nchallengers = ["alpha"]\n[sprt]\nelo0 = 5\nelo1 = 5',
    )
    with pytest.raises(Exception, match="elo0 must be less than elo1"):
        load_config(path)


def test_a_swiss_given_more_rounds_plays_only_the_new_rounds(tmp_path):
    bots = {f"bot{i}": RANDOM_BOT for i in range(4)}
    config = write_config(tmp_path / "s.toml", bots=bots, extra='format = "swiss"\nrounds = 2')
    db = tmp_path / "s.sqlite"
    assert run("run", str(config), "--db", str(db), "--quiet").exit_code == 0
    before = rows(db)
    assert len(before) == 4  # two tables a round
    write_config(tmp_path / "s.toml", bots=bots, extra='format = "swiss"\nrounds = 3')
    ran = run("run", str(config), "--db", str(db), "--quiet")
    assert ran.exit_code == 0, ran.output
    after = rows(db)
    assert len(after) == 6 and all(after[key] == before[key] for key in before)
    assert all("/s3/" in key for key in set(after) - set(before))


def test_a_refusal_offers_a_new_bot_name_only_when_a_command_changed(tmp_path):
    db = tmp_path / "t.sqlite"
    config = write_config(tmp_path / "t.toml")
    assert run("run", str(config), "--db", str(db), "--quiet").exit_code == 0
    write_config(tmp_path / "t.toml", extra="memory_mb = 512")
    refused = run("run", str(config), "--db", str(db), "--quiet")
    assert refused.exit_code == 2 and "memory_mb: 1024 -> 512" in refused.output
    assert "--fresh" in refused.output and "new name" not in refused.output
