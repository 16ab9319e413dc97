"""Mountain Goats as text: each mountain a row of steps from foot to summit, goats on it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from goatarena.render.style import Style
from goatarena.render.text.common import seat_label, to_act_text

CELL = 7


def render(view: dict[str, Any], style: Style, names: Sequence[str] | None = None) -> list[str]:
    """Header with round and dice, the six mountains (highest first), then the seats."""
    players = len(view["steps"])
    dice = " ".join(style.paint(str(die), "bold") for die in view["dice"])
    bonus = " ".join(map(str, view["bonus_left"])) or "-"
    ending = style.paint("  last round", "yellow") if view["ending"] else ""
    lines = [
        f"Mountain Goats  round {view['round']}  {to_act_text(style, view)}"
        f"  dice {dice}  bonus {bonus}{ending}",
        "  mtn " + "foot".ljust(CELL) + "".join(str(s).ljust(CELL) for s in range(1, 5)) + "tokens",
    ]
    for index in reversed(range(len(view["mountains"]))):
        mountain, height = view["mountains"][index], view["heights"][index]
        cells = []
        for step in range(5):
            goats = "".join(
                style.seat(seat) for seat in range(players) if view["steps"][seat][index] == step
            )
            if step > height:
                cells.append(" " * CELL)
            elif step == height:
                cells.append(style.pad(style.paint("^", "grey") + goats, CELL))
            else:
                mark = goats or style.paint(".", "grey")
                cells.append(style.pad(mark, CELL))
        supply = view["supply"][index]
        lines.append(f"  {mountain:>3} " + "".join(cells) + f"{supply:>2} left")
    for seat in range(players):
        tokens = " ".join(
            f"{count}x{mountain}"
            for mountain, count in zip(view["mountains"], view["tokens"][seat])
            if count
        )
        bonuses = " ".join(f"+{bonus}" for bonus in view["bonuses"][seat])
        lines.append(
            f"  {style.pad(seat_label(style, seat, names, view), 22)}"
            f" score {view['scores'][seat]:>3}  tokens {tokens or '-'} {bonuses}".rstrip()
        )
    return lines
