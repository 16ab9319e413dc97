"""Herr der Ziegen's take choices: the available cards of the line a big goat faces.

Every play moves a big goat and asks which cards of the faced row or column may be
taken: the cells holding a card without a small goat on it. A playout asks this on
every turn, so :class:`FacedLine` answers it from a memo keyed by the markers on the
line's non-stall cells, which holds the (shared, never changed) list of take actions.
The memo stands only while every non-stall cell of the line holds a card, as it does
until the draw pile runs out; a line with an empty cell is scanned cell by cell.

Stall cells never hold a card (nothing is laid or driven into one), so they are never
available and the key leaves them out.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

MEMO_LIMIT = 4096
"""Marker patterns remembered per line; beyond it choices are computed, not stored."""


class FacedLine:
    """One track position's faced line: its cells and the take actions on them."""

    __slots__ = ("_cells", "_takes", "open_cells", "memo", "_open_takes")

    def __init__(self, cells: tuple[int, ...], stalls: frozenset[int], takes: tuple[Any, ...]):
        self._cells = cells
        self._takes = tuple(takes[cell] for cell in cells)
        open_cells = [cell for cell in cells if cell not in stalls]
        # itemgetter of several cells returns a tuple in C; a line keeps at least two.
        self.open_cells = itemgetter(*open_cells)
        """The line's non-stall cells of a flat cell list, as a tuple."""
        self._open_takes = tuple(takes[cell] for cell in open_cells)
        self.memo: dict[tuple[int | None, ...], list[Any]] = {}
        """Markers on the non-stall cells -> the take actions when all of them hold cards."""

    def takes(self, cards: list[str | None], marks: list[int | None]) -> list[Any]:
        """The take actions of the line's available cells, in cell order.

        The returned list may be shared with other states: callers must not change it.
        """
        if all(self.open_cells(cards)):
            key = self.open_cells(marks)
            legal = self.memo.get(key)
            if legal is None:
                legal = self.remember(key)
            return legal
        return self.scan(cards, marks)

    def remember(self, key: tuple[int | None, ...]) -> list[Any]:
        """The choices when every non-stall cell holds a card and ``key`` are its markers."""
        legal = [take for take, mark in zip(self._open_takes, key) if mark is None]
        if len(self.memo) < MEMO_LIMIT:
            self.memo[key] = legal
        return legal

    def scan(self, cards: list[str | None], marks: list[int | None]) -> list[Any]:
        """The choices found cell by cell (any pasture, empty cells included)."""
        return [
            take
            for cell, take in zip(self._cells, self._takes)
            if cards[cell] is not None and marks[cell] is None
        ]

    def any_available(self, cards: list[str | None], marks: list[int | None]) -> bool:
        """Whether some cell of the line holds a card without a small goat."""
        # A plain loop: any() over a generator costs a frame per call on a hot path.
        for cell in self._cells:  # noqa: SIM110
            if cards[cell] is not None and marks[cell] is None:
                return True
        return False


def faced_lines(
    lines: tuple[tuple[int, ...], ...], stalls: frozenset[int], takes: tuple[Any, ...]
) -> tuple[FacedLine, ...]:
    """A :class:`FacedLine` per track position, from the cells each position faces."""
    return tuple(FacedLine(cells, stalls, takes) for cells in lines)
