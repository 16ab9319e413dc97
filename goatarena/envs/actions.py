"""The fixed action numbering of each game: :func:`numbering` and :class:`ActionNumbering`.

Every action any state of a game can offer, at any player count, has one number between
0 and ``size - 1`` (the tables are in :mod:`goatarena.envs.action_tables`). A state's legal
numbers and its mask come from its legal actions; a number chosen by a learner is played
through the legal action that carries it, so the engine's own legality check still holds.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import msgspec
import numpy as np

from goatarena.envs.action_tables import TABLES, freeze
from goatarena.errors import IllegalAction
from goatarena.games import find_game
from goatarena.games.base import Action, State

_encode = msgspec.json.encode

_CACHE_LIMIT = 200_000
"""Cached action objects before the cache starts again (a bound on memory for games that
build new action objects)."""
_LIST_CACHE_LIMIT = 1_024
"""Cached legal lists before that cache starts again. Most games make a new list for each
state, which the cache serves only while that state is current (its mask, then the
action played); kept by the hundred thousand, those dead lists would cost memory and
every full garbage collection. Mountain Goats' shared lists number 126."""


class ActionNumbering:
    """One game's numbered actions: the number of an action, a state's legal numbers and
    mask, and the legal action a number stands for.

    The engines share their action objects (and Mountain Goats its legal lists) between
    states, so numbers are cached by object identity; the object itself is kept in the
    cache, so that its identity cannot be reused by another while cached.
    """

    def __init__(self, game: str) -> None:
        make, self._key = TABLES[find_game(game).name]
        self.game = game
        self.actions: tuple[Action, ...] = tuple(make())
        """Every numbered action, by number (one representative of each key)."""
        self._numbers: dict[Any, int] = {}
        for number, action in enumerate(self.actions):
            key = self._key(action)
            if key in self._numbers:
                raise ValueError(f"{game}: two numbered actions share the key {key!r}")
            self._numbers[key] = number
        # Where the whole action is the key, its JSON text finds it faster than the key;
        # the key stays the rule (an object's items in another order still match).
        self._by_json: dict[bytes, int] = (
            {_encode(action): number for number, action in enumerate(self.actions)}
            if self._key is freeze
            else {}
        )
        self._by_action: dict[int, tuple[Action, int]] = {}
        self._by_list: dict[int, tuple[list[Action], list[int]]] = {}

    @property
    def size(self) -> int:
        """How many numbers the game's actions use: the action space's size."""
        return len(self.actions)

    def number(self, action: Action) -> int:
        """The number of ``action``; ``KeyError`` for a value no state can offer."""
        cached = self._by_action.get(id(action))
        if cached is not None and cached[0] is action:
            return cached[1]
        number = self._by_json.get(_encode(action)) if self._by_json else None
        if number is None:
            number = self._numbers[self._key(action)]
        if len(self._by_action) >= _CACHE_LIMIT:
            self._by_action.clear()
        self._by_action[id(action)] = (action, number)
        return number

    def legal_numbers(self, state: State) -> list[int]:
        """The numbers of the legal actions of ``state``, in the order the engine offers
        them (so ``legal_numbers(state)[i]`` is the number of ``legal_actions()[i]``)."""
        legal = state.legal_actions()
        cached = self._by_list.get(id(legal))
        if cached is not None and cached[0] is legal:
            return cached[1]
        # number(), inlined for the actions already met (the most of them, once warm).
        known, number = self._by_action.get, self.number
        numbers = []
        for action in legal:
            met = known(id(action))
            numbers.append(met[1] if met is not None and met[0] is action else number(action))
        if len(self._by_list) >= _LIST_CACHE_LIMIT:
            self._by_list.clear()
        self._by_list[id(legal)] = (legal, numbers)
        return numbers

    def mask(self, state: State) -> np.ndarray:
        """A 0/1 ``int8`` vector of ``size``: 1 at the number of every legal action."""
        mask = bytearray(self.size)  # set in a bytearray and handed to NumPy: no copy
        for number in self.legal_numbers(state):
            mask[number] = 1
        return np.frombuffer(mask, dtype=np.int8)

    def index_of(self, state: State, number: int) -> int:
        """The place in ``state.legal_actions()`` of the action numbered ``number``;
        :class:`IllegalAction` when no legal action has that number."""
        try:
            return self.legal_numbers(state).index(int(number))
        except ValueError:
            raise IllegalAction(f"action number {number} is not legal now") from None

    def apply(self, state: State, number: int) -> Action:
        """Play the legal action numbered ``number`` in ``state`` and return it."""
        return state.apply_index(self.index_of(state, number))


@cache
def numbering(game: str) -> ActionNumbering:
    """The action numbering of ``game`` (built once per process)."""
    return ActionNumbering(find_game(game).name)
