"""What every game's strategy provides, and the pieces the bots share.

A :class:`Strategy` bundles, for one game, the functions a search needs that the engine
does not have: a *sampler* that rebuilds full states from one seat's observation (dealing
the cards that seat cannot see at random), a heuristic *evaluation* of a state for every
seat, and a cheap *greedy* chooser. Everything here is pure: no I/O and no global random
state; randomness comes from the ``random.Random`` the caller passes, and the functions
that watch the time take a clock function.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from goatarena.games.base import Action, Observation, State, generator_copies

Sample = Callable[[random.Random], State]
"""Draws one full state consistent with an observation."""


class Sampler(Protocol):
    """Parses an observation once and returns a :data:`Sample` of states consistent with it.

    ``options`` are the game's rule options; ``history``, when given, is the public
    record of the game so far (the actions as the seat saw them, hidden parts None), for
    the games whose observation alone does not say everything the seat has seen.
    """

    def __call__(
        self,
        observation: Observation,
        options: Mapping[str, Any],
        history: Sequence[Action] | None = None,
    ) -> Sample: ...


Values = Callable[[State], list[float]]
"""A heuristic estimate, per seat, of the final score (in the game's points)."""

Policy = Callable[[State, random.Random], int]
"""Picks the index of a legal action of the seat to act (playouts use it)."""


@dataclass(frozen=True)
class Strategy:
    """The game-specific knowledge of the bundled bots for one game.

    ``scale`` is a points difference that means "clearly ahead": values are turned into
    win chances with a logistic curve of that width. ``rollout`` chooses the moves of
    the search's playouts, ``rollout_depth`` is how many decisions a playout makes before
    the evaluation takes over (0: play to the end). ``greedy_samples`` is how many
    sampled states the greedy bot averages over (1 for perfect-information games).
    """

    game: str
    sampler: Sampler
    values: Values
    scale: float
    rollout: Policy
    rollout_depth: int
    greedy_samples: int = 1

    def sample_state(
        self,
        observation: Observation,
        rng: random.Random,
        options: Mapping[str, Any] | None = None,
        history: Sequence[Action] | None = None,
    ) -> State:
        """One full state consistent with ``observation``: the seat's view is unchanged.

        The state draws its future chance from ``rng`` itself (no copy is made).
        """
        return self.sampler(observation, options or {}, history)(rng)


def blank_states(
    cls: type[State], players: int, options: Mapping[str, Any]
) -> Callable[[random.Random], Any]:
    """A maker of bare ``cls`` instances with only the base bookkeeping set, for samplers.

    The game's own ``__init__`` (which shuffles and deals) is skipped, and so is seeding
    a generator: a made state draws its future chance from the ``random.Random`` given to
    the maker. The base fields come from one state built by :meth:`State.__init__`, so
    they follow the base class.
    """
    template = State.__new__(State)
    State.__init__(template, players, 0, options)
    fields = template.__dict__

    def make(rng: random.Random) -> Any:
        state = cls.__new__(cls)
        state.__dict__.update(fields)
        state.options = dict(options)
        state.history = []
        state._legal = None
        state.rng = rng
        return state

    return make


def random_policy(state: State, rng: random.Random) -> int:
    """A uniformly random legal action."""
    return rng.randrange(len(state.legal_actions()))


def logistic(x: float) -> float:
    """1 / (1 + e^-x), safe for large arguments."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def rank_rewards(ranks: Sequence[int]) -> list[float]:
    """Per seat, the share of the other seats it beat (a tie counts half): 1 for first."""
    players = len(ranks)
    if players < 2:
        return [1.0] * players
    # The seat itself is counted as a tie with itself, hence the - 0.5.
    return [
        (sum(1.0 if mine < other else 0.5 if mine == other else 0.0 for other in ranks) - 0.5)
        / (players - 1)
        for mine in ranks
    ]


def value_rewards(values: Sequence[float], scale: float) -> list[float]:
    """Per seat, the mean chance of finishing ahead of each other seat, from values."""
    players = len(values)
    if players < 2:
        return [1.0] * players
    return [
        sum(logistic((mine - other) / scale) for j, other in enumerate(values) if j != i)
        / (players - 1)
        for i, mine in enumerate(values)
    ]


def margin(values: Sequence[float], seat: int) -> float:
    """How far ``seat`` is ahead of its strongest opponent (negative when behind)."""
    best_other = max(value for other, value in enumerate(values) if other != seat)
    return values[seat] - best_other


def state_rewards(state: State, strategy: Strategy) -> list[float]:
    """Rewards in [0, 1] per seat: by rank when the game is over, else by evaluation."""
    if state.is_over:
        return rank_rewards(state.result().ranks)
    return value_rewards(strategy.values(state), strategy.scale)


def greedy_choice(
    strategy: Strategy,
    observation: Observation,
    actions: Sequence[Action],
    rng: random.Random,
    options: Mapping[str, Any] | None = None,
    history: Sequence[Action] | None = None,
    *,
    deadline: float = math.inf,
    clock: Callable[[], float] = time.perf_counter,
) -> int:
    """The action whose outcome evaluates best for the seat, averaged over samples.

    Each action is applied to the same sampled states (common random numbers), the rest
    of the seat's own turn is completed greedily one decision at a time, and the result
    is scored as the seat's margin over its strongest opponent. Past ``deadline`` (a
    ``clock()`` time) the best action found so far is returned.
    """
    if len(actions) == 1:
        return 0
    seat = observation["seat"]
    sample = strategy.sampler(observation, options or {}, history)
    states = [sample(rng) for _ in range(strategy.greedy_samples)]
    # Every clone of a sampled state continues its generator from where it is now (the
    # same chance for every action), from one reading of the generator per state.
    generators = [generator_copies(state.rng) for state in states]
    best, best_total = 0, -math.inf
    for index in range(len(actions)):
        total = 0.0
        for state, generator in zip(states, generators):
            after = state.clone(generator())
            after.apply_index(index)
            _finish_turn(strategy, after, seat)
            total += margin(_outcome_values(strategy, after), seat)
        if total > best_total:
            best, best_total = index, total
        if clock() >= deadline:
            break
    return best


def _finish_turn(strategy: Strategy, state: State, seat: int) -> None:
    """Make the seat's remaining decisions of this turn, each by a one-step lookahead."""
    while not state.is_over and state.to_act == seat:
        legal = state.legal_actions()
        best, best_value = 0, -math.inf
        if len(legal) > 1:
            generator = generator_copies(state.rng)
            for index in range(len(legal)):
                probe = state.clone(generator())
                probe.apply_index(index)
                value = margin(_outcome_values(strategy, probe), seat)
                if value > best_value:
                    best, best_value = index, value
        state.apply_index(best)


def _outcome_values(strategy: Strategy, state: State) -> list[float]:
    if state.is_over:
        result = state.result()
        # A finished game is worth its ranks far above any heuristic difference.
        return [score - 1000.0 * rank for score, rank in zip(result.scores, result.ranks)]
    return strategy.values(state)
