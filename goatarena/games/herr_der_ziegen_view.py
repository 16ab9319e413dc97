"""Herr der Ziegen: the fields of a game state and what can be read off them.

:class:`PastureView` declares the state's fields and holds everything that only reads
them: who acts, the available cards of a line, the scores as if the game ended now, a
seat's observation and the text picture. The rules that change a state are in
:class:`goatarena.games.herr_der_ziegen_moves.PastureMoves` and
:class:`goatarena.games.herr_der_ziegen.HerrDerZiegenState`, built on this class.
"""

from __future__ import annotations

from itertools import compress, repeat
from operator import is_not
from typing import cast

from goatarena.games.base import Observation, Result, State, ranks_from_keys
from goatarena.games.herr_der_ziegen_tables import (
    CARD_VALUE,
    CELL_PLACES,
    DOG,
    MILK_CANS,
    NO_MARK,
    PHASE_NAMES,
    ROW_SLICES,
    TRACK_LINES,
    TRACK_SIDES,
    Phase,
    stall_rays,
)


class PastureView(State):
    """The fields of a Herr der Ziegen game and the queries on them.

    The pasture is a flat list of N * N cells, index ``row * N + column``: ``cards`` holds
    a card name or None (empty cell or stall), ``marks`` the seat whose small goat stands
    on the card, or NO_MARK. The draw pile's top is its last element.

    ``_tally`` counts what the displays show, so that a take need not scan them: goat
    type -> how many of its cards, and (type, seat) -> the sum of the seat's cards of
    the type. It belongs to the ``displays`` list it was counted from (``_tally_of``):
    code that sets ``displays`` to a new list (samplers, tests) gets a fresh count on
    the next use; the displays' lists are changed in place only by the rules.

    ``is_over`` is kept with ``phase`` by the rules: code that sets ``phase`` from outside
    (samplers) sets ``is_over`` to match.
    """

    __slots__ = ("is_over",)
    is_over: bool
    """True once no seat has anything left to decide. A slot, not a property, since a
    playout reads it before every decision; the rules set it with ``phase`` (_finish).
    Being a slot, it is not in ``__dict__``: a state assembled by copying ``__dict__``
    sets it itself (clone does, and so does the strategy's sampler)."""

    size: int
    cards: list[str | None]
    marks: list[int | None]
    stalls: list[int]
    """The stall cell of each seat."""
    stall_seat: dict[int, int]
    """Stall cell -> its seat."""
    goats: list[int]
    """Each seat's big goat track position."""
    markers: list[int]
    """Each seat's small goats not yet on the pasture."""
    hands: list[list[str]]
    known: list[list[str]]
    """Cards in each hand that everybody saw it take (a sub-multiset of the hand)."""
    displays: list[list[str]]
    owners: dict[str, int]
    """Goat type -> the seat that won it by majority."""
    fifth: dict[str, int]
    """Fifth card of a type -> the seat that won it by the fourth-card scoring."""
    closed: set[str]
    """Goat types scored (by majority or fourth card): their cards leave the displays."""
    draw: list[str]
    seat: int
    """The active seat, whose turn it is."""
    phase: Phase
    played: str | None
    """The card the active seat played this turn, if any."""
    refused: list[tuple[int, int]]
    """(source, target) drives refused this turn."""
    pending: tuple[int, int] | None
    """The drive waiting for the marked card's owner to agree."""
    turn: int
    end_reason: str

    _tally: dict[str, int]
    _tally_of: list[list[str]] | None = None
    """The displays list ``_tally`` counts; None until counted (states built bare)."""

    def _to_act(self) -> int | None:
        if self.phase is Phase.OVER:
            return None
        if self.phase is Phase.CONSENT and self.pending is not None:
            asked = self.marks[self.pending[1]]
            if asked is not None:
                return asked
        return self.seat

    def available_in_line(self, seat: int | None = None) -> list[int]:
        """Available cells of the line a seat's big goat faces (default: the active seat)."""
        position = self.goats[self.seat if seat is None else seat]
        cards, marks = self.cards, self.marks
        # Stalls hold no card (nothing is ever laid or driven into one).
        return [
            cell
            for cell in TRACK_LINES[self.size][position]
            if cards[cell] is not None and marks[cell] is NO_MARK
        ]

    # -- scoring -------------------------------------------------------------------------

    def tied_cells(self, seat: int) -> set[int]:
        """Cells of ``seat``'s marked cards tied to its stall (doubled at the end)."""
        marks = self.marks
        tied = set()
        for ray in stall_rays(self.stalls[seat], self.size):
            for cell in ray:
                if marks[cell] != seat:
                    break
                tied.add(cell)
        return tied

    def pasture_points(self, seat: int) -> int:
        """Values of ``seat``'s marked cards, doubled when tied to its stall."""
        tied = self.tied_cells(seat)
        return sum(
            CARD_VALUE[card or ""] * (2 if cell in tied else 1)
            for cell, card in enumerate(self.cards)
            if self.marks[cell] == seat
        )

    def cans(self, seat: int) -> int:
        """Milk cans in ``seat``'s display."""
        display = self.displays[seat]
        total = 0
        # Plain loops here and in milk_bonus: every observation scores the displays.
        for card, cans in MILK_CANS:
            total += cans * display.count(card)
        return total

    def milk_bonus(self) -> list[int]:
        """Most cans: their count; next-highest count: half of it, rounded down."""
        cans = []
        for display in self.displays:
            total = 0
            for card, count in MILK_CANS:
                total += count * display.count(card)
            cans.append(total)
        bonus = [0] * len(cans)
        most = max(cans)
        if most > 0:
            second = 0  # the next distinct count below the most, if any seat has one
            for count in cans:
                if second < count < most:
                    second = count
            for seat, count in enumerate(cans):
                if count == most:
                    bonus[seat] = count
                elif count == second and second > 0:
                    bonus[seat] = count // 2
        return bonus

    def scores(self) -> list[int]:
        """Pasture points plus milk bonus per seat, as if the game ended now."""
        scores = self.milk_bonus()
        cards, marks, values = self.cards, self.marks, CARD_VALUE
        # The marked cells, found in C (most cells are unmarked; comparing a mark with a
        # seat number costs more than an identity test with None).
        marked = list(compress(range(len(marks)), map(is_not, marks, repeat(NO_MARK))))
        if not marked:
            return scores
        seats = cast("list[int]", list(map(marks.__getitem__, marked)))
        tied: set[int] = set()
        for seat in set(seats):
            tied.update(self.tied_cells(seat))
        for cell, seat in zip(marked, seats):
            value = values[cards[cell] or ""]
            scores[seat] += 2 * value if cell in tied else value
        return scores

    def marked_count(self, seat: int) -> int:
        """How many pasture cards carry ``seat``'s markers."""
        return self.marks.count(seat)

    def _result(self) -> Result:
        scores = self.scores()
        keys = [(scores[seat], self.marked_count(seat)) for seat in range(self.players)]
        return Result(scores=[float(score) for score in scores], ranks=ranks_from_keys(keys))

    # -- what a seat sees ----------------------------------------------------------------

    def observation(self, seat: int) -> Observation:
        """Own hand, the whole pasture and the public state; other hands only as counts."""
        size = self.size
        pending = None
        if self.pending is not None:
            pending = [list(divmod(cell, size)) for cell in self.pending]
        refused = []
        if self.refused:
            refused = [
                [list(divmod(source, size)), list(divmod(target, size))]
                for source, target in self.refused
            ]
        # The lists are built by map in C rather than by comprehensions (a frame each):
        # the referee builds an observation for every decision.
        return {
            "seat": seat,
            "to_act": self._to_act(),
            "active": self.seat,
            "phase": PHASE_NAMES[self.phase],
            "turn": self.turn,
            "played": self.played,
            "hand": sorted(self.hands[seat]),
            "size": size,
            "pasture": list(map(self.cards.__getitem__, ROW_SLICES[size])),
            "marks": list(map(self.marks.__getitem__, ROW_SLICES[size])),
            "stalls": list(map(list, map(CELL_PLACES[size].__getitem__, self.stalls))),
            "goats": list(self.goats),
            "facing": list(map(list, map(TRACK_SIDES[size].__getitem__, self.goats))),
            "displays": list(map(sorted, self.displays)),
            "owners": dict(sorted(self.owners.items())),
            "fifth_cards": dict(sorted(self.fifth.items())),
            "closed": sorted(self.closed),
            "markers": list(self.markers),
            "hand_sizes": list(map(len, self.hands)),
            "known_hands": list(map(sorted, self.known)),
            "draw_size": len(self.draw),
            "pending_drive": pending,
            "refused_drives": refused,
            "scores": self.scores(),
            "end_reason": self.end_reason,
        }

    def render(self) -> str:
        """The pasture as a text grid with markers, stalls and big goats round the edge."""
        return render_state(self)


# -- the text picture -------------------------------------------------------------------


CELL_WIDTH = 6
MARGIN = 5
RENDER_NAMES = {DOG: "dog", "milk1": "mk1", "milk2": "mk2"}


def render_cell(state: PastureView, cell: int) -> str:
    """One pasture cell: "[S0]" a stall, "." empty, "A3*1" a card marked by seat 1."""
    if cell in state.stall_seat:
        return f"[S{state.stall_seat[cell]}]"
    card = state.cards[cell]
    if card is None:
        return "."
    text = RENDER_NAMES.get(card, card)
    mark = state.marks[cell]
    return text if mark is NO_MARK else f"{text}*{mark}"


def goats_at(state: PastureView, position: int, arrow: str) -> str:
    """ "v02" above a column when the big goats of seats 0 and 2 stand there facing it."""
    seats = "".join(str(seat) for seat, at in enumerate(state.goats) if at == position)
    return f"{arrow}{seats}" if seats else ""


def render_state(state: PastureView) -> str:
    """The state as text: header, pasture grid with the track round it, then seats."""
    size = state.size
    if state.phase is Phase.OVER:
        header = f"game over ({state.end_reason}); scores {state.scores()}"
    else:
        header = f"turn {state.turn}: seat {state.seat} to {state.phase.value}"
        if state.played is not None:
            header += f" (played {state.played})"
    lines = [header, f"draw pile: {len(state.draw)} cards"]
    lines.append(" " * MARGIN + "".join(f"{column:<{CELL_WIDTH}}" for column in range(size)))
    lines.append(
        " " * MARGIN + "".join(f"{goats_at(state, c, 'v'):<{CELL_WIDTH}}" for c in range(size))
    )
    for row in range(size):
        left = goats_at(state, 4 * size - 1 - row, ">")
        right = goats_at(state, size + row, "<")
        cells = "".join(f"{render_cell(state, row * size + c):<{CELL_WIDTH}}" for c in range(size))
        lines.append(f"{row:>1} {left:<{MARGIN - 2}}{cells}{right}".rstrip())
    lines.append(
        " " * MARGIN
        + "".join(f"{goats_at(state, 3 * size - 1 - c, '^'):<{CELL_WIDTH}}" for c in range(size))
    )
    for seat in range(state.players):
        display = " ".join(RENDER_NAMES.get(card, card) for card in sorted(state.displays[seat]))
        lines.append(
            f"seat {seat}: hand {len(state.hands[seat])}, markers {state.markers[seat]},"
            f" display [{display}]"
        )
    owners = " ".join(f"{kind}:{seat}" for kind, seat in sorted(state.owners.items()))
    fifth = " ".join(f"{card}:{seat}" for card, seat in sorted(state.fifth.items()))
    lines.append(
        f"owners [{owners}]  fifth cards [{fifth}]  closed [{''.join(sorted(state.closed))}]"
    )
    return "\n".join(line.rstrip() for line in lines)
