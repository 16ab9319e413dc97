"""The games as OpenSpiel Python games: ``pyspiel.load_game("goatarena_mountain_goats")``.

Needs the ``rl`` extra (``pip install 'goatarena[rl]'``: open_spiel). Importing this module
registers the four games under ``goatarena_`` plus the game's name with underscores:
``goatarena_goat_lords``, ``goatarena_goat_n_goat``, ``goatarena_herr_der_ziegen``,
``goatarena_mountain_goats``. Parameters: ``players`` (the least allowed count by default),
``seed`` (of the generator that seeds each new game; -1, the default, seeds it from the
operating system) and the game's own options (Goat Lords' ``rounds``).

Actions are the game's numbers (:mod:`goatarena.envs.actions`); the observation tensor is
the seat's observation vector (:mod:`goatarena.envs.vectors`) and the observation string
its JSON observation. Chance is the engine's own, drawn from the game's seeded generator
(OpenSpiel's *sampled stochastic* games: no chance nodes). Returns are zero-sum, from the
ranks, as in the PettingZoo environment.
"""

from __future__ import annotations

import random
from typing import Any

import msgspec
import numpy as np
import pyspiel

from goatarena.envs.actions import ActionNumbering, numbering
from goatarena.envs.rewards import zero_sum_rewards
from goatarena.envs.vectors import encoder
from goatarena.games import GAMES, find_game
from goatarena.games.base import GameInfo, State

MAX_GAME_LENGTH = {"goat-lords": 4000, "goat-n-goat": 2000, "herr-der-ziegen": 2000}
"""Decisions a game is taken never to exceed: ten times the longest of 150 random games
per player count (at most 407, 119 and 195). Mountain Goats' is exact (100 rounds); Goat
Lords' grows with its ``rounds`` option."""


def short_name(game: str) -> str:
    """The OpenSpiel name of a goatarena game: ``goatarena_mountain_goats``."""
    return "goatarena_" + find_game(game).name.replace("-", "_")


def max_game_length(info: GameInfo, players: int, options: dict[str, Any]) -> int:
    """An upper bound on the decisions of one game (see :data:`MAX_GAME_LENGTH`)."""
    if info.name == "mountain-goats":
        return 100 * players
    if info.name == "goat-lords" and options.get("rounds"):
        return max(MAX_GAME_LENGTH[info.name], 2000 * options["rounds"])
    return MAX_GAME_LENGTH[info.name]


def game_type(info: GameInfo) -> pyspiel.GameType:
    """The OpenSpiel description of ``info``'s game."""
    return pyspiel.GameType(
        short_name=short_name(info.name),
        long_name=f"goatarena {info.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=(
            pyspiel.GameType.Information.IMPERFECT_INFORMATION
            if info.hidden_information
            else pyspiel.GameType.Information.PERFECT_INFORMATION
        ),
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=info.max_players,
        min_num_players=info.min_players,
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"players": info.min_players, "seed": -1, **info.default_options},
    )


class GoatArenaGame(pyspiel.Game):
    """A goatarena game for OpenSpiel; one subclass per game sets :attr:`info`."""

    info: GameInfo

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        players = int(params.get("players", self.info.min_players))
        seed = int(params.get("seed", -1))
        options = {key: params[key] for key in self.info.default_options if key in params}
        self.options = self.info.check_options(players, options)
        self.numbering: ActionNumbering = numbering(self.info.name)
        game_info = pyspiel.GameInfo(
            num_distinct_actions=self.numbering.size,
            max_chance_outcomes=0,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=max_game_length(self.info, players, self.options),
        )
        super().__init__(game_type(self.info), game_info, params)
        self.seeds = random.Random() if seed < 0 else random.Random(seed)

    def new_initial_state(self) -> GoatArenaState:
        """A new game, dealt from the next seed (drawn when the state is first used)."""
        return GoatArenaState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> GoatArenaObserver:
        """The observer of a seat's observation (its vector and its JSON text)."""
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            raise ValueError("goatarena games provide observations, not information states")
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        return GoatArenaObserver(self.info.name)


class _Engine:
    """The goatarena state inside an OpenSpiel state, made on first use.

    OpenSpiel clones a Python state by making a new initial state and deep-copying its
    attributes over it: the lazy deal keeps those throwaway states from drawing seeds
    (which would change the games a seeded generator deals), and ``__deepcopy__`` clones
    through the engine's own fast ``clone``.
    """

    def __init__(self, game: GoatArenaGame, state: State | None = None) -> None:
        self.game = game
        self._state = state

    @property
    def state(self) -> State:
        if self._state is None:
            game = self.game
            seed = game.seeds.getrandbits(63)
            self._state = game.info.new_state(game.num_players(), seed, game.options)
        return self._state

    def __deepcopy__(self, memo: dict[int, Any]) -> _Engine:
        return _Engine(self.game, self.state.clone())


class GoatArenaState(pyspiel.State):
    """A goatarena game in progress, as an OpenSpiel state."""

    def __init__(self, game: GoatArenaGame) -> None:
        super().__init__(game)
        self.engine = _Engine(game)

    @property
    def goatarena_state(self) -> State:
        """The goatarena state (a live reference: apply actions through OpenSpiel)."""
        return self.engine.state

    def current_player(self) -> int:
        """The seat to decide, or ``pyspiel.PlayerId.TERMINAL``."""
        seat = self.engine.state.to_act
        return pyspiel.PlayerId.TERMINAL if seat is None else seat

    def _legal_actions(self, player: int) -> list[int]:
        state = self.engine.state
        if player != state.to_act:
            return []
        return sorted(self.engine.game.numbering.legal_numbers(state))

    def _apply_action(self, action: int) -> None:
        self.engine.game.numbering.apply(self.engine.state, action)

    def _action_to_string(self, player: int, action: int) -> str:
        return msgspec.json.encode(self.engine.game.numbering.actions[action]).decode()

    def is_terminal(self) -> bool:
        """True once the game is over."""
        return self.engine.state.to_act is None

    def returns(self) -> list[float]:
        """Zero until the end; then per seat +1/-1/0 against each other seat, averaged."""
        state = self.engine.state
        if state.to_act is not None:
            return [0.0] * state.players
        return zero_sum_rewards(state.result())

    def __str__(self) -> str:
        return self.engine.state.render()


class GoatArenaObserver:
    """OpenSpiel's observer interface: ``tensor`` (the observation vector), ``dict``
    (the same under "observation") and ``string_from`` (the JSON observation)."""

    def __init__(self, game: str) -> None:
        self.encoder = encoder(game)
        self.tensor = np.zeros(self.encoder.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: GoatArenaState, player: int) -> None:
        """Fill :attr:`tensor` with ``player``'s observation vector of ``state``."""
        self.tensor[:] = self.encoder.encode_state(state.goatarena_state, player)

    def string_from(self, state: GoatArenaState, player: int) -> str:
        """``player``'s JSON observation of ``state``."""
        return msgspec.json.encode(state.goatarena_state.observation(player)).decode()


def _game_class(info: GameInfo) -> type[GoatArenaGame]:
    name = "".join(part.title() for part in info.name.split("-")) + "SpielGame"
    return type(name, (GoatArenaGame,), {"info": info, "__doc__": f"{info.title} for OpenSpiel."})


GAME_CLASSES = {name: _game_class(info) for name, info in GAMES.items()}
"""The OpenSpiel game class of every goatarena game, by goatarena name."""

for _name, _class in GAME_CLASSES.items():
    pyspiel.register_game(game_type(GAMES[_name]), _class)


def spiel_state(game: pyspiel.Game, state: State) -> GoatArenaState:
    """An OpenSpiel state of ``game`` (a loaded goatarena game) playing on from ``state``,
    a goatarena state of the same game and player count (a sampled deal, say). The
    OpenSpiel state's history starts empty: it holds only what is played through it."""
    if not isinstance(game, GoatArenaGame) or game.info is not state.info:
        raise ValueError(f"{game} is not the OpenSpiel game of {state.info.name}")
    if state.players != game.num_players():
        raise ValueError(f"{game} has {game.num_players()} players, the state {state.players}")
    spiel = GoatArenaState(game)
    spiel.engine = _Engine(game, state)
    return spiel


def load_game(game: str, players: int = 2, **params: Any) -> pyspiel.Game:
    """``pyspiel.load_game`` of a goatarena game by its goatarena name."""
    return pyspiel.load_game(short_name(game), {"players": players, **params})
