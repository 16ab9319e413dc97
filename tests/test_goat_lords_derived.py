"""Goat Lords keeps derived lists as the moves go: they must agree with a fresh derivation.

The engine's hot path reads hand sizes and the duel slot of each herd's top pile from
lists each move updates in place, and assembles a turn's legal actions in an inlined
copy of the general computation. A state rebuilt by pickle drops all that (``_legal`` is
None) and derives it again from the fields; at every decision of many random games the
two must offer the same actions and hold the same lists.
"""

from __future__ import annotations

import pickle
import random

import pytest

from goatarena.games import find_game
from goatarena.games.goat_lords import GoatLordsState

INFO = find_game("goat-lords")


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_kept_lists_agree_with_a_fresh_derivation_at_every_decision(players):
    checked = 0
    for seed in range(3):
        state = INFO.new_state(players, seed)
        assert isinstance(state, GoatLordsState)
        rng = random.Random(seed)
        while not state.is_over:
            legal = state.legal_actions()
            rebuilt = pickle.loads(pickle.dumps(state))
            assert rebuilt.legal_actions() == legal
            assert rebuilt._sizes == state._sizes
            assert rebuilt._top_slots == state._top_slots
            if state.duel_target < 0:  # in a duel the attacker's hand is short for a while
                # Kept conservatively: the state may call its hands uneven when they are
                # not (the general restock then runs), never the other way round.
                assert state._uneven or not rebuilt._uneven
            state.apply_index(rng.randrange(len(legal)))
            checked += 1
        assert state.legal_actions() == []
    assert checked > 300
