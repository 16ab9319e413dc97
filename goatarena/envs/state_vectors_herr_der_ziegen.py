"""Herr der Ziegen's observation vector read straight from the state (see
:mod:`goatarena.envs.state_vectors`, whose helpers it uses). The pasture, most of the
vector, is made once per distinct pasture, from the pasture made before it by rewriting
only the cells whose card changed, and copied whole after that."""

from __future__ import annotations

from array import array
from itertools import compress, repeat
from operator import is_not, ne
from typing import Any

from goatarena.envs.state_vectors import At, Out, tally
from goatarena.envs.vector_base import Seats
from goatarena.envs.vector_layouts import (
    HDZ_CARD_NUMBERS,
    HDZ_CARDS,
    HDZ_CELL,
    HDZ_PHASES,
    HDZ_SIZE,
    HDZ_TYPES,
)
from goatarena.games import herr_der_ziegen_tables as hdz

_HDZ_PHASES = {phase: HDZ_PHASES[name] for phase, name in hdz.PHASE_NAMES.items()}
_HDZ_OFFSETS = {
    size: tuple((row * HDZ_SIZE + column) * HDZ_CELL for row, column in hdz.CELL_PLACES[size])
    for size in hdz.PASTURE_SIZES
}
"""Per pasture size, per cell, where its numbers start within the pasture field."""
_HDZ_TRACK = 4 * HDZ_SIZE
_SLOTS = {
    players: [Seats(seat, players).relative_slots() for seat in range(players)]
    for players in hdz.SETUP
}
"""Per player count and observing seat, each seat's relative slot (Seats.relative, as a
look-up rather than a call: a vector needs a dozen)."""


def _blank_pasture(size: int) -> array:
    """The pasture field of a pasture of ``size`` with nothing on it: 1 (inside the
    pasture) first in each of its cells."""
    blank = array("f", bytes(4 * HDZ_SIZE * HDZ_SIZE * HDZ_CELL))
    for offset in _HDZ_OFFSETS[size]:
        blank[offset] = 1.0
    return blank


_HDZ_PASTURES = {size: _blank_pasture(size) for size in hdz.PASTURE_SIZES}


def _pasture_numbers(size: int, cards: list[str | None]) -> array:
    """The pasture field with its cards (no marks, no stalls): made once per distinct
    pasture, from the one made last by rewriting only the cells whose card differs (a
    play or a take changes one or two), then copied."""
    key = (size, *cards)
    numbers = _LAID.get(key)
    if numbers is None:
        if len(_LAID) >= _LAID_LIMIT:
            _LAID.clear()
        before, numbers = _LAST.get(size) or ((None,) * len(cards), _HDZ_PASTURES[size])
        numbers = numbers[:]  # (a copy: what is cached never changes)
        offsets = _HDZ_OFFSETS[size]
        for cell in compress(range(len(cards)), map(ne, cards, before)):
            start = offsets[cell] + _CARD_AT
            numbers[start : start + _CARD_NUMBERS] = _HDZ_CARD_CELLS[cards[cell]]
        _LAID[key] = numbers
        _LAST[size] = (tuple(cards), numbers)
    return numbers


_CARD_AT = 11
"""Where a card's numbers start within its cell (after the pasture, stall and mark)."""
_CARD_NUMBERS = HDZ_CELL - _CARD_AT


def _card_cell(card: str | None) -> array:
    """The numbers of ``card`` (None: no card) from :data:`_CARD_AT` in its cell."""
    numbers = array("f", bytes(4 * _CARD_NUMBERS))
    for within, number in HDZ_CARD_NUMBERS[card] if card is not None else ():
        numbers[within - _CARD_AT] = number
    return numbers


_HDZ_CARD_CELLS = {card: _card_cell(card) for card in (None, *HDZ_CARD_NUMBERS)}
_LAID: dict[tuple[Any, ...], array] = {}
"""The pasture field of each distinct pasture met so far."""
_LAST: dict[int, tuple[tuple[str | None, ...], array]] = {}
"""Per pasture size, the pasture made last, with its cards."""
_LAID_LIMIT = 500
"""Pastures kept (6 KB each: 3 MB at most; a two-player game makes about forty) before the
cache starts again."""


def fill_herr_der_ziegen(out: Out, at: At, state: Any, seats: Seats, max_players: int) -> None:
    """Herr der Ziegen: the seat's own hand, the cards every seat knows in the others'
    hands, and everything public."""
    slots = _SLOTS[seats.players][seats.seat]  # a seat's slot, by seat
    size, cards = state.size, len(HDZ_CARDS)
    out[at["active"] + slots[state.seat]] = 1.0
    out[at["phase"] + _HDZ_PHASES[state.phase]] = 1.0
    out[at["turn"]] = state.turn / 100
    if state.played is not None:
        out[at["played"] + HDZ_CARDS[state.played]] = 1.0
    tally(out, at["hand"], state.hands[seats.seat], HDZ_CARDS, 1 / 2, cards)
    pasture, offsets = at["pasture"], _HDZ_OFFSETS[size]
    cards_laid = _pasture_numbers(size, state.cards)
    out[pasture : pasture + len(cards_laid)] = cards_laid
    marks = state.marks
    for cell in compress(range(len(marks)), map(is_not, marks, repeat(None))):
        out[pasture + offsets[cell] + 6 + slots[marks[cell]]] = 1.0
    for seat, cell in enumerate(state.stalls):
        out[pasture + offsets[cell] + 1 + slots[seat]] = 1.0
    sides = hdz.TRACK_SIDES[size]
    hand_sizes, known, goat_at, facing = (
        at["hand_sizes"],
        at["known_hands"],
        at["goats"],
        at["facing"],
    )
    displays, markers, score_at = at["displays"], at["markers"], at["scores"]
    scores, players = state.scores(), seats.players
    for slot, seat in enumerate(seats.order()):
        seat %= players
        out[hand_sizes + slot] = len(state.hands[seat]) / 2
        tally(out, known + slot * cards, state.known[seat], HDZ_CARDS, 1 / 2, cards)
        position = state.goats[seat]
        out[goat_at + slot * _HDZ_TRACK + position] = 1.0
        line, index = sides[position]
        start = facing + slot * (2 + HDZ_SIZE)
        out[start + (line == "column")] = 1.0
        out[start + 2 + index] = 1.0
        tally(out, displays + slot * cards, state.displays[seat], HDZ_CARDS, 1 / 4, cards)
        out[markers + slot] = state.markers[seat] / 10
        out[score_at + slot] = scores[seat] / 50
    owners = at["owners"]
    for kind, owner in state.owners.items():
        out[owners + HDZ_TYPES[kind] * max_players + slots[owner]] = 1.0
    fifth = at["fifth_cards"]
    for card, winner in state.fifth.items():
        out[fifth + HDZ_TYPES[hdz.CARD_TYPE[card]] * max_players + slots[winner]] = 1.0
    closed = at["closed"]
    for kind in state.closed:
        out[closed + HDZ_TYPES[kind]] = 1.0
    drive, cells = at["drive"], HDZ_SIZE * HDZ_SIZE
    if state.pending is not None:
        source, target = state.pending
        out[drive] = 1.0
        out[drive + 1 + offsets[source] // HDZ_CELL] = 1.0
        out[drive + 1 + cells + offsets[target] // HDZ_CELL] = 1.0
    out[drive + 1 + 2 * cells] = len(state.refused) / 10
    out[at["draw_size"]] = len(state.draw) / 100
    out[at["ended"]] = float(bool(state.end_reason))
