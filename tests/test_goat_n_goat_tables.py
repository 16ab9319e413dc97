"""Goat 'n' Goat's lookup tables agree with the rules computed the plain way.

The engine finds plays by indexing nested lists, takes of one card straight from the row,
larger takes through a memo, and the cheapest mountain as the first of its colour: each
shortcut is checked here against a direct computation over many random positions.
"""

from __future__ import annotations

import itertools
import random

from goatarena.games import find_game
from goatarena.games.goat_n_goat import GoatNGoatState, play_actions, take_actions
from goatarena.games.goat_n_goat_tables import CODES, COLOURS, Phase
from goatarena.strategy import find_strategy

INFO = find_game("goat-n-goat")


def reference_takes(row: list[int], count: int) -> list[dict[str, list[str]]]:
    """Every distinct take of ``count`` cards (all, if fewer), as the rules define them."""
    size = min(count, len(row))
    choices = dict.fromkeys(itertools.combinations(sorted(row), size))
    return [{"take": [CODES[card] for card in chosen]} for chosen in choices]


def reference_plays(hand: list[int]) -> list[dict[str, list[str]]]:
    """Every play of one or more cards of one number, per number, colours g, b, r."""
    plays = []
    for number in range(5):
        held = [hand[colour * 5 + number] for colour in range(3)]
        for chosen in itertools.product(*(range(count + 1) for count in held)):
            if any(chosen):
                plays.append(
                    {
                        "play": [
                            CODES[colour * 5 + number]
                            for colour, n in enumerate(chosen)
                            for _ in range(n)
                        ]
                    }
                )
    return plays


def test_takes_of_every_size_match_the_combinations_of_the_row():
    rng = random.Random(5)
    for _ in range(3000):
        row = [rng.randrange(15) for _ in range(rng.randint(1, 6))]
        for count in range(1, 6):
            # Twice: the second answer may come from the memo.
            assert take_actions(row, count) == reference_takes(row, count)
            assert take_actions(row, count) == reference_takes(row, count)


def test_plays_match_the_choices_of_each_number_even_for_hands_past_the_deck():
    rng = random.Random(6)
    for _ in range(2000):
        hand = [rng.choice((0, 0, 0, 1, 2, 3)) for _ in range(15)]
        assert play_actions(hand) == reference_plays(hand)
    hand = [0] * 15
    hand[4] = 7  # seven green fives: more than the deck holds, still answered right
    assert play_actions(hand) == reference_plays(hand)


def test_legal_plays_and_takes_in_random_games_match_the_plain_computation():
    for players in (2, 5):
        for seed in range(6):
            state = INFO.new_state(players, seed)
            rng = random.Random(seed)
            while not state.is_over:
                legal = state.legal_actions()
                if state.phase is Phase.PLAY:
                    assert legal == reference_plays(state.hands[state.seat])
                elif state.phase is Phase.TAKE:
                    assert legal == reference_takes(state.row, state.take_count)
                # The trade check reads the cheapest mountain as the first of each colour.
                assert all(values == sorted(values) for values in state.mountains)
                state.apply_index(rng.randrange(len(legal)))


def test_a_sampled_state_keeps_mountains_ascending_when_the_observation_does_not():
    state = INFO.new_state(2, 3)
    state.flocks[0][0] = [1, 2, 3]  # a green flock of three: affords the green 3
    state.mountains[0] = [3, 4, 5, 6, 7, 8]
    state.phase = Phase.MOUNTAIN
    observation = state.observation(0)
    observation["mountains"]["green"] = [8, 7, 6, 5, 4, 3]
    sampled = find_strategy("goat-n-goat").sample_state(observation, random.Random(1))
    assert isinstance(sampled, GoatNGoatState)
    assert sampled.mountains[0] == [3, 4, 5, 6, 7, 8]
    assert {"trade": COLOURS[0], "mountain": 3} in sampled.legal_actions()
