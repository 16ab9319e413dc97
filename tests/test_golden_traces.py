"""The optimised Herr der Ziegen and Mountain Goats engines replay the recorded traces exactly."""

from __future__ import annotations

import json

import pytest

from tests.golden_traces import GAMES, trace_hash, trace_path


@pytest.mark.parametrize("game", sorted(GAMES))
def test_seeded_random_games_trace_exactly_as_recorded(game):
    expected = json.loads(trace_path(game).read_text())
    assert sum(len(hashes) for hashes in expected.values()) >= GAMES[game] * 3
    for players, hashes in expected.items():
        actual = [trace_hash(game, int(players), seed) for seed in range(len(hashes))]
        differing = [seed for seed, (a, b) in enumerate(zip(actual, hashes)) if a != b]
        assert not differing, f"{game} with {players} players differs at seeds {differing[:10]}"
