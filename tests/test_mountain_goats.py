"""Mountain Goats: one scenario per rule of rules/mountain-goats.md, and the conformance check."""

from __future__ import annotations

import itertools
import pickle
import random

import pytest

from goatarena.errors import IllegalAction
from goatarena.games import find_game
from goatarena.games.mountain_goats import (
    HEIGHTS,
    MAX_ROUNDS,
    MOUNTAIN_INDEX,
    MOUNTAINS,
    MountainGoatsState,
    choices_for_roll,
    die,
    one_settings,
)
from goatarena.testing import check_game, random_playout

GAME = find_game("mountain-goats")
M = MOUNTAIN_INDEX  # mountain number -> list index


def new_state(players: int = 2, dice: list[int] | None = None) -> MountainGoatsState:
    state = GAME.new_state(players, seed=1)
    assert isinstance(state, MountainGoatsState)
    if dice is not None:
        state.dice = dice
        state._legal = None
    return state


def choose(state: MountainGoatsState, move: list[int]) -> None:
    """Apply the offered choice that moves exactly ``move``."""
    for action in state.legal_actions():
        if action["move"] == move:
            state.apply(action)
            return
    raise AssertionError(f"{move} is not offered for dice {state.dice}")


@pytest.mark.parametrize(
    ("players", "supply"),
    [(2, [10, 9, 8, 7, 6, 5]), (3, [11, 10, 9, 8, 7, 6]), (4, [12, 11, 10, 9, 8, 7])],
)
def test_token_supply_by_player_count(players, supply):
    assert new_state(players).supply == supply


def test_heights_of_the_mountains():
    assert dict(zip(MOUNTAINS, HEIGHTS)) == {5: 4, 6: 4, 7: 3, 8: 3, 9: 2, 10: 2}


def test_every_choice_is_a_real_grouping_of_the_dice():
    for roll in itertools.combinations_with_replacement(range(1, 7), 4):
        moves = [tuple(choice["move"]) for choice in choices_for_roll(roll)]
        assert len(moves) == len(set(moves)), roll
        for choice in choices_for_roll(roll):
            dice = sorted(value for group in choice["groups"] for value in group)
            assert dice in one_settings(roll)
            sums = sorted(sum(g) for g in choice["groups"] if 5 <= sum(g) <= 10)
            assert sums == choice["move"]


def test_moving_nothing_is_offered_only_when_some_grouping_moves_nothing():
    # The rules assume a do-nothing grouping always exists; with 1, 2, 2, 5 every group
    # holding the 5 sums to 5..10, so at least one goat must move.
    assert [] not in [choice["move"] for choice in choices_for_roll((1, 2, 2, 5))]
    assert [] in [choice["move"] for choice in choices_for_roll((6, 6, 6, 6))]


def test_extra_ones_may_become_any_face_but_one_stays_a_one():
    assert one_settings((1, 2, 2, 2)) == [[1, 2, 2, 2]]
    settings = one_settings((1, 1, 3, 4))
    assert len(settings) == 6 and all(1 in dice for dice in settings)
    moves = {tuple(choice["move"]) for choice in choices_for_roll((1, 1, 1, 1))}
    assert (6, 6, 6) in moves
    assert (6, 6, 6, 6) not in moves
    assert (5, 5, 5, 5) not in moves


def test_groups_with_the_same_sum_move_one_goat_several_steps():
    state = new_state(dice=[1, 4, 2, 3])
    choose(state, [5, 5])
    assert state.steps[0][M[5]] == 2


def test_stepping_onto_a_summit_takes_a_token_and_bumps_the_goat_there():
    state = new_state(dice=[4, 6, 1, 1])  # 4+6 = 10
    state.steps[0][M[10]] = 1
    state.steps[1][M[10]] = 2  # seat 1 holds the summit
    choose(state, [10])
    assert state.steps[0][M[10]] == 2
    assert state.steps[1][M[10]] == 0
    assert state.tokens[0][M[10]] == 1
    assert state.supply[M[10]] == 4


def test_a_goat_on_its_summit_stays_and_takes_another_token():
    state = new_state(dice=[4, 6, 3, 6])  # [10, 9]
    state.steps[0][M[10]] = 2
    state.steps[0][M[9]] = 2
    choose(state, [9, 10])
    assert state.steps[0][M[10]] == 2 and state.steps[0][M[9]] == 2
    assert state.tokens[0][M[10]] == 1 and state.tokens[0][M[9]] == 1


def test_an_empty_supply_gives_no_token_but_the_summit_is_still_taken():
    state = new_state(dice=[4, 6, 1, 1])
    state.steps[0][M[10]] = 1
    state.steps[1][M[10]] = 2
    state.supply[M[10]] = 0
    choose(state, [10])
    assert state.tokens[0][M[10]] == 0
    assert state.steps[0][M[10]] == 2 and state.steps[1][M[10]] == 0


def test_two_complete_sets_in_one_turn_give_the_two_highest_bonuses():
    state = new_state(dice=[5, 5, 4, 6])  # 5+5 and 4+6
    state.tokens[0] = [2, 2, 2, 2, 2, 0]
    state.steps[0][M[10]] = 2  # on the summit: each step there is one more token
    choose(state, [10, 10])
    assert state.tokens[0][M[10]] == 2
    assert state.bonuses[0] == [15, 12]
    assert state.bonus_left == [9, 6]


def test_bonus_for_one_complete_set():
    state = new_state(dice=[4, 6, 1, 2])
    state.tokens[0] = [1, 1, 1, 1, 1, 0]
    state.steps[0][M[10]] = 1
    choose(state, [10])
    assert state.bonuses[0] == [15]


def test_three_emptied_mountains_end_the_game_after_the_last_seat_of_the_round():
    state = new_state(players=3, dice=[4, 6, 1, 2])
    state.supply[M[5]] = 0
    state.supply[M[6]] = 0
    state.supply[M[10]] = 1
    state.steps[0][M[10]] = 1
    choose(state, [10])  # seat 0 takes the last 10: three mountains are empty
    assert state.ending and not state.is_over and state.to_act == 1
    state.apply(state.legal_actions()[0])
    assert not state.is_over and state.to_act == 2
    state.apply(state.legal_actions()[0])
    assert state.is_over


def test_all_bonuses_taken_end_the_game_after_the_round():
    state = new_state(players=2, dice=[4, 6, 1, 2])
    state.bonus_left = [6]
    state.tokens[0] = [1, 1, 1, 1, 1, 0]
    state.steps[0][M[10]] = 1
    choose(state, [10])
    assert state.bonus_left == [] and state.to_act == 1
    state.apply(state.legal_actions()[0])
    assert state.is_over


def test_stalling_ends_the_game_after_round_one_hundred():
    state = new_state(players=2)
    state.supply = [10_000] * 6  # no mountain runs out and no bonus runs out
    state.bonus_left = [1] * 10_000
    for _ in range(2 * MAX_ROUNDS):
        assert not state.is_over and not state.ending
        state.apply(state.legal_actions()[0])
    assert state.is_over and state.round == MAX_ROUNDS


def finished(steps: list[list[int]], tokens: list[list[int]]) -> MountainGoatsState:
    state = new_state(players=len(steps))
    state.steps = steps
    state.tokens = tokens
    state.over = True
    return state


def test_tie_broken_by_more_goats_on_summits():
    state = finished(
        steps=[[4, 4, 0, 0, 0, 0], [4, 0, 0, 0, 0, 0]],  # seat 0 on summits 5 and 6
        tokens=[[0, 0, 0, 0, 0, 1], [2, 0, 0, 0, 0, 0]],  # 10 points each
    )
    state.steps[1][M[5]] = 0
    state.steps[1][M[9]] = 2  # seat 1 on summit 9 only
    assert state.result().scores == [10.0, 10.0]
    assert state.result().ranks == [1, 2]


def test_tie_broken_by_the_higher_summit_then_shared():
    state = finished(
        steps=[[0, 0, 0, 0, 0, 2], [0, 0, 0, 0, 2, 0]],
        tokens=[[2, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1]],
    )
    assert state.result().ranks == [1, 2]
    state = finished(
        steps=[[0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0]],
        tokens=[[2, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1]],
    )
    assert state.result().ranks == [1, 1]


def test_illegal_choices_are_rejected():
    state = new_state(dice=[1, 2, 3, 4])
    with pytest.raises(IllegalAction):
        state.apply({"move": [10, 10], "groups": [[1, 2, 3, 4]]})
    with pytest.raises(IllegalAction):
        state.apply_index(len(state.legal_actions()))


def test_a_negative_index_is_rejected_and_changes_nothing():
    state = new_state(dice=[1, 2, 3, 4])
    before = state.observation(0)
    with pytest.raises(IllegalAction):
        state.apply_index(-1)
    assert state.observation(0) == before and state.history == []


def test_a_die_is_drawn_exactly_as_randint_draws_it():
    ours, theirs = random.Random(5), random.Random(5)
    assert [die(ours.getrandbits) + 1 for _ in range(2000)] == [
        theirs.randint(1, 6) for _ in range(2000)
    ]
    assert ours.getstate() == theirs.getstate()


def test_pickled_and_cloned_states_play_on_like_the_original():
    # A state keeps the climbs of its choices beside them and its dice as a shared tuple:
    # a pickled copy and a clone must still play exactly as the original does.
    state = new_state(players=3)
    chooser = random.Random(4)
    for _ in range(20):
        state.apply_index(chooser.randrange(len(state.legal_actions())))
    copies = [pickle.loads(pickle.dumps(state)), state.clone()]
    random_playout(state, random.Random(6))
    for copied in copies:
        random_playout(copied, random.Random(6))
        assert copied.history == state.history and copied.result() == state.result()


def test_a_random_game_ends_with_scores_matching_tokens():
    state = random_playout(new_state(players=4), random.Random(9))
    result = state.result()
    for seat in range(4):
        tokens = sum(n * m for n, m in zip(state.tokens[seat], MOUNTAINS))
        assert result.scores[seat] == tokens + sum(state.bonuses[seat])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_conformance(players):
    assert check_game("mountain-goats", players=players, games=15) > 0
