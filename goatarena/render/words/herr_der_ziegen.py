"""Herr der Ziegen moves in words: cards played and taken, drives and the answers to them.

``{"take": [2, 5]}`` reads "takes C4 from (2, 5)"; cells are (row, column) from the top
left, as on the board.
"""

from __future__ import annotations

from typing import Any

from goatarena.games.base import Action
from goatarena.games.herr_der_ziegen_tables import CARD_VALUE, DOG, MILK
from goatarena.render.words.common import cell_name, seat_name


def card_words(card: str | None) -> str:
    """ "goat C4", "a dog", "milk (2 cans)", or "a card" when hidden."""
    if card is None:
        return "a card"
    if card == DOG:
        return "a dog"
    if card in MILK:
        cans = MILK[card]
        return f"milk ({cans} can{'s' if cans > 1 else ''})"
    return f"goat {card}"


def describe(view: dict[str, Any], actor: int, action: Action) -> str:
    """The move of ``actor`` in words, from the table ``view`` before it."""
    if action == "pass":
        return "drives no card"
    if action in ("agree", "refuse"):
        return _answer_words(view, action)
    if "play" in action:
        card = action["play"]
        value = CARD_VALUE.get(card, 0) if card is not None else 0
        walk = f", the big goat walks {value}" if value else ""
        return f"plays {card_words(card)}{walk}"
    if "take" in action:
        cell = action["take"]
        return f"takes {_card_at(view, cell)} from {cell_name(cell)}"
    source, target = action["drive"]
    words = f"drives {_card_at(view, source)} from {cell_name(source)} to {cell_name(target)}"
    if view["pasture"][target[0]][target[1]] is not None:
        words += f", swapping it with {_card_at(view, target)}"
    return words


def _card_at(view: dict[str, Any], cell: list[int]) -> str:
    card = view["pasture"][cell[0]][cell[1]]
    return "an empty cell" if card is None else card_words(card).removeprefix("goat ")


def _answer_words(view: dict[str, Any], answer: str) -> str:
    verb = "agrees to" if answer == "agree" else "refuses"
    pending = view.get("pending_drive")
    if not pending:
        return f"{verb} the drive"
    source, target = pending
    driver = view["active"]
    return (
        f"{verb} {seat_name(driver)}'s drive of {_card_at(view, source)}"
        f" onto {_card_at(view, target)} at {cell_name(target)}"
    )
