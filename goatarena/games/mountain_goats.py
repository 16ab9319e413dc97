"""Mountain Goats (Stefan Risthaus, 2020) for 2-4 players, as ``rules/mountain-goats.md``.

Each turn one seat rolls four dice, may turn extra 1s into any face, groups the dice and
climbs the mountains named by the group sums. The choices offered are the distinct
multisets of mountains moved, each with one concrete setting and grouping of the dice.
There is no hidden information; chance is the dice.
"""

from __future__ import annotations

import itertools
import operator
import random
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from goatarena.errors import IllegalAction
from goatarena.games.base import Action, GameInfo, Observation, Result, State, ranks_from_keys

# -- constants -------------------------------------------------------------------------

MOUNTAINS = (5, 6, 7, 8, 9, 10)
HEIGHTS = (4, 4, 3, 3, 2, 2)
"""Steps from foot to summit, per mountain in the order of MOUNTAINS."""
TOKENS_FOUR_PLAYERS = (12, 11, 10, 9, 8, 7)
"""Point tokens per summit with 4 players; one fewer each with 3, two fewer with 2."""
TOKENS_REMOVED = {2: 2, 3: 1, 4: 0}
SUPPLY = {
    players: tuple(count - removed for count in TOKENS_FOUR_PLAYERS)
    for players, removed in TOKENS_REMOVED.items()
}
"""Point tokens per summit at the start, by the number of players."""
BONUSES = (15, 12, 9, 6)
MAX_ROUNDS = 100
"""Resolution (stalling): the game also ends after every seat has had 100 turns."""
DICE = 4
MOUNTAIN_INDEX = {mountain: index for index, mountain in enumerate(MOUNTAINS)}
CLIMBS = {mountain: (index, HEIGHTS[index]) for index, mountain in enumerate(MOUNTAINS)}
"""Per mountain, what a turn needs to climb it: its index and its height."""
Plays = tuple[list[dict[str, Any]], list[tuple[tuple[int, int], ...]], tuple[int, ...]]
"""A roll's choices, per choice its climbs, and the dice as rolled.

A climb is (mountain index, height) for a mountain moved, so that a turn needs no lookup
per mountain. The choices and climbs are shared by every order of the same dice.
"""
_PLAYS_BY_DICE: list[list[list[list[Plays | None]]]] = [
    [[[None] * 6 for _ in range(6)] for _ in range(6)] for _ in range(6)
]
"""The plays of every roll in the order rolled, by dice less one, filled on first use.

Nested lists rather than one list by a computed number: four indexings cost less than
the arithmetic. The lists and tuples are shared by every state: never change them.
"""


# -- the state ---------------------------------------------------------------------------


class MountainGoatsState(State):
    """A Mountain Goats game in progress; the seat to act has just rolled.

    The legal choices of the roll and their climbs (``_climbs``, parallel to the cached
    legal actions) are set together whenever the dice are rolled or the choices are
    computed again from ``dice``, so a decision looks nothing up. The list
    ``legal_actions()`` returns is shared with every state that rolled the same dice:
    nothing may change it in place.
    """

    is_over: bool = False
    """True once no seat has anything left to decide.

    A plain field rather than the base's property: a playout reads it every decision.
    """

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(players, seed, options)
        self.supply = list(SUPPLY[players])
        self.steps = [[0, 0, 0, 0, 0, 0] for _ in range(players)]
        self.tokens = [[0, 0, 0, 0, 0, 0] for _ in range(players)]
        self.bonuses: list[list[int]] = [[] for _ in range(players)]
        self.bonus_left = list(BONUSES)
        self.seat = 0
        self.round = 1
        self.ending = False
        self.is_over = False
        bits = self.rng.getrandbits
        first, second, third, fourth = die(bits), die(bits), die(bits), die(bits)
        self._climbs: list[tuple[tuple[int, int], ...]]
        """Per legal action, its climbs (see ``Plays``); set whenever ``_legal`` is."""
        self.dice: Sequence[int]
        """The four dice as rolled: a tuple shared from the table of rolls (no list to
        build per roll); assign a new sequence to change them."""
        self._legal, self._climbs, self.dice = plays_for_dice(first, second, third, fourth)

    @property
    def over(self) -> bool:
        """The same as ``is_over``; samplers and tests set it to end a game by hand."""
        return self.is_over

    @over.setter
    def over(self, value: bool) -> None:
        self.is_over = value

    def _to_act(self) -> int | None:
        return None if self.is_over else self.seat

    def _legal_actions(self) -> list[Action]:
        dice = self.dice
        legal, self._climbs, _ = plays_for_dice(dice[0] - 1, dice[1] - 1, dice[2] - 1, dice[3] - 1)
        return legal

    def apply(self, action: Action) -> None:
        """Apply a legal action; raise :class:`IllegalAction` for any other value.

        The action is played by its index, so both ways of applying share one turn.
        """
        legal = self.legal_actions()
        try:
            index = legal.index(action)
        except ValueError:
            raise IllegalAction(f"{action!r} is not a legal action now") from None
        self.apply_index(index)

    def _apply(self, action: Action) -> None:
        # The base calls this hook only from its own apply, which is replaced above.
        raise NotImplementedError("Mountain Goats applies every action through apply_index")

    def apply_index(self, index: int) -> Action:
        """Apply the ``index``-th legal action and return it.

        The whole turn is here, in one function, since a playout spends its time here.
        """
        legal = self._legal
        if legal is None:
            legal = self.legal_actions()
        # A negative index would count from the end; one too large raises IndexError.
        if index < 0:
            raise IllegalAction(f"action index {index} is outside 0..{len(legal) - 1}")
        try:
            action = legal[index]
        except IndexError:
            raise IllegalAction(f"action index {index} is outside 0..{len(legal) - 1}") from None
        self.history.append(action)
        climbs = self._climbs[index]
        # Each mountain moved is one step up, or one more token for a goat already on
        # its summit; reaching a summit knocks every other goat there back to the foot.
        seat = self.seat
        steps = self.steps[seat]
        for column, summit in climbs:
            step = steps[column]
            if step < summit:
                steps[column] = step = step + 1
                if step < summit:
                    continue
                for row in self.steps:
                    if row[column] == summit:
                        row[column] = 0
                steps[column] = summit
            supply = self.supply
            left = supply[column]
            if left:
                supply[column] = left - 1
                tokens = self.tokens[seat]
                held = tokens[column] + 1
                tokens[column] = held
                # The seat's complete sets grew exactly when this was its only kind held
                # fewest times; then it takes the next bonus, if one is left. (Any kind
                # still missing settles it without min.)
                if 0 not in tokens and min(tokens) == held and self.bonus_left:
                    self.bonuses[seat].append(self.bonus_left.pop(0))
                    # The last bonus taken, or a third mountain out of tokens, ends the
                    # game after this round.
                    if not self.bonus_left:
                        self.ending = True
                if left == 1 and supply.count(0) >= 3:
                    self.ending = True
        seat += 1
        if seat == self.players:
            if self.ending or self.round >= MAX_ROUNDS:
                self.is_over = True
                self._legal = None
                return action
            self.round += 1
            seat = 0
        self.seat = seat
        # The next seat's four dice, each drawn as die() draws it (inlined: four calls
        # less per decision).
        bits = self.rng.getrandbits
        first = bits(3)
        while first > 5:
            first = bits(3)
        second = bits(3)
        while second > 5:
            second = bits(3)
        third = bits(3)
        while third > 5:
            third = bits(3)
        fourth = bits(3)
        while fourth > 5:
            fourth = bits(3)
        self._legal, self._climbs, self.dice = _PLAYS_BY_DICE[first][second][third][
            fourth
        ] or plays_for_dice(first, second, third, fourth)
        return action

    # -- scoring -------------------------------------------------------------------------

    def score(self, seat: int) -> int:
        """Token values plus bonus tokens of ``seat``."""
        return sum(map(operator.mul, self.tokens[seat], MOUNTAINS)) + sum(self.bonuses[seat])

    def summits(self, seat: int) -> list[int]:
        """The mountains whose summit ``seat``'s goat stands on, highest first."""
        return [
            mountain
            for mountain, step, height in zip(MOUNTAINS, self.steps[seat], HEIGHTS)
            if step == height
        ][::-1]

    def _result(self) -> Result:
        scores = [self.score(seat) for seat in range(self.players)]
        keys = [
            (scores[seat], len(self.summits(seat)), self.summits(seat))
            for seat in range(self.players)
        ]
        return Result(scores=[float(score) for score in scores], ranks=ranks_from_keys(keys))

    def clone(self, rng: random.Random | None = None) -> MountainGoatsState:
        """A copy made field by field (deepcopy is a hundred times slower)."""
        other = self._copy_bookkeeping(rng)
        other.supply = list(self.supply)
        other.steps = list(map(list, self.steps))
        other.tokens = list(map(list, self.tokens))
        other.bonuses = list(map(list, self.bonuses))
        other.bonus_left = list(self.bonus_left)
        other.dice = tuple(self.dice)  # the same tuple, or an unshared copy of a list
        return other

    # -- what a seat sees ----------------------------------------------------------------

    def observation(self, seat: int) -> Observation:
        """Everything: there is no hidden information in Mountain Goats.

        Every list is a new one, so the caller may keep or change it. Built without a
        call per seat: the referee asks for one every decision.
        """
        tokens = self.tokens
        bonuses = self.bonuses
        return {
            "seat": seat,
            "to_act": None if self.is_over else self.seat,
            "round": self.round,
            "dice": list(self.dice),
            "mountains": list(MOUNTAINS),
            "heights": list(HEIGHTS),
            "steps": list(map(list, self.steps)),
            "supply": list(self.supply),
            "tokens": list(map(list, tokens)),
            "bonus_left": list(self.bonus_left),
            "bonuses": list(map(list, bonuses)),
            "scores": [
                sum(map(operator.mul, held, MOUNTAINS)) + sum(taken)
                for held, taken in zip(tokens, bonuses)
            ],
            "ending": self.ending,
        }

    def render(self) -> str:
        """The mountains with every seat's goat, the supplies and the scores."""
        lines = [f"round {self.round}  dice {list(self.dice)}  bonus left {self.bonus_left}"]
        for index, mountain in enumerate(MOUNTAINS):
            goats = " ".join(f"{seat}@{self.steps[seat][index]}" for seat in range(self.players))
            lines.append(
                f"  mountain {mountain:>2} (height {HEIGHTS[index]}, {self.supply[index]:>2}"
                f" tokens left): {goats}"
            )
        scores = ", ".join(f"seat {seat}: {self.score(seat)}" for seat in range(self.players))
        lines.append(f"  scores: {scores}")
        return "\n".join(lines)


# -- helpers -----------------------------------------------------------------------------


def set_partitions(items: list[int]) -> list[list[list[int]]]:
    """Every way of splitting ``items`` into non-empty groups (order of groups ignored)."""
    if not items:
        return [[]]
    first, rest = items[0], items[1:]
    partitions = []
    for smaller in set_partitions(rest):
        partitions.append([[first], *smaller])
        for index in range(len(smaller)):
            partitions.append([*smaller[:index], [first, *smaller[index]], *smaller[index + 1 :]])
    return partitions


def one_settings(roll: tuple[int, ...]) -> list[list[int]]:
    """The dice values reachable by turning all 1s but one into any face."""
    ones = roll.count(1)
    others = [value for value in roll if value != 1]
    if ones < 2:
        return [list(roll)]
    faces = itertools.product(range(1, 7), repeat=ones - 1)
    return [sorted([1, *others, *changed]) for changed in faces]


def die(bits: Callable[[int], int]) -> int:
    """A die less one, drawn from ``getrandbits`` exactly as ``randint(1, 6) - 1`` draws it.

    ``randint(1, 6)`` takes three random bits and draws again on 6 or 7; doing that here
    skips its layers of Python calls and keeps every seeded game the same.
    """
    value = bits(3)
    while value > 5:
        value = bits(3)
    return value


def plays_for_dice(first: int, second: int, third: int, fourth: int) -> Plays:
    """The plays of the roll of these dice, each less one (see ``_PLAYS_BY_DICE``)."""
    plays = _PLAYS_BY_DICE[first][second][third][fourth]
    if plays is None:
        rolled = (first + 1, second + 1, third + 1, fourth + 1)
        choices, climbs = plays_for_roll(tuple(sorted(rolled)))
        plays = _PLAYS_BY_DICE[first][second][third][fourth] = (choices, climbs, rolled)
    return plays


@cache
def plays_for_roll(
    roll: tuple[int, ...],
) -> tuple[list[dict[str, Any]], list[tuple[tuple[int, int], ...]]]:
    """The choices of a sorted roll with, per choice, (mountain index, height) per climb."""
    choices = list(choices_for_roll(roll))
    climbs = [tuple(map(CLIMBS.__getitem__, choice["move"])) for choice in choices]
    return choices, climbs


@cache
def choices_for_roll(roll: tuple[int, ...]) -> tuple[dict[str, Any], ...]:
    """The distinct multisets of mountains a sorted roll can move, each with one grouping."""
    found: dict[tuple[int, ...], list[list[int]]] = {}
    for dice in one_settings(roll):
        for groups in set_partitions(dice):
            move = tuple(sorted(sum(group) for group in groups if 5 <= sum(group) <= 10))
            if move not in found:
                found[move] = sorted(sorted(group) for group in groups)
    ordered = sorted(found, key=lambda move: (len(move), move))
    return tuple({"move": list(move), "groups": found[move]} for move in ordered)


INFO = GameInfo(
    name="mountain-goats",
    title="Mountain Goats",
    min_players=2,
    max_players=4,
    state_class=MountainGoatsState,
    hidden_information=False,
    summary="dice: group four dice to climb mountains 5-10 and hold their summits",
)
