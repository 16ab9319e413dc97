"""The shared action objects of every engine stay as they were built.

The engines offer action values made once (per card, per cell, per roll) again and again,
and Goat Lords and Goat 'n' Goat find them by identity when one is applied, so nothing in
a game may change one; and an equal action decoded from a bot must do exactly what the
shared one does.
"""

from __future__ import annotations

import random

import msgspec
import pytest

from goatarena.games import find_game

_encode = msgspec.json.encode


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("game", ["goat-lords", "goat-n-goat", "herr-der-ziegen", "mountain-goats"])
def test_offered_actions_never_change_and_decoded_ones_act_alike(game, players):
    info = find_game(game)
    offered: dict[int, tuple[object, bytes]] = {}
    offers = 0
    for seed in range(10):
        shared, decoded = info.new_state(players, seed), info.new_state(players, seed)
        rng = random.Random(seed)
        while not shared.is_over:
            for action in shared.legal_actions():
                offered.setdefault(id(action), (action, _encode(action)))
                offers += 1
            action = shared.apply_index(rng.randrange(len(shared.legal_actions())))
            decoded.apply(msgspec.json.decode(_encode(action)))
            assert decoded.legal_actions() == shared.legal_actions()
        assert decoded.result() == shared.result()
        assert [decoded.observation(seat) for seat in range(players)] == [
            shared.observation(seat) for seat in range(players)
        ]
    changed = [encoded for action, encoded in offered.values() if _encode(action) != encoded]
    assert changed == []
    # The objects really are shared: far fewer distinct ones than offers.
    assert len(offered) < 2000 and len(offered) < offers / 3
