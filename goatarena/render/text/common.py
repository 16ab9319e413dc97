"""Pieces the text renderers share: headers, seat labels, hands face up or down."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from goatarena.render.style import Style

LINE_WIDTH = 80


def seat_label(style: Style, seat: int, names: Sequence[str] | None, view: dict[str, Any]) -> str:
    """ "seat 1 alice", in the seat's colour, marked "(you)" in that seat's own view."""
    name = f" {names[seat]}" if names and seat < len(names) else ""
    you = " (you)" if view.get("seat") == seat else ""
    return style.seat(seat, f"seat {seat}{name}") + you


def to_act_text(style: Style, view: dict[str, Any]) -> str:
    """ "seat 2 to act", or "game over"."""
    to_act = view.get("to_act")
    return "game over" if to_act is None else style.seat(to_act, f"seat {to_act}") + " to act"


def hand_text(style: Style, hand: Iterable[str] | None, size: int, paint: Any = None) -> str:
    """A hand face up (each card through ``paint``), or face down as one "?" per card."""
    if hand is None:
        return style.paint(" ".join("?" * size) if size else "-", "grey")
    cards = [paint(card) if paint else card for card in hand]
    return " ".join(cards) or "-"


def wrap(style: Style, prefix: str, items: Sequence[str], indent: int) -> list[str]:
    """``prefix`` then ``items`` separated by spaces, wrapped at the line width."""
    lines: list[str] = []
    line = prefix
    for item in items:
        if style.width(line) + 1 + style.width(item) > LINE_WIDTH and style.width(line) > indent:
            lines.append(line)
            line = " " * indent
        line = f"{line} {item}" if style.width(line) > indent or line.strip() else line + item
    lines.append(line)
    return lines
