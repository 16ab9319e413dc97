"""The fast shuffle draws exactly what random.Random.shuffle draws, on this Python."""

from __future__ import annotations

import random

import pytest

from goatarena.games.chance import randbelow, shuffle


@pytest.mark.parametrize("size", [0, 1, 2, 3, 6, 31, 32, 33, 84, 110, 256, 257, 400])
def test_shuffle_matches_the_standard_library(size):
    for seed in range(40):
        ours, theirs = list(range(size)), list(range(size))
        mine, reference = random.Random(seed), random.Random(seed)
        shuffle(mine, ours)
        reference.shuffle(theirs)
        assert ours == theirs
        assert mine.getstate() == reference.getstate()


def test_randbelow_matches_randrange():
    mine, reference = random.Random(3), random.Random(3)
    for bound in [1, 2, 3, 5, 8, 9, 100, 109, 2**20 + 1] * 50:
        assert randbelow(mine, bound) == reference.randrange(bound)
    assert mine.getstate() == reference.getstate()


def test_a_random_subclass_keeps_its_own_drawing():
    class Loaded(random.Random):
        def random(self) -> float:
            return 0.0

    items = list(range(10))
    shuffle(Loaded(1), items)
    reference = list(range(10))
    Loaded(1).shuffle(reference)
    assert items == reference
