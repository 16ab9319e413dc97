"""The PettingZoo environments (goatarena.envs.pettingzoo) pass PettingZoo's own tests."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from goatarena.envs import numbering  # noqa: E402
from goatarena.envs.pettingzoo import env, raw_env  # noqa: E402
from goatarena.envs.rewards import zero_sum_rewards  # noqa: E402
from goatarena.envs.vectors import encoder  # noqa: E402
from goatarena.errors import IllegalAction  # noqa: E402
from goatarena.games import GAMES  # noqa: E402
from goatarena.games.base import Result  # noqa: E402

COUNTS = [(game, players) for game, info in GAMES.items() for players in info.player_counts]


@pytest.mark.parametrize(("game", "players"), COUNTS)
def test_pettingzoo_api_test_and_seed_test_pass(game: str, players: int) -> None:
    with warnings.catch_warnings():
        # PettingZoo's advice that a Dict observation space is unusual (its own classic
        # environments get the same): masks belong in the observation dict.
        warnings.simplefilter("ignore", UserWarning)
        api_test(env(game, players), num_cycles=1000)
        seed_test(lambda: env(game, players), num_cycles=1000)


@pytest.mark.parametrize("game", list(GAMES))
def test_a_game_through_the_env_is_the_engines_game(game: str) -> None:
    players = GAMES[game].max_players
    environment = raw_env(game, players, render_mode="ansi")
    environment.reset(seed=11)
    engine = GAMES[game].new_state(players, 11)
    chooser = random.Random(5)
    finished = {}
    for agent in environment.agent_iter():
        observation, reward, terminated, truncated, _ = environment.last()
        if terminated or truncated:
            finished[agent] = reward
            environment.step(None)
            continue
        seat = int(agent.split("_")[1])
        assert seat == engine.to_act
        vector = encoder(game).encode(engine.observation(seat))
        assert np.array_equal(observation["observation"], vector)
        assert np.array_equal(observation["action_mask"], numbering(game).mask(engine))
        for other in environment.agents:
            if other != agent:
                assert not environment.observe(other)["action_mask"].any()
        number = chooser.choice(np.flatnonzero(observation["action_mask"]).tolist())
        numbering(game).apply(engine, number)
        environment.step(number)
    expected = zero_sum_rewards(engine.result())
    assert finished == {f"player_{seat}": expected[seat] for seat in range(players)}
    assert environment.render() == engine.render()


def test_rewards_are_zero_sum_from_the_ranks() -> None:
    assert zero_sum_rewards(Result(scores=[3, 1], ranks=[1, 2])) == [1.0, -1.0]
    assert zero_sum_rewards(Result(scores=[2, 2], ranks=[1, 1])) == [0.0, 0.0]
    assert zero_sum_rewards(Result(scores=[5, 3, 3], ranks=[1, 2, 2])) == [1.0, -0.5, -0.5]


def test_an_illegal_number_is_refused_and_the_seed_names_the_game() -> None:
    environment = raw_env("mountain-goats", 3)
    environment.reset(seed=4)
    assert environment.game_state is not None
    assert environment.game_state.observation(0) == GAMES["mountain-goats"].new_state(
        3, 4
    ).observation(0)
    mask = environment.observe(environment.agent_selection)["action_mask"]
    with pytest.raises(IllegalAction):
        environment.step(int(np.flatnonzero(mask == 0)[0]))
    with pytest.raises(Exception, match="option"):
        raw_env("goat-lords", 2, {"nonsense": 1})


def test_the_wrapper_enforces_the_order_as_pettingzoos_does() -> None:
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper

    environment = env("mountain-goats", 2)
    assert isinstance(environment, OrderEnforcingWrapper)
    for name in ("agent_selection", "agents", "rewards", "terminations", "infos"):
        with pytest.raises(AttributeError, match="before reset"):
            getattr(environment, name)
    with pytest.raises(AttributeError, match="before reset"):
        environment.last()
    environment.reset(seed=3)
    inner = environment.unwrapped
    assert environment.agent_selection == inner.agent_selection
    assert environment.last()[1:] == inner.last()[1:]
    assert environment.last()[0] is inner.observe(inner.agent_selection)
    with pytest.raises(AttributeError, match="private"):
        _ = environment._seat_of
