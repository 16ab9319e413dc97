"""Herr der Ziegen tables: the card data, the pasture geometry and the shared actions.

Everything here depends only on the player count or the pasture size and is computed
once, at import or on first use (``functools.cache``): the engine
(:mod:`goatarena.games.herr_der_ziegen`) looks its lines, rays, drives and actions up
here instead of working them out each decision. Every action offered is one of the
shared objects made here, and nothing here may be changed in place.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from functools import cache
from typing import NamedTuple

from goatarena.games.base import Action

# -- constants and card data -------------------------------------------------------------

TYPES = "ABCDEFGHIJKLMNOPQR"
"""The 18 goat types; each has the five cards TYPE1 ... TYPE5 (sum 15)."""
GOAT_VALUES = (1, 2, 3, 4, 5)
TYPE_TOTAL = sum(GOAT_VALUES)
DOG = "dog"
MILK = {"milk1": 1, "milk2": 2}
"""Milk card name -> cans; half of the milk cards in play are of each kind."""
MILK_CANS = tuple(MILK.items())
"""(milk card, cans) pairs, for the loops that count cans (a tuple: no call per loop)."""

SETUP = {
    2: {"types": 10, "dogs": 7, "milk": 8, "size": 6},
    3: {"types": 14, "dogs": 11, "milk": 12, "size": 7},
    4: {"types": 16, "dogs": 13, "milk": 14, "size": 7},
    5: {"types": 18, "dogs": 15, "milk": 16, "size": 7},
}
"""Resolution: the cards in play and the pasture size per player count."""

LAST = -1
"""Stands for the pasture's last row or column index (N - 1) in STALLS."""
STALLS = {
    2: ((0, 0), (LAST, LAST)),
    3: ((0, 0), (0, LAST), (LAST, 3)),
    4: ((0, 0), (0, LAST), (LAST, LAST), (LAST, 0)),
    5: ((0, 0), (0, 3), (0, LAST), (LAST, LAST), (LAST, 0)),
}
"""Resolution: the stall cell of each seat, by player count."""

MARKERS = 10
HAND_SIZE = 2
MAJORITY = 8
"""A display sum of a type that is a majority of the type's 15."""
CARDS_FOR_FIFTH = 4
"""The fourth card of a type in the displays gives away the fifth."""


def card_name(kind: str, value: int) -> str:
    """The name of a goat card, "A3"; one string object per card (interned), so that the
    engine's list scans and dict lookups match cards by identity before comparing text."""
    return sys.intern(f"{kind}{value}")


CARD_VALUE: dict[str, int] = {
    **{card_name(kind, value): value for kind in TYPES for value in GOAT_VALUES},
    DOG: 0,
    **MILK,
}
"""How far a card moves the big goat (and what a goat card scores)."""
CARD_TYPE: dict[str, str] = {
    card_name(kind, value): kind for kind in TYPES for value in GOAT_VALUES
}
"""The goat type of each goat card; dogs and milk have none."""
CARD_KIND: dict[str, str] = {**dict.fromkeys(CARD_VALUE, ""), **CARD_TYPE}
"""The goat type of every card, "" for dogs and milk (a lookup that needs no default)."""
KIND_CARDS: dict[str, frozenset[str]] = {
    kind: frozenset(card_name(kind, value) for value in GOAT_VALUES) for kind in TYPES
}
"""The five cards of each goat type."""
KIND_CARDS_HIGH_FIRST: dict[str, tuple[str, ...]] = {
    kind: tuple(card_name(kind, value) for value in sorted(GOAT_VALUES, reverse=True))
    for kind in TYPES
}
"""The five cards of each goat type, highest value first."""
PLAY_ACTIONS: dict[str, dict[str, str]] = {card: {"play": card} for card in CARD_VALUE}
"""The action playing each card, made once: action values are never changed in place."""

NO_MARK = None
"""The mark of a cell without a small goat."""

SEAT_KINDS: tuple[dict[str, str], ...] = tuple(
    {kind: sys.intern(f"{kind}@{seat}") for kind in TYPES} for seat in range(max(SETUP))
)
"""Per seat, goat type -> the tally key of that seat's display sum of the type: a string
made once, whose hash is kept (a tuple's is computed on every lookup)."""


class Phase(StrEnum):
    """Which decision the state waits for."""

    PLAY = "play"
    TAKE = "take"
    DRIVE = "drive"
    CONSENT = "consent"
    OVER = "over"


PHASE_NAMES = {phase: phase.value for phase in Phase}
"""Phase -> its name as a plain str (``.value`` of an enum member runs Python code)."""


# -- geometry, made once per player count or pasture size --------------------------------


def cards_in_play(players: int) -> list[str]:
    """The cards used with ``players`` players, in a fixed order before shuffling."""
    setup = SETUP[players]
    goats = [card_name(kind, value) for kind in TYPES[: setup["types"]] for value in GOAT_VALUES]
    half = setup["milk"] // 2
    milk = ["milk1"] * half + ["milk2"] * (setup["milk"] - half)
    return goats + [DOG] * setup["dogs"] + milk


@cache
def deck_in_play(players: int) -> tuple[str, ...]:
    """:func:`cards_in_play`, made once per player count."""
    return tuple(cards_in_play(players))


def stall_cell(row: int, column: int, size: int) -> int:
    """The cell index of a stall given as in STALLS (LAST for the last index)."""
    last = size - 1
    return (last if row == LAST else row) * size + (last if column == LAST else column)


def track_side(position: int, size: int) -> tuple[str, int]:
    """Which line a track position faces: ("column", c) on top/bottom, ("row", r) else."""
    side, offset = divmod(position, size)
    if side == 0:
        return ("column", offset)
    if side == 1:
        return ("row", offset)
    if side == 2:
        return ("column", size - 1 - offset)
    return ("row", size - 1 - offset)


def track_cell(position: int, size: int) -> int:
    """The edge cell whose outward side a track position is."""
    side, offset = divmod(position, size)
    last = size - 1
    row, column = [(0, offset), (offset, last), (last, last - offset), (last - offset, 0)][side]
    return row * size + column


@cache
def start_position(stall: int, size: int) -> int:
    """The first track position (clockwise from the top left) beside a stall."""
    return next(p for p in range(4 * size) if track_cell(p, size) == stall)


@cache
def track_lines(size: int) -> tuple[tuple[int, ...], ...]:
    """Per track position, the cells of the row or column it faces, in index order."""
    lines = []
    for position in range(4 * size):
        kind, index = track_side(position, size)
        if kind == "row":
            lines.append(tuple(index * size + column for column in range(size)))
        else:
            lines.append(tuple(row * size + index for row in range(size)))
    return tuple(lines)


@cache
def stall_rays(stall: int, size: int) -> tuple[tuple[int, ...], ...]:
    """The cells going out from a stall up, down, left and right, nearest first."""
    stall_row, stall_column = divmod(stall, size)
    rays = []
    for step_row, step_column in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        ray = []
        row, column = stall_row + step_row, stall_column + step_column
        while 0 <= row < size and 0 <= column < size:
            ray.append(row * size + column)
            row, column = row + step_row, column + step_column
        rays.append(tuple(ray))
    return tuple(rays)


@cache
def drive_action(source: int, target: int, size: int) -> dict[str, list[list[int]]]:
    """The action driving the card at ``source`` to ``target`` (one value per drive)."""
    return {"drive": [list(divmod(source, size)), list(divmod(target, size))]}


def take_actions(size: int) -> tuple[dict[str, list[int]], ...]:
    """Per cell of a pasture of ``size``, the action taking its card."""
    return tuple({"take": list(divmod(cell, size))} for cell in range(size * size))


@cache
def closer_in_line(stall: int, size: int) -> tuple[tuple[int, ...], ...]:
    """Per cell, the other cells of its row and column nearer to ``stall``, in index order.

    Nearer counts in steps along rows and columns; these are where a dog may drive the
    cell's card for the stall's seat.
    """
    stall_row, stall_column = divmod(stall, size)

    def distance(cell: int) -> int:
        row, column = divmod(cell, size)
        return abs(row - stall_row) + abs(column - stall_column)

    return tuple(
        tuple(
            target
            for target in line_cells(*divmod(source, size), size)
            if target != source and distance(target) < distance(source)
        )
        for source in range(size * size)
    )


def line_cells(row: int, column: int, size: int) -> list[int]:
    """The cells of a cell's row and column together, in index order."""
    cells = {row * size + other for other in range(size)}
    cells.update(other * size + column for other in range(size))
    return sorted(cells)


class Layout(NamedTuple):
    """What a player count fixes before the shuffle: pasture size, stalls, goat starts."""

    size: int
    stalls: tuple[int, ...]
    """The stall cell of each seat."""
    stall_seat: dict[int, int]
    """Stall cell -> its seat (copied into each state, never changed here)."""
    goats: tuple[int, ...]
    """Each seat's big goat start position."""
    stalls_ascending: tuple[int, ...]


def layout(players: int) -> Layout:
    """The :class:`Layout` of a game of ``players``."""
    size = SETUP[players]["size"]
    stalls = tuple(stall_cell(row, column, size) for row, column in STALLS[players])
    return Layout(
        size=size,
        stalls=stalls,
        stall_seat={cell: seat for seat, cell in enumerate(stalls)},
        goats=tuple(start_position(cell, size) for cell in stalls),
        stalls_ascending=tuple(sorted(stalls)),
    )


LAYOUTS = {players: layout(players) for players in SETUP}
"""Per player count, its :class:`Layout` (looked up by every new state)."""

PASTURE_SIZES = sorted({setup["size"] for setup in SETUP.values()})
TRACK_LINES = {size: track_lines(size) for size in PASTURE_SIZES}
"""Per pasture size, :func:`track_lines` (looked up on every play)."""
TAKE_ACTIONS = {size: take_actions(size) for size in PASTURE_SIZES}
"""Per pasture size, the take action of each cell, made once: actions are never changed
in place, so every state offers the same values."""
ROW_SLICES = {
    size: tuple(slice(row * size, (row + 1) * size) for row in range(size))
    for size in PASTURE_SIZES
}
"""Per pasture size, the slice of each row in the flat cell lists."""
DRIVE_TABLES: dict[int, tuple[tuple[tuple[tuple[int, Action], ...], ...], ...]] = {
    players: tuple(
        tuple(
            tuple(
                (target, drive_action(source, target, layout.size))
                for target in closer
                if target not in layout.stall_seat
            )
            for source, closer in enumerate(closer_in_line(stall, layout.size))
        )
        for stall in layout.stalls
    )
    for players, layout in LAYOUTS.items()
}
"""Per player count and seat, per source cell: (target, drive action) along the row and
column towards the seat's stall, stalls left out (drives without refusals)."""
CELL_PLACES = {
    size: tuple(divmod(cell, size) for cell in range(size * size)) for size in PASTURE_SIZES
}
"""Per pasture size, the (row, column) of every cell."""
TRACK_SIDES = {
    size: tuple(track_side(position, size) for position in range(4 * size))
    for size in PASTURE_SIZES
}
"""Per pasture size, :func:`track_side` of every track position."""
