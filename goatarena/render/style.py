"""Terminal colour: ANSI escapes when the output is a terminal, plain text otherwise."""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Sequence
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
        """The columns ``text`` takes on a terminal, escapes not counted (see
        :func:`display_width`)."""
        return display_width(strip(text))

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


def display_width(text: str) -> int:
    """The terminal columns ``text`` takes: two for a wide character (East Asian wide or
    full-width, such as やぎ山), none for a combining mark, one for any other."""
    width = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def text_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A plain table (headers, a dashed rule, the rows), its columns padded by the
    columns each cell takes on a terminal, so wide characters keep the columns aligned."""
    cells = [[str(cell) for cell in row] for row in [headers, *rows]]
    widths = [max(display_width(row[column]) for row in cells) for column in range(len(headers))]

    def line(row: Sequence[str]) -> str:
        padded = (cell + " " * (width - display_width(cell)) for cell, width in zip(row, widths))
        return "  ".join(padded).rstrip()

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([line(cells[0]), rule, *(line(row) for row in cells[1:])])


def terminal_columns(stream: TextIO, *, fallback: int = 80) -> int:
    """The width of the terminal ``stream`` draws on: as the terminal reports it, else
    ``COLUMNS``, else ``fallback``. A width of 0 (reported by some terminals and
    pseudo-terminals that were never sized, or ``COLUMNS=0``) means unknown, not zero."""
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError, AttributeError):
        columns = 0
    if columns > 0:
        return columns
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    return columns if columns > 0 else fallback


def wants_colour(stream: TextIO) -> bool:
    """Colour for a terminal, unless the NO_COLOR convention asks for none or the
    terminal is a dumb one."""
    return can_redraw(stream) and not os.environ.get("NO_COLOR")


def can_redraw(stream: TextIO) -> bool:
    """Whether ``stream`` is a terminal that understands escapes (to colour, move the
    cursor, clear): not ``TERM=dumb``, which editors' shells and some logs set."""
    return stream.isatty() and os.environ.get("TERM") != "dumb"
