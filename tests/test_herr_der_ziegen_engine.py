"""The Herr der Ziegen engine's own bookkeeping stays true to the fields it summarises.

The rules are proven by the scenario tests and the golden traces; these tests check the
shortcuts the engine keeps for speed: the display tally a take consults instead of
scanning the displays, and ``is_over`` kept as a field beside ``phase``.
"""

from __future__ import annotations

import random

import pytest

from goatarena.errors import IllegalAction
from goatarena.games.herr_der_ziegen import INFO, HerrDerZiegenState, Phase
from goatarena.strategy.herr_der_ziegen import sampler


def fresh_tally(state: HerrDerZiegenState) -> dict[str, int]:
    """The tally counted from the displays, on a copy (the state's own stays untouched)."""
    copy = state.clone()
    copy._tally_of = None
    return copy._retally()


def kept_tally(state: HerrDerZiegenState) -> dict[str, int] | None:
    """The tally the state keeps, or None when it would be counted afresh anyway."""
    return state._tally if state._tally_of is state.displays else None


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_kept_tally_matches_the_displays_through_whole_games_and_clones(players):
    for seed in range(12):
        state = INFO.new_state(players, seed)
        assert isinstance(state, HerrDerZiegenState)
        chooser = random.Random(seed)
        decision = 0
        while not state.is_over:
            tally = kept_tally(state)
            assert tally is not None and tally == fresh_tally(state), (seed, decision)
            if decision % 5 == 4:  # go on from a copy: its tally must be its own
                state = state.clone()
            state.apply_index(chooser.randrange(len(state.legal_actions())))
            decision += 1


def test_displays_replaced_from_outside_are_counted_afresh():
    state = INFO.new_state(2, 3)
    assert isinstance(state, HerrDerZiegenState)
    state.displays = [["A1", "A3", "milk1"], ["A2"]]
    assert state._retally() == {"A": 3, "A@0": 4, "A@1": 2}
    state.displays = [[], ["B5", "B4"]]  # a new list: the kept count no longer applies
    assert kept_tally(state) is None


@pytest.mark.parametrize("players", [2, 5])
def test_is_over_follows_the_phase_in_games_clones_and_sampled_states(players):
    strategy_rng = random.Random(1)
    for seed in range(10):
        state = INFO.new_state(players, seed)
        chooser = random.Random(seed)
        while True:
            assert state.is_over == (state.phase is Phase.OVER)
            assert state.clone().is_over == state.is_over
            if state.is_over:
                break
            seat = state.to_act
            assert seat is not None
            sample = sampler(state.observation(seat), state.options, state.history)
            sampled = sample(strategy_rng)
            assert sampled.is_over is False and sampled.legal_actions()
            state.apply_index(chooser.randrange(len(state.legal_actions())))
        assert state.legal_actions() == [] and state.result().ranks


def test_result_goes_by_the_phase():
    state = INFO.new_state(2, 4)
    with pytest.raises(IllegalAction):
        state.result()
    state.phase = Phase.OVER  # as a test may end a set-up table
    assert len(state.result().scores) == 2
