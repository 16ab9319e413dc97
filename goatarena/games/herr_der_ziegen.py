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

The module is in four layers, each importing only the ones below it:
:mod:`~goatarena.games.herr_der_ziegen_tables` (card data and pasture geometry, made
once), :mod:`~goatarena.games.herr_der_ziegen_view` (the state's fields, scores,
observation and text picture), :mod:`~goatarena.games.herr_der_ziegen_moves` (scoring a
type, the dog, turn and game end) and this one: setting up, the legal actions, and plays
and takes carried out in one piece, the hot path of every playout.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from goatarena.errors import IllegalAction
from goatarena.games.base import Action, GameInfo, Result
from goatarena.games.chance import shuffle
from goatarena.games.herr_der_ziegen_moves import PastureMoves
from goatarena.games.herr_der_ziegen_tables import (
    CARD_KIND,
    CARD_VALUE,
    CARDS_FOR_FIFTH,
    DOG,
    HAND_SIZE,
    LAYOUTS,
    MAJORITY,
    MARKERS,
    NO_MARK,
    PLAY_ACTIONS,
    SEAT_KINDS,
    TAKE_ACTIONS,
    TRACK_LINES,
    Phase,
    deck_in_play,
)

# Re-exported: the rule tests import them from here.
from goatarena.games.herr_der_ziegen_tables import cards_in_play as cards_in_play
from goatarena.games.herr_der_ziegen_tables import track_side as track_side

_PLAY, _TAKE, _DRIVE, _CONSENT, _OVER = Phase
"""The phases as module names: the hot paths compare them by identity."""


class HerrDerZiegenState(PastureMoves):
    """A Herr der Ziegen game in progress (the fields are described in PastureView)."""

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(players, seed, options)
        layout = LAYOUTS[players]
        size = layout.size
        self.size = size
        self.stalls = list(layout.stalls)
        self.stall_seat = dict(layout.stall_seat)
        self.goats = list(layout.goats)
        self.markers = [MARKERS] * players
        self.hands = [[] for _ in range(players)]
        self.known = [[] for _ in range(players)]
        self.displays = [[] for _ in range(players)]
        self.owners = {}
        self.fifth = {}
        self.closed = set()
        self.seat = 0
        self.phase = Phase.PLAY
        self.played = None
        self.refused = []
        self.pending = None
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
        self.marks = [NO_MARK] * (size * size)
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

    def _legal_actions(self) -> list[Action]:
        if self.phase is _PLAY:
            return [PLAY_ACTIONS[card] for card in sorted(set(self.hands[self.seat]))]
        if self.phase is _TAKE:
            takes = TAKE_ACTIONS[self.size]
            return [takes[cell] for cell in self.available_in_line()]
        if self.phase is _DRIVE:
            return self._drive_actions()
        return ["agree", "refuse"]

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

    def clone(self, rng: random.Random | None = None) -> HerrDerZiegenState:
        """A copy sharing no mutable state with this one (much faster than deepcopy)."""
        other = self._copy_bookkeeping(rng)
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


INFO = GameInfo(
    name="herr-der-ziegen",
    title="Herr der Ziegen",
    min_players=2,
    max_players=5,
    state_class=HerrDerZiegenState,
    hidden_information=True,
    summary="cards: move round a goat pasture, win goat types by majority, drive them home",
)
