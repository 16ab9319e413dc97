"""The OpenSpiel registration (goatarena.envs.openspiel) passes pyspiel's random_sim_test."""

from __future__ import annotations

import json

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from goatarena.envs import numbering  # noqa: E402
from goatarena.envs.openspiel import load_game, short_name  # noqa: E402
from goatarena.envs.vectors import encoder  # noqa: E402
from goatarena.games import GAMES  # noqa: E402

COUNTS = [(game, players) for game, info in GAMES.items() for players in info.player_counts]


@pytest.mark.parametrize(("game", "players"), COUNTS)
def test_pyspiel_random_sim_test_passes(game: str, players: int) -> None:
    loaded = pyspiel.load_game(short_name(game), {"players": players})
    assert loaded.num_players() == players
    assert loaded.num_distinct_actions() == numbering(game).size
    assert loaded.observation_tensor_shape() == [encoder(game).size]
    # Sampled-stochastic Python games cannot be serialized (no generator state to save).
    pyspiel.random_sim_test(loaded, num_sims=2, serialize=False, verbose=False)


def play_first_actions(state) -> None:
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[-1])


@pytest.mark.parametrize("game", list(GAMES))
def test_states_follow_the_engine(game: str) -> None:
    loaded = load_game(game, players=3 if game != "goat-lords" else 4, seed=9)
    state = loaded.new_initial_state()
    twin = state.clone()
    engine = state.goatarena_state.clone()
    moves = 0
    while not state.is_terminal() and moves < 60:
        seat = state.current_player()
        observation = engine.observation(seat)
        assert json.loads(state.observation_string(seat)) == observation
        assert np.array_equal(
            np.asarray(state.observation_tensor(seat), dtype=np.float32),
            encoder(game).encode(observation),
        )
        legal = state.legal_actions()
        assert legal == sorted(numbering(game).legal_numbers(engine))
        numbering(game).apply(engine, legal[moves % len(legal)])
        state.apply_action(legal[moves % len(legal)])
        moves += 1
    # A clone is independent, and plays on exactly as the original would.
    assert twin.history() == []
    play_first_actions(state)
    play_first_actions(twin)
    replay = load_game(game, players=loaded.num_players(), seed=9).new_initial_state()
    play_first_actions(replay)
    assert str(twin) == str(replay)


def test_the_seed_parameter_deals_the_same_games() -> None:
    def finished(seed: int) -> str:
        state = load_game("mountain-goats", players=2, seed=seed).new_initial_state()
        play_first_actions(state)
        assert sum(state.returns()) == 0
        return str(state)

    assert finished(5) == finished(5)
    assert finished(5) != finished(6)


def test_the_openspiel_bot_plays_every_game() -> None:
    import importlib.util
    from pathlib import Path

    from goatarena.bots.random_bot import RandomBot
    from goatarena.sdk import play_local

    path = Path(__file__).resolve().parent.parent / "bots" / "python" / "openspiel_bot.py"
    spec = importlib.util.spec_from_file_location("openspiel_bot", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for game in GAMES:
        bot = module.OpenSpielMctsBot(ms=1, simulations=2, seed=1)
        result = play_local([bot, RandomBot()], game, seed=3)
        assert sorted(result.ranks) in ([1, 2], [1, 1])
        assert len(result.decisions) > 20
