"""The Goat Lords and Goat 'n' Goat engines replay their golden traces exactly.

The expected hashes were recorded from the engines before they were optimised (see
:mod:`tests.card_engine_traces`), so any change in legal actions, their order, the
observations, chance, clone, resampling or results shows up here with its seed.
"""

from __future__ import annotations

import json

import pytest

from goatarena.games import find_game
from tests.card_engine_traces import GAMES, trace_hash, trace_path


@pytest.mark.parametrize("kind", ["full", "light"])
@pytest.mark.parametrize("game", GAMES)
def test_seeded_games_trace_as_recorded(game, kind):
    expected = json.loads(trace_path(game).read_text())[kind]
    assert set(expected) == {str(players) for players in find_game(game).player_counts}
    wrong = [
        (int(players), seed)
        for players, hashes in expected.items()
        for seed, want in enumerate(hashes)
        if trace_hash(game, int(players), seed, full=kind == "full") != want
    ]
    assert wrong == [], f"(players, seed) whose {kind} trace changed: {wrong[:10]}"


def test_a_trace_tells_games_apart():
    # The hash must depend on the game played, or the test above could not fail.
    assert trace_hash("goat-lords", 2, 0) != trace_hash("goat-lords", 2, 1)
    assert trace_hash("goat-n-goat", 3, 0, full=False) != trace_hash(
        "goat-n-goat", 3, 1, full=False
    )
