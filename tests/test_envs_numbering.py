"""The fixed action numbering and the observation vectors of every game (goatarena.envs)."""

from __future__ import annotations

import random

import msgspec
import numpy as np
import pytest

from goatarena.envs import numbering
from goatarena.envs.action_tables import freeze
from goatarena.envs.vectors import encoder
from goatarena.errors import IllegalAction
from goatarena.games import GAMES

GAMES_PER_COUNT = 6


def random_states(game: str, games: int = GAMES_PER_COUNT):
    """Every decision point of ``games`` seeded random games per player count."""
    info = GAMES[game]
    for players in info.player_counts:
        for seed in range(games):
            state = info.new_state(players, seed)
            chooser = random.Random(seed)
            while not state.is_over:
                yield state
                state.apply_index(chooser.randrange(len(state.legal_actions())))
            yield state


@pytest.mark.parametrize("game", list(GAMES))
def test_every_offered_action_has_a_number_of_its_own(game: str) -> None:
    actions = numbering(game)
    decisions = 0
    for state in random_states(game):
        legal = state.legal_actions()
        numbers = actions.legal_numbers(state)
        assert len(numbers) == len(legal)
        assert len(set(numbers)) == len(numbers), f"two actions share a number: {legal}"
        assert all(0 <= number < actions.size for number in numbers)
        mask = actions.mask(state)
        assert mask.dtype == np.int8 and mask.shape == (actions.size,)
        assert sorted(np.flatnonzero(mask)) == sorted(numbers)
        for action, number in zip(legal, numbers):
            # the numbered representative stands for the same choice
            assert actions.number(actions.actions[number]) == number
            assert actions.number(freeze_copy(action)) == number
        decisions += bool(legal)
    assert decisions > 100


def freeze_copy(action):
    """A new object equal to ``action`` (as a bot's decoded reply would be)."""
    return msgspec.json.decode(msgspec.json.encode(action))


@pytest.mark.parametrize("game", list(GAMES))
def test_a_number_plays_the_action_it_names(game: str) -> None:
    actions = numbering(game)
    info = GAMES[game]
    state, twin = info.new_state(info.min_players, 7), info.new_state(info.min_players, 7)
    chooser = random.Random(7)
    while not state.is_over:
        number = chooser.choice(actions.legal_numbers(state))
        unused = next(n for n in range(actions.size) if n not in actions.legal_numbers(state))
        with pytest.raises(IllegalAction):
            actions.index_of(state, unused)
        played = actions.apply(state, number)
        twin.apply(played)
        assert actions.number(played) == number
    assert state.result() == twin.result()


def test_the_numbers_are_stable() -> None:
    """Numbers are data a trained policy depends on: these must never move."""
    assert {game: numbering(game).size for game in GAMES} == {
        "goat-lords": 121,
        "goat-n-goat": 15634,
        "herr-der-ziegen": 733,
        "mountain-goats": 210,
    }
    assert numbering("goat-lords").number("yield") == 120
    assert numbering("goat-lords").number({"duel": 2, "play": "ninja"}) == 24 + 2 * 12 + 6
    assert numbering("mountain-goats").number({"move": [], "groups": [[1, 2, 3, 4]]}) == 0
    assert numbering("mountain-goats").number({"move": [5, 7], "groups": []}) == 1 + 6 + 2
    assert numbering("herr-der-ziegen").actions[-3:] == ("pass", "agree", "refuse")
    assert numbering("goat-n-goat").actions[-1] == "decline"
    assert freeze({"b": [1, 2], "a": 0}) == (("a", 0), ("b", (1, 2)))


@pytest.mark.parametrize("game", list(GAMES))
def test_vectors_have_a_fixed_size_and_come_from_the_observation_alone(game: str) -> None:
    vectors = encoder(game)
    assert vectors.layout.fields[-1].start + vectors.layout.fields[-1].size == vectors.size
    chooser = random.Random(3)
    compared = 0
    for state in random_states(game, games=3):
        # Every seat at every third decision and at the end, else the seat to act.
        every = state.is_over or len(state.history) % 3 == 0
        for seat in range(state.players) if every else [state.to_act]:
            observation = state.observation(seat)
            vector = vectors.encode(observation)
            assert vector.dtype == np.float32 and vector.shape == (vectors.size,)
            assert np.isfinite(vector).all()
            if state.is_over or not state.info.hidden_information or not every:
                continue
            # Another deal of what this seat cannot see: the same observation, the same vector.
            twin = state.determinize(seat, chooser)
            assert twin.observation(seat) == observation
            assert np.array_equal(vectors.encode(twin.observation(seat)), vector)
            compared += 1
    assert compared > 0 or not GAMES[game].hidden_information


@pytest.mark.parametrize("game", list(GAMES))
def test_different_observations_mostly_give_different_vectors(game: str) -> None:
    """The vector is not blind: along a game, consecutive observations of the seat to act
    differ as vectors whenever they differ as JSON (apart from rare collisions)."""
    vectors = encoder(game)
    pairs = same = 0
    previous = None
    for state in random_states(game, games=2):
        if state.is_over:
            previous = None
            continue
        observation = state.observation(state.to_act)
        if previous is not None and previous[0] != observation:
            pairs += 1
            same += np.array_equal(previous[1], vectors.encode(observation))
        previous = (observation, vectors.encode(observation))
    assert pairs > 50 and same <= pairs // 20


def test_the_docs_list_every_size_and_field() -> None:
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "games.md").read_text()
    for game in GAMES:
        vectors = encoder(game)
        assert f"#### `{game}`: {vectors.size} numbers" in text
        for each in vectors.layout.fields:
            assert f"| `{each.name}` | {each.start} | {each.size} | {each.meaning} |" in text
        assert f"{numbering(game).size:,}" in text


def test_the_numbering_and_vectors_need_none_of_the_learning_libraries() -> None:
    """Without pettingzoo, gymnasium and open_spiel everything but their wrappers works."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "for name in ('pettingzoo', 'gymnasium', 'pyspiel', 'open_spiel'):\n"
        "    sys.modules[name] = None\n"
        "import goatarena.cli, goatarena.envs, goatarena.envs.vectors, goatarena.sdk\n"
        "from goatarena.envs import numbering\n"
        "assert numbering('mountain-goats').size == 210\n"
        "try:\n"
        "    import goatarena.envs.pettingzoo\n"
        "except ImportError:\n"
        "    print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
