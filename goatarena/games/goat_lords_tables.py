"""Goat Lords tables: the card data, the shared action objects and what is built from them.

Everything here is computed once at import, or once per distinct hand and then kept:
the engine (:mod:`goatarena.games.goat_lords`) assembles legal action lists from these
objects instead of building new ones each decision, and finds a move again by the
identity of the action object offered. Nothing here may be changed in place.
"""

from __future__ import annotations

import operator
from typing import Any

from goatarena.games.base import Action

# -- constants and card data -------------------------------------------------------------

CARDS: tuple[tuple[str, str, int, str, int], ...] = (
    # (id, name, copies, kind, value)
    ("baby", "Fainting Baby Goat", 10, "goat", 5),
    ("ladypug", "Ladypug", 10, "goat", 5),
    ("foodie", "Foodie Goat", 10, "goat", 5),
    ("ghoast", "Gleeful Ghoast", 10, "goat", 10),
    ("fairy", "Fairy Goat Mother", 10, "goat", 10),
    ("tgoat", "Friendly T-Goat", 10, "goat", 10),
    ("ninja", "Goat Ninja", 10, "goat", 15),
    ("kraken", "Krakengoat", 10, "goat", 15),
    ("dragon", "Fire Breathing Dragon Goat", 10, "goat", 20),
    ("goatacorn", "Flying Goat-a-Corn", 8, "goat", 20),
    ("goatini", "Magical Goatini", 8, "wild", 25),
    ("lord", "Goat Lord", 4, "wild", 50),
)
"""The 110 goat cards of the published deck; the values are the ruleset's Resolution."""

HAND_SIZES = {2: 5, 3: 5, 4: 4, 5: 4, 6: 4}
TARGET = 1000
"""A total that ends the game at the end of a round (with the option ``rounds`` = 0)."""
RECYCLE_MINIMUM = 5
"""The discard pile is recycled only if it holds at least this many cards."""

CARD_IDS = tuple(card[0] for card in CARDS)
CARD_INDEX = {card_id: index for index, card_id in enumerate(CARD_IDS)}
VALUES = tuple(card[4] for card in CARDS)
IS_GOAT = tuple(card[3] == "goat" for card in CARDS)
ALL_CARDS = range(len(CARDS))
GOATS = tuple(index for index, goat in enumerate(IS_GOAT) if goat)
WILDS = tuple(index for index, goat in enumerate(IS_GOAT) if not goat)
DECK = tuple(index for index, card in enumerate(CARDS) for _ in range(card[2]))
NO_KIND = -1
"""The kind of a pile made only of wilds."""
KIND_IDS = tuple(card_id if goat else None for card_id, goat in zip(CARD_IDS, IS_GOAT, strict=True))
"""Per first card of a pile: the pile's kind as the observation names it (None: wilds only)."""

YIELD = "yield"
GOATINI, LORD = WILDS
MAX_PLAYERS = 6

# Every action the engine offers is one of these shared objects (never changed in place):
# legal action lists are assembled from them instead of building new dicts each decision.
BIRTH = tuple({"birth": card_id} for card_id in CARD_IDS)
ASSISTED_BIRTH = tuple({"assisted_birth": card_id} for card_id in CARD_IDS)
DISCARD = tuple({"discard": card_id} for card_id in CARD_IDS)
PLAY = tuple({"play": card_id} for card_id in CARD_IDS)
DUEL = tuple(
    tuple({"duel": target, "play": card_id} for card_id in CARD_IDS)
    for target in range(MAX_PLAYERS)
)
RESTOCK_ORDER = tuple(
    tuple(
        tuple((active + offset) % players for offset in range(players)) for active in range(players)
    )
    for players in range(MAX_PLAYERS + 1)
)
"""Per player count and active seat: the seats in restocking order, the active one first."""
NEXT_SEATS = tuple(tuple(order[1:] + order[:1] for order in orders) for orders in RESTOCK_ORDER)
"""Per player count and active seat: the seats that may play next, in order."""
NEXT_SEAT = tuple(tuple(seats[0] for seats in orders) for orders in NEXT_SEATS)
"""Per player count and active seat: the next seat, the one to play unless its hand is empty."""
OTHERS = tuple(
    tuple(tuple(other for other in range(players) if other != seat) for seat in range(players))
    for players in range(MAX_PLAYERS + 1)
)
"""Per player count and seat: the other seats in seat order (the duel targets' order)."""

# A hand's choices are one flat list (see hand_choices), indexed by a card for the births
# with that card on top of the discard pile, by DISCARDS for its discards, and by a duel
# slot for the duels against one seat's top pile.
DISCARDS = len(CARDS)
"""The index of a hand's discards in its choices."""
DUEL_SLOT = tuple(
    tuple(DISCARDS + 1 + target * len(CARDS) + first for first in range(len(CARDS)))
    for target in range(MAX_PLAYERS)
)
"""Per seat and first card of the seat's top pile: the index of the duels against that pile
in a hand's choices (a state keeps it per seat in ``_top_slots``)."""
SAFE = DISCARDS + 1 + MAX_PLAYERS * len(CARDS)
"""The duel slot of a herd with fewer than two piles: it cannot be dueled (no duels)."""
HOLDS_KIND, HOLDS_GOATINI, HOLDS_LORD = 1, 2, 4
"""Bits of what a hand holds against a pile: its kind's goat, a Goatini, a Goat Lord."""


def _answers(first: int, holds: int) -> list[Action]:
    answers: list[Action] = [PLAY[first]] if holds & HOLDS_KIND else []
    if holds & HOLDS_GOATINI:
        answers.append(PLAY[GOATINI])
    if holds & HOLDS_LORD:
        answers.append(PLAY[LORD])
    answers.append(YIELD)
    return answers


ANSWERS = tuple(tuple(_answers(first, holds) for holds in range(8)) for first in range(len(CARDS)))
"""Per first card of the defended pile and bits a hand holds: the answers in a duel."""
DUEL_OFFERS = tuple(
    tuple(
        tuple(
            DUEL[target][card]
            for card, bit in ((first, HOLDS_KIND), (GOATINI, HOLDS_GOATINI), (LORD, HOLDS_LORD))
            if holds & bit
        )
        for holds in range(8)
    )
    for target in range(MAX_PLAYERS)
    for first in range(len(CARDS))
)
"""Per duel slot (target and first card of its top pile, as :data:`DUEL_SLOT` numbers
them, less :data:`DISCARDS` + 1) and bits held against that pile: the duels offered."""

HandChoices = list[Any]
"""What a hand offers, one flat list: per discard top (a card) its births, with the assisted
birth if the top allows one (a list); at :data:`DISCARDS` its discards (a list); per duel
slot (:data:`DUEL_SLOT`, :data:`SAFE`) the duels against that pile (a tuple)."""
HAND_CHOICES: dict[tuple[int, ...], HandChoices] = {}
"""Per hand (counts per card): its :data:`HandChoices`, computed once."""
HAND_CACHE_LIMIT = 20_000
"""Hands seen in play number a few thousand; a state built by hand may add odd ones."""
NO_ASSIST = CARD_INDEX["lord"]
"""A discard top that never allows an assisted birth (a wild), for an empty discard pile."""
HAND_NAMES: dict[tuple[int, ...], tuple[str, ...]] = {}
"""Per hand (counts per card): its cards' ids in card order, as observations list them."""
NO_ACTIONS: list[Action] = []
"""The legal actions of a finished game (shared: never changed)."""
PENDING: list[Action] = []
"""A state's ``_legal`` after a move of the engine's own: the legal actions are still to
compute, but the derived lists (``_sizes``, ...) are up to date (``None``: they are not)."""


def holdings(hand: list[int], first: int) -> int:
    """The ``HOLDS_*`` bits of ``hand`` against a pile whose first card is ``first``."""
    holds = HOLDS_KIND if hand[first] and IS_GOAT[first] else 0
    if hand[GOATINI]:
        holds |= HOLDS_GOATINI
    if hand[LORD]:
        holds |= HOLDS_LORD
    return holds


# -- helpers -----------------------------------------------------------------------------


def pile_kind(pile: list[int]) -> int:
    """The goat kind of a pile, or NO_KIND for a pile made only of wilds."""
    return pile[0] if IS_GOAT[pile[0]] else NO_KIND


def hand_choices(key: tuple[int, ...]) -> HandChoices:
    """The :data:`HandChoices` of a hand given as counts per card (cached)."""
    present = [card for card in ALL_CARDS if key[card]]
    # GOATS come before WILDS in card order, so births list the goats first.
    births: list[Action] = [BIRTH[card] for card in present if key[card] >= 2 or not IS_GOAT[card]]
    discards: list[Action] = [DISCARD[card] for card in present]
    wild = (HOLDS_GOATINI if key[GOATINI] else 0) | (HOLDS_LORD if key[LORD] else 0)
    holds = [wild] * len(CARDS)
    choices: HandChoices = [births] * len(CARDS)
    for card in present:
        if IS_GOAT[card]:
            holds[card] = wild | HOLDS_KIND
            choices[card] = [*births, ASSISTED_BIRTH[card]]
    choices.append(discards)
    choices.extend(map(operator.getitem, DUEL_OFFERS, holds * MAX_PLAYERS))
    choices.append(())
    if len(HAND_CHOICES) >= HAND_CACHE_LIMIT:
        HAND_CHOICES.clear()
    HAND_CHOICES[key] = choices
    return choices


def hand_names(key: tuple[int, ...]) -> tuple[str, ...]:
    """The card ids of a hand given as counts per card, in card order (cached)."""
    names = tuple(CARD_IDS[card] for card in ALL_CARDS for _ in range(key[card]))
    if len(HAND_NAMES) >= HAND_CACHE_LIMIT:
        HAND_NAMES.clear()
    HAND_NAMES[key] = names
    return names


def shared_action(action: Action) -> Action:
    """The shared object equal to a legal action decoded from elsewhere."""
    if action == YIELD:
        return YIELD
    if "duel" in action:
        return DUEL[action["duel"]][CARD_INDEX[action["play"]]]
    if "play" in action:
        return PLAY[CARD_INDEX[action["play"]]]
    if "birth" in action:
        return BIRTH[CARD_INDEX[action["birth"]]]
    if "assisted_birth" in action:
        return ASSISTED_BIRTH[CARD_INDEX[action["assisted_birth"]]]
    return DISCARD[CARD_INDEX[action["discard"]]]


def matching(hand: list[int], kind: int) -> list[int]:
    """The distinct cards of ``hand`` that can attack or defend a pile of ``kind``."""
    cards = [kind] if kind != NO_KIND and hand[kind] else []
    cards.extend(card for card in WILDS if hand[card])
    return cards


def pile_view(pile: list[int]) -> dict[str, Any]:
    """A pile as a seat sees it: its kind (None for wilds only) and its cards, bottom first."""
    kind = pile_kind(pile)
    return {
        "kind": CARD_IDS[kind] if kind != NO_KIND else None,
        "cards": [CARD_IDS[card] for card in pile],
    }


def describe_top(discard: list[int]) -> str:
    """The top card of a discard pile, or a dash."""
    return CARD_IDS[discard[-1]] if discard else "-"
