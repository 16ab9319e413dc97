"""Herr der Ziegen: the rules' steps that a turn calls on the way.

:class:`PastureMoves` holds what the hot path of
:class:`goatarena.games.herr_der_ziegen.HerrDerZiegenState` (plays and takes, carried out
in one piece there) calls only now and then: marking and scoring a goat type, counting
the displays afresh, the dog's drives and their answers, and the end of a turn or game.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import filterfalse
from typing import cast

from goatarena.errors import IllegalAction
from goatarena.games.base import Action
from goatarena.games.herr_der_ziegen_tables import (
    CARD_KIND,
    CARD_VALUE,
    CARDS_FOR_FIFTH,
    DRIVE_TABLES,
    KIND_CARDS,
    MAJORITY,
    NO_MARK,
    SEAT_KINDS,
    TYPE_TOTAL,
    Phase,
    card_name,
    closer_in_line,
    drive_action,
)
from goatarena.games.herr_der_ziegen_view import PastureView

_PLAY, _OVER = Phase.PLAY, Phase.OVER
"""The phases the steps here set, as module names."""


class PastureMoves(PastureView):
    """The rules' steps besides playing and taking: scoring, the dog, turn and game end."""

    # -- phases 1-4: the scoring after a take ----------------------------------------------

    def _on_enter(self, cell: int) -> None:
        """A card just laid into the pasture is marked at once if its owner has a marker."""
        card = self.cards[cell]
        kind = CARD_KIND[card] if card is not None else ""
        if not kind:
            return
        if kind in self.owners:
            self._mark(cell, self.owners[kind])
        elif card in self.fifth:
            self._mark(cell, self.fifth[card])

    def _mark(self, cell: int, seat: int) -> None:
        if self.markers[seat] > 0:
            self.marks[cell] = seat
            self.markers[seat] -= 1

    def _score(self, kind: str, tally: dict[str, int]) -> None:
        """Majority, else fourth card; either closes the type and clears it from displays.

        ``tally`` is the count of the displays (see the class docstring), up to date.
        """
        seat = self.seat
        keys = [seat_kinds[kind] for seat_kinds in SEAT_KINDS[: self.players]]
        if tally.get(keys[seat], 0) >= MAJORITY:
            self.owners[kind] = seat
            markers, marks = self.markers, self.marks
            for cell in self._available_of_type(kind):
                if markers[seat] > 0:
                    marks[cell] = seat
                    markers[seat] -= 1
        elif tally.get(kind) == CARDS_FOR_FIFTH:
            sums = [tally.get(key, 0) for key in keys]
            best = max(sums)
            if sums.count(best) == 1:
                leader = sums.index(best)
                fifth = card_name(kind, TYPE_TOTAL - sum(sums))
                self.fifth[fifth] = leader
                cards = self.cards
                if fifth in cards:
                    cell = cards.index(fifth)
                    if self.marks[cell] is NO_MARK:
                        self._mark(cell, leader)
        else:
            return
        self.closed.add(kind)
        of_kind = KIND_CARDS[kind].__contains__
        displays = self.displays
        for other, key in enumerate(keys):
            if tally.pop(key, 0):  # the seat shows cards of the type (values are 1-5)
                display = displays[other]
                display[:] = filterfalse(of_kind, display)
        tally.pop(kind, None)

    def _retally(self) -> dict[str, int]:
        """Count the displays' goat cards afresh into ``_tally`` and return it."""
        tally: dict[str, int] = {}
        for display, seat_kinds in zip(self.displays, SEAT_KINDS):
            for card in display:
                kind = CARD_KIND[card]
                if kind:
                    tally[kind] = tally.get(kind, 0) + 1
                    key = seat_kinds[kind]
                    tally[key] = tally.get(key, 0) + CARD_VALUE[card]
        self._tally = tally
        self._tally_of = self.displays
        return tally

    def _available_of_type(self, kind: str) -> list[int]:
        """Available pasture cells holding the type, highest value first."""
        cards, marks = self.cards, self.marks
        # One scan of the pasture in C finds the type's cards (each card exists once).
        found = sorted(
            cast("Iterator[str]", filter(KIND_CARDS[kind].__contains__, cards)),
            key=CARD_VALUE.__getitem__,
        )
        cells = []
        for card in reversed(found):
            cell = cards.index(card)
            if marks[cell] is NO_MARK:
                cells.append(cell)
        return cells

    # -- phase 5: the dog ----------------------------------------------------------------

    def _drive_actions(self) -> list[Action]:
        """The drives open to the active seat as actions, then "pass"."""
        seat, marks = self.seat, self.marks
        actions: list[Action] = []
        if self.refused:
            size = self.size
            actions.extend(drive_action(source, target, size) for source, target in self.drives())
        else:
            # drives() without refusals, from a table that leaves the stalls out.
            table = DRIVE_TABLES[self.players][seat]
            source = -1
            for _ in range(marks.count(seat)):
                source = marks.index(seat, source + 1)
                for target, action in table[source]:
                    if marks[target] != seat:
                        actions.append(action)
        actions.append("pass")
        return actions

    def drives(self) -> list[tuple[int, int]]:
        """(source, target) cells the active seat may drive a marked card along, in order."""
        seat, marks, stalls, refused = self.seat, self.marks, self.stall_seat, self.refused
        closer = closer_in_line(self.stalls[seat], self.size)
        found = []
        source = -1
        for _ in range(marks.count(seat)):
            source = marks.index(seat, source + 1)
            for target in closer[source]:
                if (
                    marks[target] != seat
                    and target not in stalls
                    and (source, target) not in refused
                ):
                    found.append((source, target))
        return found

    def _drive(self, source: int, target: int) -> None:
        if self.marks[target] is not NO_MARK:
            self.pending = (source, target)
            self.phase = Phase.CONSENT
            return
        self._swap(source, target)
        self._end_turn()

    def _answer(self, agreed: bool) -> None:
        if self.pending is None:
            raise IllegalAction("no drive waits for consent")
        source, target = self.pending
        self.pending = None
        if agreed:
            self._swap(source, target)
            self._end_turn()
            return
        self.refused.append((source, target))
        if self.drives():
            self.phase = Phase.DRIVE
        else:
            self._end_turn()

    def _swap(self, source: int, target: int) -> None:
        """Swap two cells' cards with their markers (an empty cell swaps too)."""
        cards, marks = self.cards, self.marks
        cards[source], cards[target] = cards[target], cards[source]
        marks[source], marks[target] = marks[target], marks[source]

    # -- turn and game end ---------------------------------------------------------------

    def _end_turn(self) -> None:
        self.seat = (self.seat + 1) % self.players
        self.phase = _PLAY
        self.played = None
        if self.refused:
            self.refused = []
        self.pending = None
        self.turn += 1

    def _finish(self, reason: str) -> None:
        self.phase = Phase.OVER
        self.is_over = True
        self.end_reason = reason
