"""Clones and their random generators, in every engine.

A clone continues the original's random sequence (searches rely on it for common random
numbers); ``clone(rng)`` gives the copy a generator of the caller's instead, without
copying the original's, and leaves the original exactly as it was.
"""

from __future__ import annotations

import random

import pytest

from goatarena.games import find_game
from goatarena.games.base import State, generator_copies
from goatarena.games.mountain_goats import MountainGoatsState
from goatarena.testing import random_playout

GAMES = ["goat-lords", "goat-n-goat", "herr-der-ziegen", "mountain-goats"]


def midgame(game: str, players: int = 3, seed: int = 4, decisions: int = 25) -> State:
    """A state some random decisions into a game."""
    state = find_game(game).new_state(players, seed)
    chooser = random.Random(seed)
    for _ in range(decisions):
        state.apply_index(chooser.randrange(len(state.legal_actions())))
    return state


def played_out(state: State) -> tuple[list[object], object, object]:
    """The history, result and final generator state of a random playout."""
    random_playout(state, random.Random(11))
    return state.history, state.result(), state.rng.getstate()


@pytest.mark.parametrize("game", GAMES)
def test_a_clone_continues_the_original_random_sequence(game):
    state = midgame(game)
    copy = state.clone()
    assert copy.rng is not state.rng
    assert copy.rng.getstate() == state.rng.getstate()
    assert played_out(copy) == played_out(state)


@pytest.mark.parametrize("game", GAMES)
def test_a_clone_with_a_given_generator_draws_from_it_and_leaves_the_original_alone(game):
    state = midgame(game)
    own, before = state.rng, state.rng.getstate()
    reference = state.clone()
    given = random.Random(99)
    copy = state.clone(given)
    assert copy.rng is given
    assert state.rng is own and own.getstate() == before
    assert [copy.observation(seat) for seat in range(3)] == [
        state.observation(seat) for seat in range(3)
    ]
    # The same as a clone whose generator is replaced afterwards, and independent of the
    # original, which still plays on as its plain clone does.
    replaced = state.clone()
    replaced.rng = random.Random(99)
    assert played_out(copy) == played_out(replaced)
    assert played_out(state) == played_out(reference)


class CountingRandom(random.Random):
    """A generator that counts how often its state is read."""

    reads = 0

    def getstate(self):  # type: ignore[override]
        self.reads += 1
        return super().getstate()


@pytest.mark.parametrize("game", GAMES)
def test_a_clone_with_a_given_generator_does_not_read_the_original_one(game):
    state = midgame(game)
    state.rng = counting = CountingRandom(5)
    state.clone(random.Random(1))
    assert counting.reads == 0
    state.clone()
    assert counting.reads == 1


def test_the_given_generator_decides_the_chance_of_the_clone():
    # Mountain Goats rolls dice every turn: a clone on another generator rolls others.
    state = midgame("mountain-goats", players=2)
    same, other = state.clone(), state.clone(random.Random(12345))
    assert played_out(same)[0] != played_out(other)[0]


class DeepCopied(MountainGoatsState):
    """A game without a clone of its own: the base class deep-copies."""

    clone = State.clone


def rebuilt(cls: type[MountainGoatsState]) -> MountainGoatsState:
    state = midgame("mountain-goats", players=2)
    other = cls.__new__(cls)
    other.__dict__.update(state.__dict__)
    return other


def test_a_deep_copying_clone_also_takes_the_given_generator():
    state = rebuilt(DeepCopied)
    own, before = state.rng, state.rng.getstate()
    plain = state.clone()
    assert plain.rng is not own and plain.rng.getstate() == before
    given = random.Random(3)
    copy = state.clone(given)
    assert copy.rng is given and state.rng is own and own.getstate() == before
    assert played_out(plain) == played_out(state.clone())


def test_determinize_leaves_the_original_generator_alone():
    state = midgame("goat-lords")
    own, before = state.rng, state.rng.getstate()
    twin = state.determinize(1, random.Random(5))
    assert twin.rng is not own and state.rng is own and own.getstate() == before


def test_generator_copies_continue_from_when_they_were_made():
    source = random.Random(8)
    source.random()
    expected = [source.random() for _ in range(5)]
    source.seed(8)
    source.random()
    make = generator_copies(source)
    source.random()  # the source moving on changes nothing for the copies
    first, second = make(), make()
    assert first is not second and first is not source
    assert [first.random() for _ in range(5)] == expected
    assert [second.random() for _ in range(5)] == expected
