"""Goat Lords: the rules that change a state, one method per kind of move.

:class:`HerdRounds` deals and scores the rounds and restocks the hands between turns;
:class:`HerdMoves` carries out the actions (births, discards, duels). The state class,
:class:`goatarena.games.goat_lords.GoatLordsState`, finds these methods through the
identity of the shared action offered.
"""

from __future__ import annotations

from goatarena.games.chance import randbelow, shuffle
from goatarena.games.goat_lords_tables import (
    ANSWERS,
    CARDS,
    DECK,
    DUEL_SLOT,
    GOATINI,
    HOLDS_GOATINI,
    HOLDS_KIND,
    HOLDS_LORD,
    IS_GOAT,
    LORD,
    NEXT_SEAT,
    NEXT_SEATS,
    NO_ACTIONS,
    RECYCLE_MINIMUM,
    RESTOCK_ORDER,
    SAFE,
    TARGET,
)
from goatarena.games.goat_lords_view import HerdView


class HerdRounds(HerdView):
    """Rounds (deal, score, next round) and the restocking that ends every turn."""

    def _start_round(self) -> None:
        """Shuffle, deal, start the discard pile; seat ``round mod players`` begins."""
        draw = self.draw = list(DECK)
        shuffle(self.rng, draw)
        hands = self.hands = [[0] * len(CARDS) for _ in range(self.players)]
        for _ in range(self.hand_size):
            for hand in hands:
                hand[draw.pop()] += 1
        self.herds = [[] for _ in range(self.players)]
        self.discard = []
        self.recycled = False
        while True:
            card = draw.pop()
            if IS_GOAT[card]:
                self.discard.append(card)
                break
            # A wild cannot start the discard pile: back at a random place below the top.
            draw.insert(randbelow(self.rng, len(draw)), card)
        self.turn = self.round % self.players
        self.duel_target = -1
        self.duel_cards = []
        self._sizes = [self.hand_size] * self.players
        self._top_slots = [SAFE] * self.players
        self._uneven = False

    def _end_round(self) -> None:
        scores = [self.herd_value(seat) for seat in range(self.players)]
        self.round_scores.append(scores)
        self.totals = [total + score for total, score in zip(self.totals, scores, strict=True)]
        if self.rounds > 0:
            self.is_over = len(self.round_scores) >= self.rounds
        else:
            self.is_over = max(self.totals) >= TARGET
        if self.is_over:
            self._legal = NO_ACTIONS
        else:
            self.round += 1
            self._start_round()

    # -- restocking and the next turn ----------------------------------------------------

    def _end_turn(self) -> None:
        """Restock from the player who moved on in seat order, then find the next player.

        While the draw pile lasts every hand but the active seat's is full (``_uneven``
        says when that may not hold: after a duel the defender answered, or in a state
        built by hand), so the active seat is restocked directly unless the pile runs out.
        """
        active, sizes = self.turn, self._sizes
        draw = self.draw
        if draw:  # once empty, the draw pile stays empty for the round
            missing = self.hand_size - sizes[active]
            if len(draw) > missing and not self._uneven:
                hand = self.hands[active]
                hand[draw.pop()] += 1
                if missing > 1:
                    for _ in range(missing - 1):
                        hand[draw.pop()] += 1
                sizes[active] += missing
            else:
                self._restock_all()
        seat = NEXT_SEAT[self.players][active]
        if sizes[seat]:
            self.turn = seat
            return
        for seat in NEXT_SEATS[self.players][active]:
            if sizes[seat]:
                self.turn = seat
                return
        self._end_round()

    def _restock_all(self) -> None:
        """Restock every short hand in order from the active seat, recycling on the way."""
        hands, sizes, draw, size = self.hands, self._sizes, self.draw, self.hand_size
        for seat in RESTOCK_ORDER[self.players][self.turn]:
            hand = hands[seat]
            missing = size - sizes[seat]
            while missing > 0 and draw:
                hand[draw.pop()] += 1
                missing -= 1
                sizes[seat] += 1
                if not draw:
                    draw = self._recycle()
        self._uneven = bool(draw) and any(seat_size != size for seat_size in sizes)

    def _recycle(self) -> list[int]:
        """The draw pile just emptied: shuffle the discard pile into it if the rules allow."""
        if not self.recycled and len(self.discard) >= RECYCLE_MINIMUM:
            self.recycled = True
            self.draw = self.discard
            self.discard = []
            shuffle(self.rng, self.draw)
        return self.draw


class HerdMoves(HerdRounds):
    """The moves, one method per kind of action, each called as ``move(state, card, target)``.

    Each move restocks its player at once in the common case, the draw pile outlasting the
    cards it takes and every other hand full (not ``_uneven``): the hand is back to its
    size and the next seat in order plays. Otherwise ``_end_turn`` does the general work.
    """

    def _birth_pair(self, card: int, _target: int) -> None:
        seat = self.turn
        hand = self.hands[seat]
        hand[card] -= 2
        herd = self.herds[seat]
        if herd:
            self._top_slots[seat] = DUEL_SLOT[seat][card]
        herd.append([card, card])
        draw = self.draw
        if len(draw) > 2 and not self._uneven:
            hand[draw.pop()] += 1
            hand[draw.pop()] += 1
            self.turn = self._next[seat]
        else:
            self._sizes[seat] -= 2
            self._end_turn()

    def _birth_wild(self, card: int, _target: int) -> None:
        seat = self.turn
        hand = self.hands[seat]
        hand[card] -= 1
        herd = self.herds[seat]
        if herd:
            self._top_slots[seat] = DUEL_SLOT[seat][card]
        herd.append([card])
        draw = self.draw
        if len(draw) > 1 and not self._uneven:
            hand[draw.pop()] += 1
            self.turn = self._next[seat]
        else:
            self._sizes[seat] -= 1
            self._end_turn()

    def _assisted_birth(self, card: int, _target: int) -> None:
        seat = self.turn
        card = self.discard.pop()
        hand = self.hands[seat]
        hand[card] -= 1
        herd = self.herds[seat]
        if herd:
            self._top_slots[seat] = DUEL_SLOT[seat][card]
        herd.append([card, card])
        draw = self.draw
        if len(draw) > 1 and not self._uneven:
            hand[draw.pop()] += 1
            self.turn = self._next[seat]
        else:
            self._sizes[seat] -= 1
            self._end_turn()

    def _discard(self, card: int, _target: int) -> None:
        seat = self.turn
        hand = self.hands[seat]
        hand[card] -= 1
        self.discard.append(card)
        draw = self.draw
        if len(draw) > 1 and not self._uneven:
            hand[draw.pop()] += 1
            self.turn = self._next[seat]
        else:
            self._sizes[seat] -= 1
            self._end_turn()

    def _open_duel(self, card: int, target: int) -> None:
        # _answer and _end_duel folded into one for the opening card: it is the most
        # frequent move of random play, and most often the defender cannot answer it.
        attacker = self.turn
        mine = self.hands[attacker]
        mine[card] -= 1
        hand = self.hands[target]
        herd = self.herds[target]
        first = herd[-1][0]
        holds = HOLDS_KIND if hand[first] and IS_GOAT[first] else 0
        if hand[GOATINI]:
            holds |= HOLDS_GOATINI
        if hand[LORD]:
            holds |= HOLDS_LORD
        if holds:
            self._sizes[attacker] -= 1
            self.duel_target = target
            self.duel_cards = [card]
            self._legal = ANSWERS[first][holds]
            return
        pile = herd.pop()
        pile.append(card)
        slots = self._top_slots
        slots[target] = DUEL_SLOT[target][herd[-1][0]] if len(herd) > 1 else SAFE
        self.herds[attacker].append(pile)
        # On a herd that had a pile: only such a seat may duel.
        slots[attacker] = DUEL_SLOT[attacker][pile[0]]
        draw = self.draw
        if len(draw) > 1 and not self._uneven:
            mine[draw.pop()] += 1
            self.turn = self._next[attacker]
        else:
            self._sizes[attacker] -= 1
            self._end_turn()

    # -- duels ---------------------------------------------------------------------------

    def _answer(self, card: int, _target: int) -> None:
        """The side to answer plays ``card``; the duel ends if the other side cannot answer."""
        duel_cards, target, hands = self.duel_cards, self.duel_target, self.hands
        if len(duel_cards) % 2:
            player, hand = target, hands[self.turn]
        else:
            player, hand = self.turn, hands[target]
        hands[player][card] -= 1
        self._sizes[player] -= 1
        duel_cards.append(card)
        first = self.herds[target][-1][0]
        # What the other side holds against the pile (holdings(), inlined: once per answer).
        holds = HOLDS_KIND if hand[first] and IS_GOAT[first] else 0
        if hand[GOATINI]:
            holds |= HOLDS_GOATINI
        if hand[LORD]:
            holds |= HOLDS_LORD
        if holds:
            self._legal = ANSWERS[first][holds]
        else:
            self._end_duel(card, target)

    def _end_duel(self, _card: int, _target: int) -> None:
        """The side that played the last card wins the duel."""
        target, attacker = self.duel_target, self.turn
        defender_herd = self.herds[target]
        if len(self.duel_cards) % 2:
            pile = defender_herd.pop()
            pile.extend(self.duel_cards)
            slots = self._top_slots
            slots[target] = (
                DUEL_SLOT[target][defender_herd[-1][0]] if len(defender_herd) > 1 else SAFE
            )
            self.herds[attacker].append(pile)
            # On a herd that had a pile: only such a seat may duel.
            slots[attacker] = DUEL_SLOT[attacker][pile[0]]
        else:
            defender_herd[-1].extend(self.duel_cards)
        self.duel_target = -1
        self.duel_cards = []
        if self._sizes[target] < self.hand_size:  # the defender answered
            self._uneven = True
        self._end_turn()
