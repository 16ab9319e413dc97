"""``play --watch``: the board after every decision of a live game."""

from __future__ import annotations

import io
import json

import trio
import trio.testing

from goatarena.games import find_game
from goatarena.referee import TimeControl, play_match
from goatarena.render.live import CLEAR, LiveBoard
from tests.test_cli import RANDOM_BOT, invoke
from tests.test_referee import ScriptedConnection


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
    moves = [line for line in result.output.splitlines() if line.startswith("> [")]
    assert len(moves) == len(outcome["decisions"])
    # in words, never the raw action: "births two Goat Ninjas", "duels seat 1's top pile"
    assert all("{" not in line for line in moves), moves
    assert any(" births " in line for line in moves)
    assert "game over" in result.output and "\x1b" not in result.output


def test_a_slow_watcher_costs_no_bot_any_time_and_sees_every_decision():

    info = find_game("mountain-goats")
    seen = []

    class Watcher(LiveBoard):
        async def __call__(self, state, seat, action):
            seen.append((len(state.history), seat, action))
            await super().__call__(state, seat, action)

    stream = io.StringIO()
    # Each board is followed by a 5 s pause, far above the 100 ms per move.
    watcher = Watcher(info.name, ["a", "b"], stream, delay_s=5.0)
    bots = [ScriptedConnection("a", []), ScriptedConnection("b", [])]
    control = TimeControl(move_ms=100, bank_ms=0, margin_ms=0)

    async def main():
        return await play_match(info, bots, seed=4, time_control=control, watch=watcher)

    result = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert result.violations == [None, None]
    assert [number for number, _, _ in seen] == list(range(1, len(result.decisions) + 1))
    assert [action for _, _, action in seen] == result.decisions
    assert stream.getvalue().count("Mountain Goats  round") == len(result.decisions)
    assert "\x1b" not in stream.getvalue()


def test_on_a_terminal_each_board_replaces_the_last():

    stream = io.StringIO()
    live = LiveBoard("goat-lords", ["a", "b"], stream, colour=True, in_place=True)
    state = find_game("goat-lords").new_state(2, 1)
    live.show(state, "start")
    state.apply(state.legal_actions()[0])
    live.show(state, "next")
    frames = stream.getvalue().split(CLEAR)
    assert frames[0] == "" and len(frames) == 3 and "\x1b[" in frames[2]
