"""Goat 'n' Goat: the rules that change a state, one method per kind of decision.

The state class, :class:`goatarena.games.goat_n_goat.GoatNGoatState`, finds these methods
through the identity of the shared action offered.
"""

from __future__ import annotations

from itertools import compress

from goatarena.games.chance import shuffle
from goatarena.games.goat_n_goat_tables import (
    CARD_RANGE,
    DISCARD,
    FINAL_RUN_OUT,
    HAND_LIMIT,
    MOUNTAIN,
    NEXT_SEATS,
    OVER,
    PLAY,
    ROW_SIZE,
    STRIDE,
    TAKE,
    PlayMove,
)
from goatarena.games.goat_n_goat_view import FlockView


class FlockMoves(FlockView):
    """Plays, takes, discards, trades and the end of a turn."""

    def _can_trade(self) -> bool:
        """Whether any flock of the seat to act can afford a face-up mountain."""
        # Three colours, unrolled: this runs at the end of nearly every turn. An empty
        # flock affords nothing (every mountain is worth at least one); the cheapest
        # mountain is the first (they are kept ascending).
        green, blue, red = self.flocks[self.seat]
        m_green, m_blue, m_red = self.mountains
        return bool(
            (green and m_green and m_green[0] <= len(green))
            or (blue and m_blue and m_blue[0] <= len(blue))
            or (red and m_red and m_red[0] <= len(red))
        )

    def _play(self, move: PlayMove) -> None:
        """Cards of one number onto their flocks; a lower number retires the old flock."""
        cards, number, per_colour, codes = move
        seat = self.seat
        hand, known = self.hands[seat], self.known[seat]
        for card in cards:
            hand[card] -= 1
            if known[card]:
                known[card] -= 1
        flocks = self.flocks[seat]
        for colour, added in per_colour:
            flock = flocks[colour]
            if flock and number < flock[-1]:
                first = colour * STRIDE - 1  # card_type(colour, n) is first + n
                self.penalty_public[seat] += [first + n for n in flock]
                flock.clear()
            flock += added
        self.played = codes  # the move's own list, never changed in place
        self.take_count = number
        if self.row:
            self._phase = TAKE
        else:
            self._after_take()

    def _take(self, cards: tuple[int, ...]) -> None:
        """Resolution: the chosen cards are taken together, then the row is refilled."""
        seat = self.seat
        row, hand, known = self.row, self.hands[seat], self.known[seat]
        for card in cards:
            row.remove(card)
            hand[card] += 1
            known[card] += 1
        need = ROW_SIZE - len(row)
        draw = self.draw
        if need > 0:
            if len(draw) >= need and not self.ending:
                row += draw[: -need - 1 : -1]  # popped one by one: the top card first
                del draw[-need:]
            else:
                while len(row) < ROW_SIZE:
                    drawn = self._draw_card()
                    if drawn is None:
                        break
                    row.append(drawn)
        # What follows a take (_after_take), inlined: it runs after nearly every play.
        if sum(hand) > HAND_LIMIT:
            self._phase = DISCARD
            return
        green, blue, red = self.flocks[seat]
        m_green, m_blue, m_red = self.mountains
        if (
            (green and m_green and m_green[0] <= len(green))
            or (blue and m_blue and m_blue[0] <= len(blue))
            or (red and m_red and m_red[0] <= len(red))
        ):
            self._phase = MOUNTAIN
            return
        # _end_turn, inlined
        self.played = []
        self.take_count = 0
        if self.ending:
            self._phase = OVER
            self.is_over = True
            return
        hands = self.hands
        for after in NEXT_SEATS[self.players][seat]:
            if any(hands[after]):
                self.seat = after
                self._phase = PLAY
                return
        self._phase = OVER
        self.is_over = True

    def _draw_card(self) -> int | None:
        """The top card of the draw pile, rebuilding it on a run-out that is not final."""
        if self.ending:
            return None
        if not self.draw:
            self.run_outs += 1
            if self.run_outs >= FINAL_RUN_OUT[self.players] or not self.discard:
                self.ending = True
                return None
            self.draw, self.discard = self.discard, []
            shuffle(self.rng, self.draw)
            self.reshuffled = True
        return self.draw.pop()

    def _after_take(self) -> None:
        if sum(self.hands[self.seat]) > HAND_LIMIT:
            self._phase = DISCARD
        elif self._can_trade():
            self._phase = MOUNTAIN
        else:
            self._end_turn()

    def _discard(self, card: int) -> None:
        """One card from hand face down to the penalty pile; others learn only that."""
        seat = self.seat
        hand = self.hands[seat]
        hand[card] -= 1
        self.penalty_hidden[seat].append(card)
        # Any known card may be the one discarded, so each known count drops by one.
        known = self.known[seat]
        for known_card in compress(CARD_RANGE, known):
            known[known_card] -= 1
        if sum(hand) <= HAND_LIMIT:
            if self._can_trade():
                self._phase = MOUNTAIN
            else:
                self._end_turn()

    def _trade(self, move: tuple[int, int]) -> None:
        """A whole flock to the discard pile for a face-up mountain of its colour."""
        colour, value = move
        flock = self.flocks[self.seat][colour]
        first = colour * STRIDE - 1  # card_type(colour, n) is first + n
        self.discard += [first + number for number in flock]
        flock.clear()
        self.mountains[colour].remove(value)
        self.held[self.seat][colour].append(value)
        self._end_turn()

    def _decline(self, _: None) -> None:
        self._end_turn()

    def _end_turn(self) -> None:
        self.played = []
        self.take_count = 0
        if self.ending:
            self._phase = OVER
            self.is_over = True
            return
        hands = self.hands
        for seat in NEXT_SEATS[self.players][self.seat]:
            if any(hands[seat]):
                self.seat = seat
                self._phase = PLAY
                return
        self._phase = OVER  # nobody holds a card: nothing can ever happen again
        self.is_over = True
