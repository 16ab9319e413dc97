"""Text pictures of the four games, and the views they are drawn from."""

from __future__ import annotations

import io
import random

import pytest

from goatarena.games import GAMES, find_game
from goatarena.render import Style, render_board, replay_steps, seat_view, table_view
from goatarena.render.style import strip, wants_colour
from goatarena.render.view import final_view, observation_of
from goatarena.testing import random_playout


def states_along_a_game(name: str, players: int, seed: int, every: int = 7):
    """Copies of a random game's state every few decisions, and its end."""
    state = find_game(name).new_state(players, seed)
    chooser = random.Random(seed)
    seen = []
    while not state.is_over:
        if len(state.history) % every == 0:
            seen.append(state.clone())
        state.apply(chooser.choice(state.legal_actions()))
    return [*seen, state]


@pytest.mark.parametrize("name", list(GAMES))
@pytest.mark.parametrize("players", [2, 3])
def test_a_view_gives_back_every_seats_observation_exactly(name, players):
    for state in states_along_a_game(name, players, seed=players * 31):
        table = table_view(state)
        for seat in range(players):
            assert observation_of(table, seat) == state.observation(seat)
            mine = seat_view(table, seat)
            assert observation_of(mine, seat) == state.observation(seat)
            assert all(hand is None for other, hand in enumerate(mine["hands"]) if other != seat)


@pytest.mark.parametrize("name", list(GAMES))
def test_boards_fit_eighty_columns_and_colour_changes_no_layout(name):
    info = find_game(name)
    names = [f"bot-{seat}" for seat in range(info.max_players)]
    for players in (info.min_players, info.max_players):
        for state in states_along_a_game(name, players, seed=5, every=11):
            view = table_view(state)
            plain = render_board(name, view, Style(False), names)
            coloured = render_board(name, view, Style(True), names)
            assert "\x1b[" in coloured and "\x1b" not in plain
            assert strip(coloured) == plain
            assert max(len(line) for line in plain.splitlines()) <= 80, plain


@pytest.mark.parametrize("name", list(GAMES))
def test_a_seat_board_shows_its_own_hand_and_the_others_face_down(name):
    state = states_along_a_game(name, 3, seed=9)[2]
    table = table_view(state)
    whole = render_board(name, table, Style(), ["a", "b", "c"])
    mine = render_board(name, seat_view(table, 1), Style(), ["a", "b", "c"])
    if GAMES[name].hidden_information:
        assert "?" not in whole and "? ?" in mine
        own = " ".join(str(card) for card in table["hands"][1])
        assert own in mine and own in whole
        for other in (0, 2):
            face_down = "hand " + " ".join("?" * table["hand_sizes"][other])
            assert face_down in mine
            assert " ".join(str(card) for card in table["hands"][other]) in whole
    else:
        assert mine.replace(" (you)", "").split() == whole.split()


@pytest.mark.parametrize("name", list(GAMES))
def test_replayed_steps_follow_the_record_to_its_end(name):
    state = random_playout(find_game(name).new_state(3, 4), random.Random(4))
    record = state.to_record()
    steps = list(replay_steps(record))
    assert [step.action for step in steps] == record.decisions
    assert [step.number for step in steps] == list(range(len(record.decisions)))
    assert steps[0].view == table_view(find_game(name).new_state(3, 4))
    assert final_view(record) == table_view(state)
    assert final_view(record)["to_act"] is None


@pytest.mark.parametrize(
    ("environment", "colour"),
    [({}, True), ({"NO_COLOR": "1"}, False), ({"TERM": "dumb"}, False)],
)
def test_colour_only_on_a_terminal_that_wants_it(monkeypatch, environment, colour):
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert wants_colour(Terminal()) is colour
    assert wants_colour(io.StringIO()) is False  # not a terminal at all
