"""Terminal colour: ANSI escapes when the output is a terminal, plain text otherwise."""

from __future__ import annotations

import os
from typing import TextIO

SEAT_COLOURS = ("red", "blue", "green", "yellow", "magenta", "cyan")
"""The colour of each seat, the same in the terminal and the HTML report."""

_CODES = {
    "red": "31",
    "green": "32",
    "yellow": "33",
    "blue": "34",
    "magenta": "35",
    "cyan": "36",
    "grey": "90",
    "bold": "1",
    "dim": "2",
    "reverse": "7",
}


class Style:
    """Paints text with ANSI colours, or leaves it plain when ``colour`` is off.

    Renderers pad their columns by the text's visible length (:meth:`width`), so a
    picture has the same layout with or without colour.
    """

    def __init__(self, colour: bool = False) -> None:
        self.colour = colour

    def paint(self, text: str, *styles: str) -> str:
        """``text`` in the given styles (names from the table above)."""
        if not self.colour or not styles or not text:
            return text
        codes = ";".join(_CODES[style] for style in styles)
        return f"\x1b[{codes}m{text}\x1b[0m"

    def seat(self, seat: int, text: str | None = None) -> str:
        """A seat's label (``text``, by default its number) in the seat's colour."""
        label = str(seat) if text is None else text
        return self.paint(label, SEAT_COLOURS[seat % len(SEAT_COLOURS)], "bold")

    @staticmethod
    def width(text: str) -> int:
        """The visible length of ``text``, escapes not counted."""
        return len(strip(text))

    def pad(self, text: str, width: int) -> str:
        """``text`` padded with spaces to ``width`` visible columns."""
        return text + " " * max(width - self.width(text), 0)


def strip(text: str) -> str:
    """``text`` without ANSI escapes."""
    out = []
    inside = False
    for char in text:
        if char == "\x1b":
            inside = True
        elif inside:
            inside = char != "m"
        else:
            out.append(char)
    return "".join(out)


def wants_colour(stream: TextIO) -> bool:
    """Colour for a terminal, unless the NO_COLOR convention asks for none or the
    terminal is a dumb one."""
    return can_redraw(stream) and not os.environ.get("NO_COLOR")


def can_redraw(stream: TextIO) -> bool:
    """Whether ``stream`` is a terminal that understands escapes (to colour, move the
    cursor, clear): not ``TERM=dumb``, which editors' shells and some logs set."""
    return stream.isatty() and os.environ.get("TERM") != "dumb"
