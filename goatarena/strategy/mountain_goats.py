"""Mountain Goats: states from observations, an evaluation and a playout policy.

There is no hidden information: a sampled state is the observed one, and only the
future dice (the state's generator) are random.

The evaluation estimates each seat's final score as its score now plus what its goats
are worth where they stand: a goat on a summit takes a token on every later climb of
that mountain, a goat near a summit is close to one, and a seat close to a full set of
tokens is close to the next bonus. Climbs are worth nothing once a mountain's tokens are
gone, and positions are worth less the nearer the end.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, cast

from goatarena.games.base import Action, Observation, State
from goatarena.games.mountain_goats import HEIGHTS, MOUNTAIN_INDEX, MOUNTAINS, MountainGoatsState
from goatarena.strategy.base import Sample, Strategy, blank_states

SUMMIT_WORTH = 1.3
"""Tokens a goat on a summit is expected to take from now on."""
CLIMB_WORTH = 0.8
"""Tokens a goat one step below a summit is expected to take (less further down)."""
CLIMB_CURVE = 1.6
"""How steeply a climb's worth falls with the steps still to go."""
BONUS_WORTH = 0.8
"""The share of the next bonus a seat with five of six kinds of token can expect."""
ROLLOUT_EPSILON = 0.25
"""How often a playout move is uniformly random instead of the climb-most move."""


def sampler(
    observation: Observation,
    options: Mapping[str, Any],
    history: Sequence[Action] | None = None,
) -> Sample:
    """The observed state, with future dice drawn from the generator it is given."""
    players = len(observation["steps"])
    to_act = observation["to_act"]
    fields = {
        "supply": observation["supply"],
        "steps": observation["steps"],
        "tokens": observation["tokens"],
        "bonuses": observation["bonuses"],
        "bonus_left": observation["bonus_left"],
    }

    blank = blank_states(MountainGoatsState, players, options)

    def sample(rng: random.Random) -> State:
        state = blank(rng)
        state.supply = list(fields["supply"])
        state.steps = [list(row) for row in fields["steps"]]
        state.tokens = [list(row) for row in fields["tokens"]]
        state.bonuses = [list(row) for row in fields["bonuses"]]
        state.bonus_left = list(fields["bonus_left"])
        state.seat = to_act if to_act is not None else 0
        state.round = observation["round"]
        state.ending = observation["ending"]
        state.over = to_act is None
        state.dice = list(observation["dice"])
        return state

    return sample


def values(state: State) -> list[float]:
    """Each seat's score plus the estimated worth of its goats and its sets."""
    state = cast(MountainGoatsState, state)
    life = 0.2 if state.ending else 1.0
    worth = [float(state.score(seat)) for seat in range(state.players)]
    for index, (mountain, height) in enumerate(zip(MOUNTAINS, HEIGHTS)):
        if state.supply[index] == 0:
            continue
        for seat in range(state.players):
            step = state.steps[seat][index]
            if step == height:
                tokens = min(SUMMIT_WORTH, state.supply[index])
            else:
                tokens = CLIMB_WORTH * (step / height) ** CLIMB_CURVE
            worth[seat] += life * mountain * tokens
    if state.bonus_left:
        bonus = state.bonus_left[0]
        for seat in range(state.players):
            held = state.tokens[seat]
            sets = min(held)
            kinds = 0
            possible = True
            for index, count in enumerate(held):
                if count > sets:
                    kinds += 1
                elif state.supply[index] == 0:
                    possible = False
            if possible:
                worth[seat] += life * BONUS_WORTH * bonus * (kinds / 5) ** 3
    return worth


def rollout(state: State, rng: random.Random) -> int:
    """Mostly the move that climbs the most points of mountains with tokens left."""
    state = cast(MountainGoatsState, state)
    legal = state.legal_actions()
    if rng.random() < ROLLOUT_EPSILON:
        return rng.randrange(len(legal))
    supply = state.supply
    best, best_gain = 0, -1.0
    for index, action in enumerate(legal):
        gain = 0.0
        for mountain in action["move"]:
            if supply[MOUNTAIN_INDEX[mountain]]:
                gain += mountain
        gain += rng.random()  # random tie-break among equal moves
        if gain > best_gain:
            best, best_gain = index, gain
    return best


STRATEGY = Strategy(
    game="mountain-goats",
    sampler=sampler,
    values=values,
    scale=12.0,
    rollout=rollout,
    rollout_depth=10,
)
