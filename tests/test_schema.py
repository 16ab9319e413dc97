"""The JSON Schema (schema/*.json) against the engines and a played game.

Every observation the seat to act is sent and every action offered in 200 random games
per game and player count is validated with the jsonschema library (made fast by
:mod:`tests.schema_checks`, which checks as much); so is every line of games played
through the referee with a real bot process, as the referee writes them and as the bot
answers. The schema files kept in the repository must be what the code builds.
"""

from __future__ import annotations

import copy
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import msgspec
import pytest
import trio
from click.testing import CliRunner

from goatarena import protocol
from goatarena.cli import main
from goatarena.games import GAMES
from goatarena.referee import play_match
from goatarena.schema import SHAPES, game_schema, messages, protocol_schema, render, schema_files
from tests.helpers import ROOT
from tests.schema_checks import MemoValidator, ObjectValidator, Validator, closed, definition

GAMES_PER_COUNT = 200
QUICK_GAMES = 20
"""The first games of each count run in every test run; the rest are marked slow."""
SCHEMA_FOLDER = ROOT / "schema"


def test_the_schema_files_are_what_the_code_builds():
    for name, schema in schema_files().items():
        Validator.check_schema(schema)
        kept = SCHEMA_FOLDER / name
        assert kept.read_text(encoding="utf-8") == render(schema), (
            f"schema/{name} is stale: run 'goatarena schema --write schema'"
        )
    assert sorted(path.name for path in SCHEMA_FOLDER.glob("*.json")) == sorted(schema_files())


def test_every_game_has_a_schema():
    assert SHAPES.keys() == GAMES.keys()


def test_the_schema_messages_have_the_protocol_fields():
    """The schema's messages mirror goatarena.protocol's, field for field."""
    pairs = [
        (messages.RefereeHello, protocol.Hello),
        (messages.Start, protocol.Start),
        (messages.Decide, protocol.Decide),
        (messages.End, protocol.End),
        (messages.Quit, protocol.Quit),
        (messages.BotHello, protocol.BotHello),
        (messages.Action, protocol.Action),
        (messages.TimeControl, protocol.TimeInfo),
        (messages.Event, protocol.Event),
    ]
    for described, real in pairs:
        assert described.__struct_fields__ == real.__struct_fields__, described.__name__
        assert described.__struct_config__.tag == real.__struct_config__.tag


TABLES = [(game, players) for game, info in GAMES.items() for players in info.player_counts]
SEEDS = [
    pytest.param(range(QUICK_GAMES), id="first"),
    pytest.param(range(QUICK_GAMES, GAMES_PER_COUNT), id="rest", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("seeds", SEEDS)
@pytest.mark.parametrize(("game", "players"), TABLES)
def test_every_observation_and_action_of_random_games_fits_the_schema(game, players, seeds):
    shapes = SHAPES[game]
    schema = game_schema(game)
    observation = ObjectValidator(definition(schema, f"{shapes.prefix}Observation"))
    action = MemoValidator(definition(schema, shapes.action_name))
    info = GAMES[game]
    for seed in seeds:
        state = info.new_state(players, seed)
        rng = random.Random(seed)
        while (seat := state.to_act) is not None:
            observation.validate(state.observation(seat))
            legal = state.legal_actions()
            for offered in legal:
                action.validate(offered)
            chosen = legal[rng.randrange(len(legal))]
            for other in range(players):
                action.validate(state.public_action(other, chosen))
            state.apply(chosen)


def test_the_validation_catches_a_wrong_observation_and_action():
    schema = game_schema("goat-lords")
    observation = ObjectValidator(definition(schema, "GoatLordsObservation"))
    action = MemoValidator(definition(schema, "GoatLordsAction"))
    state = GAMES["goat-lords"].new_state(3, 1)
    good = state.observation(0)
    observation.validate(good)
    for change in (
        lambda seen: seen.update(hand=[*seen["hand"], "unicorn"]),
        lambda seen: seen.update(turn=-1),
        lambda seen: seen.update(extra=1),
        lambda seen: seen.pop("duel"),
        lambda seen: seen["herds"][0].append({"kind": None}),
    ):
        bad = copy.deepcopy(good)
        change(bad)
        with pytest.raises(jsonschema.ValidationError):
            observation.validate(bad)
    action.validate({"duel": 1, "play": "lord"})
    for wrong in ({"duel": 1}, {"birth": "ninja", "play": "ninja"}, "pass", {"birth": 3}):
        with pytest.raises(jsonschema.ValidationError):
            action.validate(wrong)


class RecordingBot:
    """A real bot process, spoken to directly, that keeps every line either side wrote."""

    def __init__(self, command: list[str], name: str) -> None:
        self.name = name
        self.lines: list[tuple[str, bytes]] = []
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.send_line(protocol.encode(protocol.Hello()))
        self.receive_line()

    @property
    def broken(self) -> None:
        return None

    def mark_broken(self, violation: Any) -> None:
        raise AssertionError(f"{self.name} broke the protocol: {violation}")

    def send_line(self, line: bytes) -> None:
        assert self.process.stdin is not None
        self.lines.append(("referee", line.rstrip(b"\n")))
        self.process.stdin.write(line)
        self.process.stdin.flush()

    def receive_line(self) -> bytes:
        assert self.process.stdout is not None
        line = self.process.stdout.readline().rstrip(b"\n")
        self.lines.append(("bot", line))
        return line

    async def send_bytes(self, line: bytes) -> None:
        self.send_line(line)

    async def receive(self) -> protocol.BotHello | protocol.Action:
        return protocol.decode_reply(self.receive_line())

    def close(self) -> None:
        self.send_line(protocol.encode(protocol.Quit()))
        assert self.process.wait(timeout=10) == 0


def played_lines(game: str, players: int, seed: int) -> list[tuple[str, bytes]]:
    """Every line of one game between random bots, by who wrote it, seat 0's first: the
    Python bot, and the JavaScript one in the other seats where node is installed."""
    python = [sys.executable, str(ROOT / "bots" / "python" / "random_bot.py")]
    node = shutil.which("node")
    other = [node, str(ROOT / "bots" / "javascript" / "random_bot.js")] if node else python
    bots = [RecordingBot(other if seat else python, f"random{seat}") for seat in range(players)]
    try:
        trio.run(lambda: play_match(GAMES[game], bots, seed=seed))
    finally:
        for bot in bots:
            bot.close()
    return [line for bot in bots for line in bot.lines]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_line_of_a_played_game_fits_the_schema(game):
    whole = closed(protocol_schema())
    referee = Validator({**whole, "$ref": "#/$defs/RefereeMessage"})
    bot = Validator({**whole, "$ref": "#/$defs/BotMessage"})
    decide = Validator(closed(game_schema(game)))
    seen: set[str] = set()
    for side, line in played_lines(game, 2, seed=7):
        message = msgspec.json.decode(line)
        seen.add(f"{side}:{message['type']}")
        (referee if side == "referee" else bot).validate(message)
        if side == "referee" and message["type"] == "decide":
            decide.validate(message)
    assert seen == {
        "referee:hello",
        "referee:start",
        "referee:decide",
        "referee:end",
        "referee:quit",
        "bot:hello",
        "bot:action",
    }


def test_a_seed_above_two_to_the_63_fits_and_a_negative_one_does_not():
    start = Validator(closed(protocol_schema()) | {"$ref": "#/$defs/Start"})
    line = protocol.Start(
        game="mountain-goats", seat=0, players=["a", "b"], time=protocol.TimeInfo(1000), seed=0
    )
    message = msgspec.to_builtins(line)
    start.validate({**message, "seed": 2**64 - 1})
    for wrong in (-1, 2**64):
        with pytest.raises(jsonschema.ValidationError):
            start.validate({**message, "seed": wrong})


def test_the_schema_command_prints_the_kept_files():
    for argument, name in [([], "protocol.json"), (["herr-der-ziegen"], "herr-der-ziegen.json")]:
        done = CliRunner().invoke(main, ["schema", *argument])
        assert done.exit_code == 0, done.output
        assert done.stdout == Path(SCHEMA_FOLDER / name).read_text(encoding="utf-8")
