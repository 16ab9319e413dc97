"""Herr der Ziegen as text: the pasture grid with stalls, marks and big goats round it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from goatarena.render.style import Style
from goatarena.render.text.common import hand_text, seat_label, to_act_text, wrap

CELL = 7
MARGIN = 6
SHORT = {"dog": "dog", "milk1": "mk1", "milk2": "mk2"}


def _card(style: Style, card: str | None, mark: int | None = None) -> str:
    if card is None:
        return style.paint(".", "grey")
    text = SHORT.get(card, card)
    if mark is not None:
        return style.seat(mark, f"{text}*{mark}")
    return style.paint(text, "grey") if card in SHORT else text


def _goats(style: Style, goats: Sequence[int], position: int, arrow: str) -> str:
    seats = [seat for seat, at in enumerate(goats) if at == position]
    return arrow + "".join(style.seat(seat) for seat in seats) if seats else ""


def render(view: dict[str, Any], style: Style, names: Sequence[str] | None = None) -> list[str]:
    """Header, the pasture with goats on the track (v < ^ > face the line), then seats."""
    size, goats = view["size"], view["goats"]
    stalls = {tuple(cell): seat for seat, cell in enumerate(view["stalls"])}
    doing = f" ({view['phase']}" + (f" after {view['played']}" if view["played"] else "") + ")"
    header = f"Herr der Ziegen  turn {view['turn']}  {to_act_text(style, view)}"
    if view["to_act"] is None:
        doing = ""
    lines = [f"{header}{doing}  draw {view['draw_size']}"]
    if view["to_act"] is None and view["end_reason"]:
        lines.append(f"  {view['end_reason']}")
    owners = "  ".join(f"{kind}:{style.seat(seat)}" for kind, seat in view["owners"].items())
    if owners:
        lines.append(f"  owners {owners}")
    lines.append(" " * MARGIN + "".join(str(c).ljust(CELL) for c in range(size)))
    lines.append(
        " " * MARGIN + "".join(style.pad(_goats(style, goats, c, "v"), CELL) for c in range(size))
    )
    for row in range(size):
        cells = []
        for column in range(size):
            if (row, column) in stalls:
                seat = stalls[(row, column)]
                cells.append(style.pad(style.seat(seat, f"[S{seat}]"), CELL))
            else:
                card = view["pasture"][row][column]
                cells.append(style.pad(_card(style, card, view["marks"][row][column]), CELL))
        left = _goats(style, goats, 4 * size - 1 - row, ">")
        right = _goats(style, goats, size + row, "<")
        lines.append(f"{row} {style.pad(left, MARGIN - 2)}{''.join(cells)}{right}".rstrip())
    lines.append(
        " " * MARGIN
        + "".join(style.pad(_goats(style, goats, 3 * size - 1 - c, "^"), CELL) for c in range(size))
    )
    for seat, display in enumerate(view["displays"]):
        hand = hand_text(style, view["hands"][seat], view["hand_sizes"][seat])
        known = ""
        if view["hands"][seat] is None and view["known_hands"][seat]:
            known = " (known " + " ".join(view["known_hands"][seat]) + ")"
        lines.append(
            f"  {style.pad(seat_label(style, seat, names, view), 22)}"
            f" score {view['scores'][seat]:>3}  markers {view['markers'][seat]:>2}"
            f"  hand {hand}{known}"
        )
        lines.extend(
            wrap(style, "      display", [_card(style, card) for card in display] or ["-"], 14)
        )
    return lines
