"""Goat Lords moves in words: births, duels and their answers, discards, by card name.

``{"duel": 2, "play": "goatini"}`` reads "duels seat 2's top pile (Fairy Goat Mothers)
with a Magical Goatini". The card names are the deck's, from the game's card table.
"""

from __future__ import annotations

from typing import Any

from goatarena.games.base import Action
from goatarena.games.goat_lords_tables import CARDS
from goatarena.render.words.common import seat_name

NAMES = {card[0]: card[1] for card in CARDS}
"""Card id -> its name on the card."""
PLURALS = {card_id: name + "s" for card_id, name in NAMES.items()}
"""Card id -> its name for more than one card (every name takes an "s")."""
WILD = {card[0] for card in CARDS if card[3] == "wild"}


def a_card(card: str | None) -> str:
    """ "a Goat Ninja" (or "a card" when the card is hidden)."""
    if card is None:
        return "a card"
    name = NAMES[card]
    return ("an " if name[0] in "AEIOU" else "a ") + name


def describe(view: dict[str, Any], actor: int, action: Action) -> str:
    """The move of ``actor`` in words, from the table ``view`` before it."""
    if action == "yield":
        return _yield_words(view)
    if "birth" in action:
        card = action["birth"]
        if card in WILD:
            return f"births {a_card(card)} as a new pile"
        return f"births two {PLURALS[card]}"
    if "assisted_birth" in action:
        return f"births two {PLURALS[action['assisted_birth']]}, one from the discard pile"
    if "duel" in action:
        return f"duels {_pile_words(view, action['duel'])} with {a_card(action['play'])}"
    if "discard" in action:
        return f"discards {a_card(action['discard'])}"
    return f"answers with {a_card(action['play'])}"


def _pile_words(view: dict[str, Any], seat: int) -> str:
    """ "seat 2's top pile (Goat Ninjas)"."""
    herd = view["herds"][seat]
    kind = herd[-1]["kind"] if herd else None
    what = PLURALS[kind] if kind else "wilds"
    return f"{seat_name(seat)}'s top pile ({what})"


def _yield_words(view: dict[str, Any]) -> str:
    duel = view.get("duel")
    if duel is None:
        return "yields"
    if duel["to_answer"] == duel["defender"]:
        return f"yields the top pile to {seat_name(duel['attacker'])}"
    return f"gives up the duel for {_pile_words(view, duel['defender'])}"
