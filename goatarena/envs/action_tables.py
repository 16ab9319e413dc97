"""The action tables: every action a game can offer, at any player count, in a fixed order.

Each table is a tuple of *keys*, a key being a hashable form of one action (see
:func:`action_key`); an action's number is its key's place in the table. The tables are
built here from the games' own card data, once, in an order that never changes as long
as that data does: appending to a game's data appends numbers, it never renumbers.

What a key keeps of an action is what tells apart two choices of one decision: in
Mountain Goats the mountains climbed (one decision never offers two groupings of the same
climb), elsewhere the whole action.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

from goatarena.games import goat_lords_tables as lords
from goatarena.games import goat_n_goat_tables as gng
from goatarena.games import herr_der_ziegen_tables as hdz
from goatarena.games import mountain_goats as goats
from goatarena.games.base import Action

Key = Any
"""A hashable form of an action: JSON lists become tuples, objects sorted item tuples."""


def freeze(value: Any) -> Key:
    """A hashable value equal for equal JSON values (lists to tuples, dicts to item tuples)."""
    if isinstance(value, list | tuple):
        return tuple(map(freeze, value))
    if isinstance(value, dict):
        return tuple(sorted((name, freeze(item)) for name, item in value.items()))
    return value


def mountain_goats_key(action: Action) -> Key:
    """A Mountain Goats choice is the multiset of mountains it climbs."""
    return ("move", tuple(action["move"]))


def _multisets(limits: dict[Any, int], size: int) -> Iterator[tuple[Any, ...]]:
    """Every multiset of ``size`` items, each item at most ``limits[item]`` times, as a
    tuple in the order of ``limits``."""
    for combination in itertools.combinations_with_replacement(list(limits), size):
        if all(combination.count(item) <= limit for item, limit in limits.items()):
            yield combination


def goat_lords_actions() -> list[Action]:
    """Births, assisted births, duels (per target seat 0-5 and opening card), discards,
    answers in a duel, and "yield"."""
    duels = [action for per_target in lords.DUEL for action in per_target]
    return [
        *lords.BIRTH,
        *lords.ASSISTED_BIRTH,
        *duels,
        *lords.DISCARD,
        *lords.PLAY,
        lords.YIELD,
    ]


def goat_n_goat_actions() -> list[Action]:
    """Plays (per number, the colours' counts), takes (row multisets of one to five cards,
    at most a card's copies), discards, trades (colour by mountain value) and "decline"."""
    actions: list[Action] = []
    for number in gng.NUMBERS:
        cards = {
            gng.CODES[gng.card_type(colour, number)]: gng.COPIES[number] for colour in (0, 1, 2)
        }
        for size in range(1, gng.HAND_LIMIT + 1):
            actions += [{"play": list(chosen)} for chosen in _multisets(cards, size)]
    copies = {code: gng.COPIES[number] for code, (_, number) in zip(gng.CODES, gng.CARD_TYPES)}
    for size in range(1, max(gng.NUMBERS) + 1):
        actions += [{"take": list(chosen)} for chosen in _multisets(copies, size)]
    actions += [{"discard": code} for code in gng.CODES]
    values = sorted(
        {*gng.SINGLE_MOUNTAINS, *(side for card in gng.DOUBLE_MOUNTAINS for side in card)}
    )
    actions += [{"trade": colour, "mountain": value} for colour in gng.COLOURS for value in values]
    actions.append(gng.DECLINE)
    return actions


def herr_der_ziegen_actions() -> list[Action]:
    """Plays of every card, takes of every cell of the largest pasture, drives from every
    cell to every other cell of its row or column, "pass", "agree" and "refuse"."""
    size = max(setup["size"] for setup in hdz.SETUP.values())
    cells = [[row, column] for row in range(size) for column in range(size)]
    drives = [
        {"drive": [source, target]}
        for source in cells
        for target in cells
        if target != source and (target[0] == source[0] or target[1] == source[1])
    ]
    return [
        *({"play": card} for card in hdz.CARD_VALUE),
        *({"take": cell} for cell in cells),
        *drives,
        "pass",
        "agree",
        "refuse",
    ]


def mountain_goats_actions() -> list[Action]:
    """Every multiset of zero to four mountains (four dice make at most four groups)."""
    return [
        {"move": list(move)}
        for size in range(goats.DICE + 1)
        for move in itertools.combinations_with_replacement(goats.MOUNTAINS, size)
    ]


TABLES: dict[str, tuple[Callable[[], list[Action]], Callable[[Action], Key]]] = {
    "goat-lords": (goat_lords_actions, freeze),
    "goat-n-goat": (goat_n_goat_actions, freeze),
    "herr-der-ziegen": (herr_der_ziegen_actions, freeze),
    "mountain-goats": (mountain_goats_actions, mountain_goats_key),
}
"""Per game: the maker of its numbered actions and the key that identifies an action."""
