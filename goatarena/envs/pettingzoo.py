"""The games as PettingZoo AEC environments: ``env(game, players=2)``.

Needs the ``rl`` extra (``pip install 'goatarena[rl]'``: pettingzoo and gymnasium). Agents
are ``player_0`` ... by seat. An agent's observation is a dict: ``"observation"``, its
observation vector (:mod:`goatarena.envs.vectors`), and ``"action_mask"``, an ``int8``
mask over the game's numbered actions (:mod:`goatarena.envs.actions`), all zeros for an
agent that is not deciding. The agent to act is the seat the game asks, which is not
always the next in turn (a duel's defender, a consent): follow ``agent_selection``.

Rewards come only at the end, from the result's ranks: each agent gets the mean, over the
other seats, of +1 for each it finished ahead of, -1 behind, 0 tied (so they sum to 0,
and in a two-player game they are the win, the loss or the draw).

``reset(seed=s)`` starts the goatarena game of seed ``s`` (the same deal as
``goatarena play`` with that seed); a later ``reset()`` without a seed takes the next
seed from a generator seeded by ``s``. ``render()`` is the game's text board.
"""

from __future__ import annotations

import random
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from goatarena.envs.actions import numbering
from goatarena.envs.rewards import zero_sum_rewards
from goatarena.envs.vectors import encoder
from goatarena.games import find_game
from goatarena.games.base import State


class GoatArenaEnv(AECEnv):
    """One goatarena game as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {"render_modes": ["human", "ansi"], "is_parallelizable": False}

    def __init__(
        self,
        game: str,
        players: int = 2,
        options: dict[str, Any] | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.info = find_game(game)
        self.game_options = self.info.check_options(players, options)
        self.players = players
        self.render_mode = render_mode
        self.metadata = {
            **self.metadata,
            "name": f"goatarena_{self.info.name.replace('-', '_')}_v0",
        }
        self.numbering = numbering(self.info.name)
        self.encoder = encoder(self.info.name)
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self._seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        vector = spaces.Box(-np.inf, np.inf, (self.encoder.size,), np.float32)
        mask = spaces.Box(0, 1, (self.numbering.size,), np.int8)
        self.observation_spaces = {
            agent: spaces.Dict({"observation": vector, "action_mask": mask})
            for agent in self.possible_agents
        }
        self.action_spaces = {
            agent: spaces.Discrete(self.numbering.size) for agent in self.possible_agents
        }
        self._seeds = random.Random()
        self.game_state: State | None = None
        """The goatarena game being played (PettingZoo's own state() is another thing)."""
        self._observed: dict[str, dict[str, np.ndarray]] = {}

    def observation_space(self, agent: str) -> spaces.Space:
        """The observation space of ``agent`` (the same object every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """The action space of ``agent``: the game's numbered actions."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game: of seed ``seed``, or of the next seed (see the module).

        ``options`` is accepted as the API requires and unused: the game's options are
        the environment's, fixed when it is made.
        """
        if seed is not None:
            self._seeds = random.Random(seed)
            game_seed = seed
        else:
            game_seed = self._seeds.getrandbits(63)
        self.game_state = self.info.new_state(self.players, game_seed, self.game_options)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: dict[str, Any]() for agent in self.agents}
        self._observed = {}
        self.agent_selection = self.possible_agents[self.game_state.to_act or 0]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation vector and action mask now (computed once per step)."""
        observed = self._observed.get(agent)
        if observed is None:
            state = self._playing()
            seat = self._seat_of[agent]
            if state.to_act == seat:
                mask = self.numbering.mask(state)
            else:
                mask = np.zeros(self.numbering.size, dtype=np.int8)
            vector = self.encoder.encode_state(state, seat)
            observed = self._observed[agent] = {"observation": vector, "action_mask": mask}
        return observed

    def step(self, action: int | None) -> None:
        """Play the action numbered ``action`` for ``agent_selection``; after the end,
        ``None`` retires a finished agent. A number not legal now raises
        :class:`goatarena.errors.IllegalAction`."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self._playing()
        self._cumulative_rewards[agent] = 0.0
        self.numbering.apply(state, int(action))  # type: ignore[arg-type]
        self._observed = {}
        to_act = state.to_act
        if to_act is None:
            for seat, reward in enumerate(zero_sum_rewards(state.result())):
                self.rewards[self.possible_agents[seat]] = reward
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
        else:
            # Rewards come only at the end: until then they are all 0 and stay so, with
            # nothing to clear or add up.
            self.agent_selection = self.possible_agents[to_act]
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The game's text board: returned with ``render_mode="ansi"``, printed with
        ``"human"``; nothing (and a warning) without a render mode."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        board = self._playing().render()
        if self.render_mode == "human":
            print(board)
            return None
        return board

    def close(self) -> None:
        """Nothing to release: the game is a plain Python object."""

    def _playing(self) -> State:
        if self.game_state is None:
            raise RuntimeError("call reset() before using the environment")
        return self.game_state


def raw_env(
    game: str,
    players: int = 2,
    options: dict[str, Any] | None = None,
    render_mode: str | None = None,
) -> GoatArenaEnv:
    """The environment without PettingZoo's order-enforcing wrapper (a little faster)."""
    return GoatArenaEnv(game, players, options, render_mode)


def env(
    game: str,
    players: int = 2,
    options: dict[str, Any] | None = None,
    render_mode: str | None = None,
) -> AECEnv:
    """A PettingZoo AEC environment of ``game`` for ``players`` seats (see the module),
    wrapped in PettingZoo's order-enforcing wrapper as PettingZoo's own ``env()`` do."""
    return OrderEnforcing(raw_env(game, players, options, render_mode))


def _read_after_reset(name: str) -> property:
    """An attribute of the wrapped environment, refused before ``reset`` as PettingZoo's
    wrapper refuses it."""

    def read(self: OrderEnforcing) -> Any:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    return property(read, doc=f"The environment's ``{name}`` (after ``reset``).")


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order-enforcing wrapper with the same checks, its hot path direct.

    PettingZoo's wrapper finds every attribute of the environment through two
    ``__getattr__`` calls; a step reads eight (the agent iterator, ``last``, ``step``),
    which cost more than the engine's step. Here those attributes are properties that
    read the environment at once, and ``last`` is the environment's own.
    """

    agent_selection = _read_after_reset("agent_selection")
    agents = _read_after_reset("agents")
    rewards = _read_after_reset("rewards")
    terminations = _read_after_reset("terminations")
    truncations = _read_after_reset("truncations")
    infos = _read_after_reset("infos")

    @property
    def _cumulative_rewards(self) -> dict[str, float]:
        return self.env._cumulative_rewards

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The observation, reward, termination, truncation and info of the agent to act
        (refused before ``reset``, like the attributes it reads)."""
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)
