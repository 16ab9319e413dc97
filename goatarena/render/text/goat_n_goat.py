"""Goat 'n' Goat as text: the row, the mountains per colour, each seat's hand and flocks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from goatarena.render.style import Style
from goatarena.render.text.common import hand_text, seat_label, to_act_text

COLOURS = {"g": "green", "b": "blue", "r": "red"}
ORDER = ("green", "blue", "red")


def _card(style: Style, code: str) -> str:
    return style.paint(code, COLOURS.get(code[:1], "grey"), "bold")


def _numbers(style: Style, colour: str, numbers: Sequence[int]) -> str:
    """A flock: its colour's letter and its numbers bottom to top ("g114"), "g-" if none."""
    text = colour[0] + ("".join(map(str, numbers)) or "-")
    return style.paint(text, colour) if numbers else style.paint(text, "grey")


def render(view: dict[str, Any], style: Style, names: Sequence[str] | None = None) -> list[str]:
    """Phase and piles, the row, the mountains left, then per seat: score, hand, flocks."""
    phase = view["phase"]
    doing = ""
    if view["to_act"] is not None:
        doing = f" ({phase}"
        if phase == "take":
            doing += f" {view['take_count']} after {' '.join(view['played'])}"
        doing += ")"
    ending = style.paint("  last turn", "yellow") if view["ending"] else ""
    lines = [
        f"Goat 'n' Goat  {to_act_text(style, view)}{doing}{ending}",
        f"  draw {view['draw_size']}  discard {len(view['discard'])}"
        f"  run-outs {view['run_outs']}/{view['final_run_out']}",
        "  row  " + (" ".join(_card(style, code) for code in view["row"]) or "-"),
        "  mountains  "
        + "  ".join(
            style.paint(colour, colour)
            + " "
            + (" ".join(map(str, view["mountains"][colour])) or "-")
            for colour in ORDER
        ),
    ]
    for seat in range(len(view["hand_sizes"])):
        hand = hand_text(
            style, view["hands"][seat], view["hand_sizes"][seat], lambda c: _card(style, c)
        )
        flocks = " ".join(_numbers(style, colour, view["flocks"][seat][colour]) for colour in ORDER)
        held = " ".join(
            style.paint(f"{colour[0]}{value}", colour)
            for colour in ORDER
            for value in view["mountains_held"][seat][colour]
        )
        lines.append(
            f"  {style.pad(seat_label(style, seat, names, view), 22)}"
            f" score {view['scores'][seat]:>3}  penalty {view['penalty_sizes'][seat]:>2}"
            f"  mountains {held or '-'}"
        )
        known = ""
        if view["hands"][seat] is None and view["known_in_hands"][seat]:
            known = "  known " + " ".join(_card(style, c) for c in view["known_in_hands"][seat])
        lines.append(f"      flocks {flocks}  hand {hand}{known}")
    return lines
