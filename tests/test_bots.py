"""The example bots in bots/, one per language, play every game together under the referee."""

from __future__ import annotations

import itertools
import json

import pytest
from click.testing import CliRunner

from goatarena import protocol
from goatarena.cli import main
from goatarena.games import GAMES
from tests.example_bots import HAVE_NODE, JS_BOT, PYTHON_BOT, SHELL_BOT

LANGUAGES = [PYTHON_BOT, JS_BOT, SHELL_BOT]
NAMES = ["random", "random-js", "first-sh"]


def play(name: str, players: int, seed: int) -> dict:
    bots = list(itertools.islice(itertools.cycle(LANGUAGES), players))
    args = ["play", name, "--seed", str(seed), "--json", "--quiet"]
    result = CliRunner().invoke(main, [*args, *(arg for bot in bots for arg in ("--bot", bot))])
    assert result.exit_code == 0, result.output
    return json.loads(result.output.strip().splitlines()[-1])


@pytest.mark.skipif(not HAVE_NODE, reason="node is not installed")
@pytest.mark.parametrize("name", list(GAMES))
def test_python_javascript_and_shell_bots_play_every_game_without_violations(name):
    info = GAMES[name]
    players = max(info.min_players, min(len(LANGUAGES), info.max_players))
    outcome = play(name, players, seed=21)
    assert outcome["violations"] == [None] * players
    assert outcome["players"][:3] == NAMES[:players]
    state = info.new_state(players, 21)
    javascript_indexes = []
    for action in outcome["decisions"]:
        seat = state.to_act
        if seat % len(LANGUAGES) == 2:  # the shell bot always takes the first action
            assert action == state.legal_actions()[0]
        if seat % len(LANGUAGES) == 1:
            javascript_indexes.append(state.legal_actions().index(action))
        state.apply(action)
    assert state.is_over and state.result().ranks == outcome["ranks"]
    assert len(set(javascript_indexes)) > 1  # it does choose at random
    # Every bot is seeded from the game: the same seed replays the same game.
    assert play(name, players, seed=21)["decisions"] == outcome["decisions"]


@pytest.mark.parametrize(
    "message",
    [
        protocol.Hello(),
        protocol.Start(game="g", seat=0, players=["a"], time=protocol.TimeInfo(5)),
        protocol.Decide(decision=0, observation={"type": "x"}, actions=[{"type": 1}], time_ms=5),
        protocol.End(scores=[1.0], ranks=[1]),
        protocol.Quit(),
    ],
    ids=lambda message: type(message).__name__,
)
def test_the_referee_writes_type_first_without_spaces_as_the_shell_bot_relies_on(message):
    tag = type(message).__struct_config__.tag
    line = protocol.encode(message)
    assert line.startswith(b'{"type":"%s"' % tag.encode())
    assert b"\n" not in line[:-1] and b": " not in line and b", " not in line
