"""``play --watch``: the board after every decision of a live game."""

from __future__ import annotations

import json

from tests.test_cli import RANDOM_BOT, invoke


def test_watch_draws_the_start_and_a_board_after_every_decision():
    result = invoke(
        "play", "goat-lords", "--seed", "3", "--watch", "--delay", "0", "--json",
        "--bot", RANDOM_BOT, "--bot", RANDOM_BOT,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    outcome = json.loads(result.output.strip().splitlines()[-1])
    boards = result.output.count("Goat Lords  round")
    assert boards == len(outcome["decisions"]) + 1
    assert result.output.startswith("Goat Lords (Simple Version), seed 3")
    for number in (0, len(outcome["decisions"]) - 1):
        assert f"> [{number}] seat " in result.output
    assert "game over" in result.output and "\x1b" not in result.output
