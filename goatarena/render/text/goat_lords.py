"""Goat Lords as text: piles, the duel in progress, each seat's herd and hand."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from goatarena.render.style import Style
from goatarena.render.text.common import hand_text, seat_label, to_act_text, wrap

WILDS = ("goatini", "lord")


def _card(style: Style, card: str) -> str:
    return style.paint(card, "yellow", "bold") if card in WILDS else card


def _pile(style: Style, pile: dict[str, Any]) -> str:
    """ "[dragon x5 lord goatini x2]": the pile's kind, then its wilds, with counts."""
    counts = Counter(pile["cards"])
    order = sorted(
        counts, key=lambda card: (card in WILDS, WILDS.index(card) if card in WILDS else 0)
    )
    parts = [
        _card(style, card) + (f" x{counts[card]}" if counts[card] > 1 else "") for card in order
    ]
    return "[" + " ".join(parts) + "]"


def render(view: dict[str, Any], style: Style, names: Sequence[str] | None = None) -> list[str]:
    """Round and piles, the duel, then per seat: total, herd value, hand and herd."""
    recycled = "  recycled" if view["recycled"] else ""
    top = view["discard_top"] or "-"
    lines = [
        f"Goat Lords  round {view['round']}  {to_act_text(style, view)}"
        f"  draw {view['draw_size']}  discard {view['discard_size']} (top {top}){recycled}"
    ]
    duel = view["duel"]
    if duel is not None:
        played = " ".join(_card(style, card) for card in duel["played"])
        lines.append(
            "  "
            + style.paint("duel", "bold")
            + f": {style.seat(duel['attacker'], 'seat ' + str(duel['attacker']))} attacks"
            f" {style.seat(duel['defender'], 'seat ' + str(duel['defender']))}"
            f" ({duel['kind'] or 'wilds'}); played {played};"
            f" {style.seat(duel['to_answer'], 'seat ' + str(duel['to_answer']))} to answer"
        )
    for seat, herd in enumerate(view["herds"]):
        hand = hand_text(
            style, view["hands"][seat], view["hand_sizes"][seat], lambda c: _card(style, c)
        )
        lines.append(
            f"  {style.pad(seat_label(style, seat, names, view), 22)}"
            f" total {view['totals'][seat]:>4}  herd {view['herd_values'][seat]:>3}"
        )
        lines.append(f"      hand {hand}")
        lines.extend(wrap(style, "      herd", [_pile(style, pile) for pile in herd] or ["-"], 10))
    return lines
