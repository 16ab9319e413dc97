"""Information-set Monte Carlo tree search for every goatarena game.

The search is single-observer ISMCTS (Cowling, Powley and Whitehouse, "Information Set
Monte Carlo Tree Search", 2012), chosen over determinized UCT with root-parallel
aggregation because:

- one tree collects the statistics of every sampled deal, so a time budget of a few
  hundred iterations is not split into many shallow trees;
- it does not suffer *strategy fusion* the way per-deal trees do: a per-deal tree may
  plan a later move that only works because it "knows" that deal's hidden cards, while
  an ISMCTS node is reached by the same moves whatever the deal, so its statistics are
  averaged over the deals the seat cannot tell apart;
- games with dice or shuffles but no hidden cards (Mountain Goats) are searched the same
  way: every iteration draws its own future chance, which is open-loop MCTS over
  action sequences.

Every iteration:

1. draws a full state consistent with the seat's observation (the game's sampler);
2. descends the tree: a node's children are keyed by action, and only the children whose
   action is legal in this iteration's state compete, by UCB1 with *availability* counts
   (how often the child could have been chosen) instead of the parent's visits. The
   seats other than the searcher are keyed by what the searcher would see of their
   action (:meth:`State.public_action`), so a hidden choice (a face-down discard) is one
   branch, its card drawn at random;
3. adds one new child, then plays on with the game's playout policy, for at most the
   strategy's ``rollout_depth`` decisions when that is set, and scores the end: by ranks
   when the game is over, else by the game's evaluation turned into win chances;
4. credits every node on the path with the reward of the seat that chose its action
   (each seat is assumed to play for itself: this is the multi-player "max^n" reading).

The move played is the root child visited most. Everything runs on the games' own
engines in process; a clock function decides when to stop, checked every iteration.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from goatarena.games.base import Action, Observation, State
from goatarena.strategy.base import Strategy, state_rewards

EXPLORATION = 0.7
"""The UCB1 exploration constant for rewards in [0, 1]."""

_encode = msgspec.json.encode


def action_key(action: Action) -> Hashable:
    """A hashable key naming an action (its canonical JSON text)."""
    if isinstance(action, str | int):
        return action
    return _encode(action)


class Node:
    """One tree node: the move that leads here and its statistics.

    ``reward`` is the sum of the rewards of ``mover`` (the seat that chose the move) over
    ``visits`` iterations; ``available`` counts the iterations in which the move was legal
    when its parent was visited.
    """

    __slots__ = ("available", "children", "mover", "reward", "visits")

    def __init__(self, mover: int) -> None:
        self.mover = mover
        self.visits = 0
        self.reward = 0.0
        self.available = 0
        self.children: dict[Hashable, Node] = {}


@dataclass
class SearchResult:
    """What a search found: the chosen index, the iterations run and root statistics."""

    index: int
    iterations: int
    elapsed: float
    visits: dict[int, int] = field(default_factory=dict)


def search(
    strategy: Strategy,
    observation: Observation,
    actions: Sequence[Action],
    rng: random.Random,
    *,
    options: Mapping[str, Any] | None = None,
    history: Sequence[Action] | None = None,
    seconds: float | None = None,
    iterations: int | None = None,
    clock: Callable[[], float] = time.perf_counter,
) -> SearchResult:
    """Search from ``observation`` for at most ``seconds`` and/or ``iterations``.

    ``actions`` are the legal actions as offered; the result's index points into them.
    ``options`` and ``history`` (the public actions so far) go to the game's sampler.
    At least one iteration runs unless there is a single legal action.
    """
    started = clock()
    if len(actions) == 1:
        return SearchResult(0, 0, clock() - started)
    if seconds is None and iterations is None:
        raise ValueError("give a time budget, an iteration budget or both")
    deadline = started + seconds if seconds is not None else math.inf
    limit = iterations if iterations is not None else 1 << 62
    seat = observation["seat"]
    sample = strategy.sampler(observation, options or {}, history)
    root = Node(seat)
    done = 0
    while done < limit:
        _iterate(strategy, sample(rng), root, seat, rng)
        done += 1
        if clock() >= deadline:
            break
    keys = [action_key(action) for action in actions]
    visits = {
        index: root.children[key].visits for index, key in enumerate(keys) if key in root.children
    }
    best = max(visits, key=lambda index: (visits[index], root.children[keys[index]].reward))
    return SearchResult(best, done, clock() - started, visits)


def _iterate(strategy: Strategy, state: State, root: Node, seat: int, rng: random.Random) -> None:
    path = []
    node = root
    expanded = False
    while not state.is_over and not expanded:
        mover = state.to_act
        assert mover is not None
        legal = state.legal_actions()
        groups = _choices(state, legal, mover, seat)
        children = node.children
        untried = [key for key in groups if key not in children]
        if untried:
            key = untried[rng.randrange(len(untried))]
            child = Node(mover)
            children[key] = child
            expanded = True
        else:
            key = _select(children, groups)
            child = children[key]
        for other in groups:
            if other in children:
                children[other].available += 1
        options = groups[key]
        state.apply_index(options[0] if len(options) == 1 else rng.choice(options))
        path.append(child)
        node = child
    _playout(strategy, state, rng)
    rewards = state_rewards(state, strategy)
    for visited in path:
        visited.visits += 1
        visited.reward += rewards[visited.mover]


def _choices(state: State, legal: list[Action], mover: int, seat: int) -> dict[Hashable, list[int]]:
    """Legal action indices grouped by key: what the searching seat can tell apart."""
    groups: dict[Hashable, list[int]] = {}
    if mover == seat:
        for index, action in enumerate(legal):
            groups[action_key(action)] = [index]
        return groups
    for index, action in enumerate(legal):
        key = action_key(state.public_action(mover, action))
        groups.setdefault(key, []).append(index)
    return groups


def _select(children: dict[Hashable, Node], groups: dict[Hashable, list[int]]) -> Hashable:
    best_key: Hashable = None
    best_score = -math.inf
    for key in groups:
        child = children[key]
        score = child.reward / child.visits + EXPLORATION * math.sqrt(
            math.log(child.available) / child.visits
        )
        if score > best_score:
            best_key, best_score = key, score
    return best_key


def _playout(strategy: Strategy, state: State, rng: random.Random) -> None:
    depth = strategy.rollout_depth or 1 << 62
    policy = strategy.rollout
    while depth > 0 and not state.is_over:
        state.apply_index(policy(state, rng))
        depth -= 1
