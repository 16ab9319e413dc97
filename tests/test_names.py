"""Names: bot and tournament names are checked up front, and game keys are unambiguous."""

from __future__ import annotations

import json

import msgspec
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from goatarena.cli import main
from goatarena.errors import ConfigError
from goatarena.formats.config import TournamentConfig
from goatarena.formats.schedule import round_robin_schedule
from goatarena.formats.tournament_file import BOT_NAME, check_config
from tests.helpers import RANDOM_BOT


def config_with(bots: list[str], name: str = "t", players: int = 3) -> TournamentConfig:
    return msgspec.convert(
        {
            "name": name,
            "bots": {bot: RANDOM_BOT for bot in bots},
            "games": [{"name": "mountain-goats", "players": players}],
        },
        TournamentConfig,
    )


@pytest.mark.parametrize(
    "bad",
    ["a+b", "a/b", "evil\nname", "with space", "", "-dash", ".hidden", "x" * 65, "é", "a\x1b[2J"],
)
def test_a_bot_name_outside_the_safe_set_is_refused_in_one_line(tmp_path, bad):
    path = tmp_path / "t.toml"
    bots = {bad: RANDOM_BOT, "other": RANDOM_BOT}
    path.write_text(
        'name = "t"\n[bots]\n'
        + "".join(f"{json.dumps(name)} = {json.dumps(command)}\n" for name, command in bots.items())
        + '[[games]]\nname = "mountain-goats"\n'
    )
    db = tmp_path / "t.sqlite"
    result = CliRunner().invoke(main, ["run", str(path), "--db", str(db)])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "is not allowed" in lines[0]
    assert not db.exists()  # refused before anything is written


def test_a_long_tournament_name_is_refused_in_one_line(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text(
        f'name = "{"n" * 300}"\n[bots]\na = "x"\nb = "y"\n[[games]]\nname = "mountain-goats"\n'
    )
    result = CliRunner().invoke(main, ["run", str(path)], catch_exceptions=False)
    assert result.exit_code == 2
    assert result.output.strip().endswith("name: at most 64 characters, not 300")
    assert not (tmp_path / "results").exists()


def test_allowed_names_are_accepted():
    check_config(config_with(["random", "mcts-2.1", "My_Bot", "9lives", "x" * 64]))


_ALLOWED = st.from_regex(BOT_NAME, fullmatch=True)


@settings(max_examples=60, deadline=None)
@given(names=st.lists(_ALLOWED, min_size=3, max_size=6, unique=True))
def test_game_keys_are_unique_and_name_their_table_for_every_allowed_name_set(names):
    """The separators of a key (``/`` between parts, ``+`` between bots) are outside the
    allowed set, so every key splits back into exactly the table that plays it."""
    config = config_with(names)
    check_config(config)
    games = round_robin_schedule(config)
    assert len({game.key for game in games}) == len(games)
    for game in games:
        label, table, deal, rotation = game.key.split("/")
        assert table.split("+") == sorted(game.seating, key=names.index)
        assert label == "0.mountain-goats.3p" and deal.startswith("d") and rotation[0] == "r"


def test_names_with_separators_would_collide_which_is_why_they_are_refused():
    """The collision the safe set prevents: ``a+b`` with ``c`` and ``a`` with ``b+c``."""
    with pytest.raises(ConfigError):
        check_config(config_with(["a+b", "c", "a", "b+c"], players=2))
    games = round_robin_schedule(config_with(["a+b", "c", "a", "b+c"], players=2))
    tables = {game.key: set() for game in games}
    for game in games:
        tables[game.key].add(frozenset(game.seating))
    assert tables["0.mountain-goats.2p/a+b+c/d0/r0"] == {
        frozenset({"a+b", "c"}),
        frozenset({"a", "b+c"}),
    }
