"""Herr der Ziegen (Günter Burkhardt, Amigo 2008) for 2-5 players, as ``rules/herr-der-ziegen.md``.

Cards lie face up in a square pasture with every player's stall built into its edge.
Each turn the active seat plays a hand card into its display, moves its big goat
clockwise round the pasture by the card's value, takes an available card from the row or
column the goat faces, and may then score the played goat type: a display sum of 8 or
more makes the player the type's owner (its pasture cards are marked with the player's
small goats), and the fourth card of a type on the table gives its fifth card to the
strict leader. A played dog lets the player drive one of their marked cards towards
their stall. Marked cards score their value, doubled when tied to the owner's stall, and
the milk cans in the displays give a bonus.

A turn is a sequence of decisions: ``{"play": card}``, ``{"take": [row, column]}``, then
after a dog ``{"drive": [[row, column], [row, column]]}`` or ``"pass"``; a drive onto an
opponent's marked card asks that opponent ``"agree"`` or ``"refuse"``.

Hidden information: the two cards dealt to each seat at the start (until played) and the
order of the draw pile. Every card taken from the pasture is seen by all, so the
observation lists each seat's publicly known hand cards.

Decisions made here where the rules file leaves a gap:

- When a new owner has fewer markers than available cards of the type, the highest
  values are marked first (the five cards of a type have distinct values).
- After an opponent refuses a swap, the driving player chooses again among the drives
  not refused this turn, or passes; a refused drive is not offered again that turn.
- A game that ends "at once" ends before the played card is scored and before a dog
  drive.
- A drive may pass over any cards between the driven card and its target cell.
- "Next-highest" milk count is the next distinct count below the most: when two seats
  tie for the most cans, both get their full count and the next count gets half.
- When a card is a known hand card and also one of the hidden dealt cards of the same
  seat, playing it is taken to play the known one (what the table can tell).
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from collections.abc import Iterator
from enum import StrEnum
from functools import cache
from itertools import compress, filterfalse, repeat
from operator import is_not
from typing import Any, NamedTuple, cast

from goatarena.errors import IllegalAction
from goatarena.games.base import Action, GameInfo, Observation, Result, State, ranks_from_keys
from goatarena.games.chance import shuffle

# -- constants and card data -------------------------------------------------------------

TYPES = "ABCDEFGHIJKLMNOPQR"
"""The 18 goat types; each has the five cards TYPE1 ... TYPE5 (sum 15)."""
GOAT_VALUES = (1, 2, 3, 4, 5)
TYPE_TOTAL = sum(GOAT_VALUES)
DOG = "dog"
MILK = {"milk1": 1, "milk2": 2}
"""Milk card name -> cans; half of the milk cards in play are of each kind."""

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


_PLAY, _TAKE, _DRIVE, _CONSENT, _OVER = Phase
"""The phases as module names: the hot paths compare them by identity."""
PHASE_NAMES = {phase: phase.value for phase in Phase}
"""Phase -> its name as a plain str (``.value`` of an enum member runs Python code)."""


# -- the state ---------------------------------------------------------------------------


class HerrDerZiegenState(State):
    """A Herr der Ziegen game in progress.

    The pasture is a flat list of N * N cells, index ``row * N + column``: ``cards`` holds
    a card name or None (empty cell or stall), ``marks`` the seat whose small goat stands
    on the card, or NO_MARK. The draw pile's top is its last element.

    ``_tally`` counts what the displays show, so that a take need not scan them: goat
    type -> how many of its cards, and (type, seat) -> the sum of the seat's cards of
    the type. It belongs to the ``displays`` list it was counted from (``_tally_of``):
    code that sets ``displays`` to a new list (samplers, tests) gets a fresh count on
    the next use; the displays' lists are changed in place only here.

    ``is_over`` is kept with ``phase`` by the rules: code that sets ``phase`` from outside
    (samplers) sets ``is_over`` to match.
    """

    __slots__ = ("is_over",)
    is_over: bool
    """True once no seat has anything left to decide. A slot, not a property, since a
    playout reads it before every decision; the rules set it with ``phase`` (_finish).
    Being a slot, it is not in ``__dict__``: a state assembled by copying ``__dict__``
    sets it itself (clone does, and so does the strategy's sampler)."""

    _tally: dict[str, int]
    _tally_of: list[list[str]] | None = None
    """The displays list ``_tally`` counts; None until counted (states built bare)."""

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(players, seed, options)
        layout = LAYOUTS[players]
        size = layout.size
        self.size: int = size
        self.stalls = list(layout.stalls)
        self.stall_seat = dict(layout.stall_seat)
        self.goats = list(layout.goats)
        self.markers = [MARKERS] * players
        self.hands: list[list[str]] = [[] for _ in range(players)]
        self.known: list[list[str]] = [[] for _ in range(players)]
        """Cards in each hand that everybody saw it take (a sub-multiset of the hand)."""
        self.displays: list[list[str]] = [[] for _ in range(players)]
        self.owners: dict[str, int] = {}
        """Goat type -> the seat that won it by majority."""
        self.fifth: dict[str, int] = {}
        """Fifth card of a type -> the seat that won it by the fourth-card scoring."""
        self.closed: set[str] = set()
        self.seat = 0
        self.phase = Phase.PLAY
        self.played: str | None = None
        self.refused: list[tuple[int, int]] = []
        self.pending: tuple[int, int] | None = None
        self.turn = 1
        self.end_reason = ""
        self.is_over = False
        self._tally = {}
        self._tally_of = self.displays

        deck = list(deck_in_play(players))
        shuffle(self.rng, deck)
        # The shuffled cards fill the non-stall cells in index order: the first ones in
        # order, with a gap opened at each stall (ascending, so earlier gaps count).
        open_count = size * size - players
        cards: list[str | None] = list(deck[:open_count])
        for stall in layout.stalls_ascending:
            cards.insert(stall, None)
        self.cards = cards
        self.marks: list[int | None] = [NO_MARK] * (size * size)
        self.draw = deck[open_count:]
        self._deal()

    def _deal(self) -> None:
        """Two cards each; a dealt dog is set aside, replaced, then shuffled back in."""
        dogs: list[str] = []
        draw, hands = self.draw, self.hands
        for _ in range(HAND_SIZE):
            for hand in hands:
                card = draw.pop()
                while card == DOG:
                    dogs.append(card)
                    card = draw.pop()
                hand.append(card)
        if dogs:
            draw.extend(dogs)
            shuffle(self.rng, draw)

    # -- the decision hooks ------------------------------------------------------------

    def result(self) -> Result:
        """Scores and ranks; only defined once the game is over (by ``phase``)."""
        if self.phase is not _OVER:
            raise IllegalAction("the game is not over yet")
        return self._result()

    def legal_actions(self) -> list[Action]:
        """The choices of the seat to act, computed once per state."""
        legal = self._legal
        if legal is None:
            phase = self.phase
            if phase is _PLAY:
                hand = self.hands[self.seat]
                if len(hand) == 2:  # nearly always: a turn plays one card and takes one
                    first, second = hand
                    if first == second:
                        legal = [PLAY_ACTIONS[first]]
                    elif first < second:
                        legal = [PLAY_ACTIONS[first], PLAY_ACTIONS[second]]
                    else:
                        legal = [PLAY_ACTIONS[second], PLAY_ACTIONS[first]]
                else:
                    legal = [PLAY_ACTIONS[card] for card in sorted(set(hand))]
            elif phase is _OVER:
                legal = []
            else:
                legal = self._legal_actions()
            self._legal = legal
        return legal

    def apply_index(self, index: int) -> Action:
        """Apply the ``index``-th legal action and return it.

        Plays and takes, all but a few decisions, are carried out here in one piece (a
        playout pays for every Python call); drives and answers go through :meth:`_apply`.
        """
        legal = self._legal
        if legal is None:
            legal = self.legal_actions()
        try:  # costs nothing unless raised, unlike a bounds check on every decision
            if index < 0:
                raise IndexError
            action = legal[index]
        except IndexError:
            raise IllegalAction(f"action index {index} is outside 0..{len(legal) - 1}") from None
        self._legal = None
        phase = self.phase
        if phase is _PLAY:
            # Play a hand card, move the big goat, then find the faced line's choices.
            card = action["play"]
            seat = self.seat
            self.hands[seat].remove(card)
            known = self.known[seat]
            if card in known:
                known.remove(card)
            self.played = card
            goats = self.goats
            goats[seat] = position = (goats[seat] + CARD_VALUE[card]) % (4 * self.size)
            kind = CARD_KIND[card]
            if not kind:
                self.displays[seat].append(card)
            elif kind not in self.closed:
                # The count first: a fresh count must not see the card twice.
                tally = self._tally if self._tally_of is self.displays else self._retally()
                self.displays[seat].append(card)
                tally[kind] = tally.get(kind, 0) + 1
                key = SEAT_KINDS[seat][kind]
                tally[key] = tally.get(key, 0) + CARD_VALUE[card]
            # The take choices: available_in_line's cells as actions, in a plain loop (which
            # measured faster than choices memoised by the line's markers).
            cards, marks, takes = self.cards, self.marks, TAKE_ACTIONS[self.size]
            legal = []
            for cell in TRACK_LINES[self.size][position]:
                if cards[cell] is not None and marks[cell] is NO_MARK:
                    legal.append(takes[cell])
            if legal:
                self.phase = _TAKE
                self._legal = legal
            else:
                self._finish("the faced line holds no available card")
        elif phase is _TAKE:
            # Take the card, refill its cell from the draw pile, score, end the turn.
            row, column = action["take"]
            cell = row * self.size + column
            cards = self.cards
            card = cards[cell]
            if card is None:
                raise IllegalAction("an empty cell cannot be taken")
            seat = self.seat
            self.hands[seat].append(card)
            self.known[seat].append(card)
            draw = self.draw
            if draw:
                cards[cell] = entered = draw.pop()
                kind = CARD_KIND[entered]
                if kind and (kind in self.owners or entered in self.fifth):
                    self._on_enter(cell)
            else:
                cards[cell] = None
                if not self.available_in_line():
                    self._finish("the last available card of a line was taken")
                    self.history.append(action)
                    return action
            played = self.played
            kind = CARD_KIND[played] if played is not None else ""
            if kind:
                # The tally tells whether _score's scan can find anything to score.
                if kind not in self.closed:
                    tally = self._tally if self._tally_of is self.displays else self._retally()
                    if (
                        tally.get(kind) == CARDS_FOR_FIFTH
                        or tally.get(SEAT_KINDS[seat][kind], 0) >= MAJORITY
                    ):
                        self._score(kind, tally)
            elif played == DOG:
                drives = self._drive_actions()
                if len(drives) > 1:  # more than "pass"
                    self.phase = _DRIVE
                    self._legal = drives
                    self.history.append(action)
                    return action
            # _end_turn, inlined
            self.seat = (seat + 1) % self.players
            self.phase = _PLAY
            self.played = None
            if self.refused:
                self.refused = []
            self.pending = None
            self.turn += 1
        else:
            self._apply(action)
        self.history.append(action)
        return action

    def _commit(self, action: Action) -> None:
        """Apply a checked action through :meth:`apply_index`, which holds the rules."""
        legal = self._legal
        if legal is None:
            legal = self.legal_actions()
        self.apply_index(legal.index(action))

    def _to_act(self) -> int | None:
        if self.phase is Phase.OVER:
            return None
        if self.phase is Phase.CONSENT and self.pending is not None:
            asked = self.marks[self.pending[1]]
            if asked is not None:
                return asked
        return self.seat

    def _legal_actions(self) -> list[Action]:
        if self.phase is _PLAY:
            return [PLAY_ACTIONS[card] for card in sorted(set(self.hands[self.seat]))]
        if self.phase is _TAKE:
            takes = TAKE_ACTIONS[self.size]
            return [takes[cell] for cell in self.available_in_line()]
        if self.phase is _DRIVE:
            return self._drive_actions()
        return ["agree", "refuse"]

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

    def _apply(self, action: Action) -> None:
        """A drive, a pass or an answer (:meth:`apply_index` carries out plays and takes)."""
        if self.phase is _DRIVE:
            if action == "pass":
                self._end_turn()
            else:
                (row, column), (to_row, to_column) = action["drive"]
                self._drive(row * self.size + column, to_row * self.size + to_column)
        else:
            self._answer(action == "agree")

    # -- phases 1-4: play, move, take, score (apply_index) and their helpers -------------

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
        for card, cans in MILK.items():
            total += cans * display.count(card)
        return total

    def milk_bonus(self) -> list[int]:
        """Most cans: their count; next-highest count: half of it, rounded down."""
        cans = []
        for display in self.displays:
            total = 0
            for card, count in MILK.items():
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

    def _resample_hidden(self, seat: int, rng: random.Random) -> None:
        """Redeal the other seats' unseen dealt cards and the draw pile.

        Unseen hand cards were dealt at the start, and a dealt dog is always replaced, so
        they are drawn from the non-dog cards among the unseen ones.
        """
        hidden_counts: dict[int, int] = {}
        pool = list(self.draw)
        for other in range(self.players):
            if other != seat:
                hidden = Counter(self.hands[other]) - Counter(self.known[other])
                pool.extend(hidden.elements())
                hidden_counts[other] = hidden.total()
        not_dogs = [card for card in pool if card != DOG]
        shuffle(rng, not_dogs)
        for other, count in hidden_counts.items():
            self.hands[other] = list(self.known[other])
            for _ in range(count):
                self.hands[other].append(not_dogs.pop())
        self.draw = not_dogs + [DOG] * pool.count(DOG)
        shuffle(rng, self.draw)

    def clone(self) -> HerrDerZiegenState:
        """A copy sharing no mutable state with this one (much faster than deepcopy)."""
        other = self._copy_bookkeeping()
        other.is_over = self.is_over
        other.goats = list(self.goats)
        other.markers = list(self.markers)
        other.hands = [list(hand) for hand in self.hands]
        other.known = [list(known) for known in self.known]
        other.displays = [list(display) for display in self.displays]
        if self._tally_of is self.displays:
            other._tally = dict(self._tally)
            other._tally_of = other.displays
        other.owners = dict(self.owners)
        other.fifth = dict(self.fifth)
        other.closed = set(self.closed)
        other.refused = list(self.refused)
        other.cards = list(self.cards)
        other.marks = list(self.marks)
        other.draw = list(self.draw)
        return other

    def render(self) -> str:
        """The pasture as a text grid with markers, stalls and big goats round the edge."""
        return render_state(self)


# -- helpers -----------------------------------------------------------------------------


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

CELL_WIDTH = 6
MARGIN = 5
RENDER_NAMES = {DOG: "dog", "milk1": "mk1", "milk2": "mk2"}


def render_cell(state: HerrDerZiegenState, cell: int) -> str:
    """One pasture cell: "[S0]" a stall, "." empty, "A3*1" a card marked by seat 1."""
    if cell in state.stall_seat:
        return f"[S{state.stall_seat[cell]}]"
    card = state.cards[cell]
    if card is None:
        return "."
    text = RENDER_NAMES.get(card, card)
    mark = state.marks[cell]
    return text if mark is NO_MARK else f"{text}*{mark}"


def goats_at(state: HerrDerZiegenState, position: int, arrow: str) -> str:
    """ "v02" above a column when the big goats of seats 0 and 2 stand there facing it."""
    seats = "".join(str(seat) for seat, at in enumerate(state.goats) if at == position)
    return f"{arrow}{seats}" if seats else ""


def render_state(state: HerrDerZiegenState) -> str:
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


INFO = GameInfo(
    name="herr-der-ziegen",
    title="Herr der Ziegen",
    min_players=2,
    max_players=5,
    state_class=HerrDerZiegenState,
    hidden_information=True,
    summary="cards: move round a goat pasture, win goat types by majority, drive them home",
)
