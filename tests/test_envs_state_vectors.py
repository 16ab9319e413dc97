"""The observation vectors read straight from a state (goatarena.envs.state_vectors) equal
the reference made from the JSON observation, for every game, player count and seat."""

from __future__ import annotations

import random

import numpy as np
import pytest

from goatarena.envs.vectors import encoder
from goatarena.games import GAMES

from .test_envs_numbering import random_states


@pytest.mark.parametrize("game", list(GAMES))
def test_the_vector_from_the_state_is_the_vector_from_the_observation(game: str) -> None:
    vectors = encoder(game)
    assert vectors.state_fill is not None  # every game has its fast path
    compared = 0
    for state in random_states(game, games=8):
        for seat in range(state.players):
            reference = vectors.encode(state.observation(seat))
            fast = vectors.encode_state(state, seat)
            assert fast.dtype == np.float32 and fast.shape == reference.shape
            if not np.array_equal(fast, reference):
                wrong = np.flatnonzero(fast != reference)
                fields = {
                    f.name
                    for f in vectors.layout.fields
                    for i in wrong
                    if f.start <= i < f.start + f.size
                }
                pytest.fail(f"seat {seat} after {state.history}: {sorted(fields)} differ")
            compared += 1
    assert compared > 1000


@pytest.mark.parametrize("game", [name for name, info in GAMES.items() if info.hidden_information])
def test_the_vector_from_the_state_tells_nothing_hidden(game: str) -> None:
    """Another deal of what a seat cannot see gives that seat the same vector."""
    vectors = encoder(game)
    chooser = random.Random(4)
    compared = 0
    for state in random_states(game, games=3):
        if state.is_over or len(state.history) % 4:
            continue
        for seat in range(state.players):
            twin = state.determinize(seat, chooser)
            assert np.array_equal(
                vectors.encode_state(twin, seat), vectors.encode_state(state, seat)
            )
            compared += 1
    assert compared > 20


def test_each_vector_is_an_array_of_its_own() -> None:
    vectors = encoder("herr-der-ziegen")
    state = GAMES["herr-der-ziegen"].new_state(3, 1)
    first, second = vectors.encode_state(state, 0), vectors.encode_state(state, 0)
    first[:] = 7.0
    assert not np.shares_memory(first, second) and (second != 7.0).any()
    assert np.array_equal(second, vectors.encode(state.observation(0)))


@pytest.mark.parametrize("game", list(GAMES))
def test_the_vectors_stay_right_while_their_caches_start_again(game: str, monkeypatch) -> None:
    """Bounds of a few entries: the caches empty again and again along the games."""
    from goatarena.envs import state_vectors, state_vectors_herr_der_ziegen

    monkeypatch.setattr(state_vectors, "_MADE_LIMIT", 3)
    monkeypatch.setattr(state_vectors_herr_der_ziegen, "_LAID_LIMIT", 2)
    vectors = encoder(game)
    for state in random_states(game, games=1):
        seat = state.to_act if state.to_act is not None else 0
        assert np.array_equal(
            vectors.encode_state(state, seat), vectors.encode(state.observation(seat))
        )
