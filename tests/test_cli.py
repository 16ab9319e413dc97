"""The command line through click's CliRunner."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from goatarena.cli import main
from tests.helpers import RANDOM_BOT, misbehaving


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def test_games_lists_every_game_with_player_counts():
    result = invoke("games")
    assert result.exit_code == 0
    assert "mountain-goats" in result.output and "2-4" in result.output


@pytest.mark.parametrize("players", [2, 3, 4])
def test_play_prints_a_complete_json_result_and_repeats_it_for_the_seed(players):
    args = ["play", "mountain-goats", "--seed", "7", "--json", *["--bot", RANDOM_BOT] * players]
    first = invoke(*args)
    second = invoke(*args)
    assert first.exit_code == 0, first.output
    outcome = json.loads(first.output.strip().splitlines()[-1])
    again = json.loads(second.output.strip().splitlines()[-1])
    for key in ("game", "seed", "players", "scores", "ranks", "violations", "decisions"):
        assert outcome[key] == again[key]
    assert outcome["game"] == "mountain-goats" and outcome["seed"] == 7
    assert len(outcome["players"]) == players and outcome["violations"] == [None] * players
    assert "score" in first.output  # the readable log comes first


def test_play_records_a_violation_in_the_json_result():
    result = invoke(
        "play",
        "mountain-goats",
        "--json",
        "--quiet",
        "--move-ms",
        "200",
        "--bot",
        misbehaving("garbage", 1),
        "--bot",
        RANDOM_BOT,
    )
    assert result.exit_code == 0
    outcome = json.loads(result.output.strip().splitlines()[-1])
    assert outcome["violations"][0]["cause"] == "malformed"
    assert outcome["violations"][1] is None
    assert outcome["ranks"] == [2, 1]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "chess", "--bot", "a", "--bot", "b"], "unknown game 'chess'"),
        (["play", "mountain-goats", "--bot", "a"], "2 to 4 players, not 1"),
        (["play", "mountain-goats", "--bot", "/no/such", "--bot", "/no/such"], "cannot start"),
        (
            ["play", "mountain-goats", "--bot", misbehaving("no-hello"), "--bot", RANDOM_BOT],
            "did not start",
        ),
    ],
)
def test_bad_input_is_one_clear_line_and_a_non_zero_exit(args, message):
    result = invoke(*args)
    assert result.exit_code != 0
    assert message in result.output
    assert "Traceback" not in result.output
