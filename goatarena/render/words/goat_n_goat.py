"""Goat 'n' Goat moves in words: cards by colour and number, flocks traded for mountains.

``{"play": ["g1", "r1"]}`` reads "plays green 1 and red 1"; a discard the viewer did not
see (``{"discard": null}``) reads "discards a card".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from goatarena.games.base import Action
from goatarena.render.words.common import count_word, join_words

COLOURS = {"g": "green", "b": "blue", "r": "red"}
"""Card letter -> colour word."""


def card_words(card: str | None) -> str:
    """ "g5" -> "green 5" (None, a hidden card, -> "a card")."""
    return "a card" if card is None else f"{COLOURS[card[0]]} {card[1:]}"


def cards_words(cards: Sequence[str]) -> str:
    """Cards in words, equal cards counted: "two green 1s and red 3"."""
    counts = Counter(cards)
    parts = [
        card_words(card) if n == 1 else f"{count_word(n)} {card_words(card)}s"
        for card, n in counts.items()
    ]
    return join_words(parts)


def describe(view: dict[str, Any], actor: int, action: Action) -> str:
    """The move of ``actor`` in words, from the table ``view`` before it."""
    if action == "decline":
        return "declines to trade a flock"
    if "play" in action:
        return f"plays {cards_words(action['play'])}"
    if "take" in action:
        return f"takes {cards_words(action['take'])} from the row"
    if "discard" in action:
        return f"discards {card_words(action['discard'])}"
    colour = action["trade"]
    flock = view["flocks"][actor][colour]
    return (
        f"trades the {colour} flock ({len(flock)} cards) for a {colour} mountain"
        f" worth {action['mountain']}"
    )
