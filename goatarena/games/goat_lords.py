"""Goat Lords, Simple Version (Gatwick Games, 2016) for 2-6 players, as ``rules/goat-lords.md``.

Players build herds, stacks of piles of one goat kind plus wilds, by births from hand, by
assisted births with the top of the discard pile, and by duels for an opponent's top pile.
A seat's turn is one decision, except a duel: after the attacker's opening card the
defender and the attacker answer in turn (``to_act`` names the side to answer), each with
one matching card or ``"yield"``, and a side without a matching card loses at once.

Hidden information: the hands of the other seats and the draw order.

Speed: every action offered is a shared object built once (``BIRTH``, ``DUEL``, ...; never
change an offered action in place), found again by identity when applied, and what a hand
offers is computed once per distinct hand, in :mod:`goatarena.games.goat_lords_tables`, as
one flat list: births per discard top, the discards, and the duels per duel slot (a target
seat and the first card of its top pile). The state keeps each hand's size and each herd's
top pile as its duel slot as it moves, so a turn's legal list is a few indexings into that
list, and a move restocks its player and passes the turn without the general restocking
loop in the common case. A move of the engine's own leaves ``_legal`` as ``PENDING`` only
when a turn follows (a duel to answer or the end of the game sets it at once), so the
lookup of a turn's choices has no other case to test. The shuffles draw exactly what
``random.Random.shuffle`` draws (:mod:`goatarena.games.chance`), so seeds give the same
games as before.

Actions (card names are the short ids of ``CARDS``)::

    {"birth": "ninja"}              two Goat Ninjas, or one wild such as "lord", as a pile
    {"assisted_birth": "ninja"}     the Goat Ninja on the discard pile plus one from hand
    {"duel": 2, "play": "ninja"}    attack seat 2's top pile, opening with a Goat Ninja
    {"discard": "ninja"}            only when no birth, assisted birth or duel exists
    {"play": "lord"} / "yield"      answering in a duel

Interpretations where the rules leave room:

- Recycling is decided at the moment the draw pile becomes empty (the seed's "at the time
  the draw pile becomes empty"): with 5 or more cards on the discard pile, and no recycling
  yet this round, the whole discard pile is shuffled into a new draw pile at once;
  otherwise the draw pile is gone for good for the round. The discard pile then starts
  empty and is not refilled.
- A duel side that holds no matching card "cannot answer": the duel ends without asking.
- With ``rounds`` = k > 0 exactly k rounds are played (k = 1 is the seed's alternate
  scoring); with ``rounds`` = 0 (the default) rounds are played until a total reaches 1,000.

Termination, without a safety limit: every turn the active player puts at least one card
from hand into play, so while the draw pile lasts each restock takes at least one card from
it, the draw pile is recycled at most once, and after that the hands only shrink: every
round ends. A wild in hand always allows a birth, so a wild is never discarded and cannot
start the discard pile; when a round ends every card has been drawn and every card outside
the discard pile is in a herd. So all 12 wilds (400 points) are scored in every round, and
some total reaches 1,000 by round ceil(1000 * players / 400) <= 15.

Resampling redeals the other hands and the draw pile uniformly from the cards the seat
cannot see (same hand sizes, the discard pile and the herds kept). It does not use what can
only be inferred from the history (a discard shows its player had no birth, a recycled
draw pile holds only cards that were on the discard pile).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from itertools import chain
from typing import Any

from goatarena.errors import ConfigError, IllegalAction
from goatarena.games.base import Action, GameInfo, Observation, Result, State, ranks_from_keys
from goatarena.games.chance import randbelow, shuffle
from goatarena.games.goat_lords_tables import (
    ANSWERS,
    ASSISTED_BIRTH,
    BIRTH,
    CARD_IDS,
    DECK,
    DISCARD,
    DISCARDS,
    DUEL,
    DUEL_SLOT,
    GOATINI,
    HAND_CHOICES,
    HAND_NAMES,
    HAND_SIZES,
    HOLDS_GOATINI,
    HOLDS_KIND,
    HOLDS_LORD,
    IS_GOAT,
    KIND_IDS,
    LORD,
    MAX_PLAYERS,
    NEXT_SEAT,
    NEXT_SEATS,
    NO_ACTIONS,
    NO_ASSIST,
    NO_KIND,
    OTHERS,
    PENDING,
    PLAY,
    RECYCLE_MINIMUM,
    RESTOCK_ORDER,
    SAFE,
    TARGET,
    VALUES,
    YIELD,
    describe_top,
    hand_choices,
    hand_names,
    holdings,
    pile_kind,
    shared_action,
)
from goatarena.games.goat_lords_tables import CARD_INDEX as CARD_INDEX  # re-exported
from goatarena.games.goat_lords_tables import CARDS as CARDS
from goatarena.games.goat_lords_tables import matching as matching

_value = VALUES.__getitem__
_card_id = CARD_IDS.__getitem__


# -- the state ---------------------------------------------------------------------------


MAX_ROUNDS = 1000
"""The most rounds the ``rounds`` option may ask for (a game of a thousand rounds already
takes minutes; more would be a game that seems never to end)."""


class GoatLordsState(State):
    """A Goat Lords game in progress.

    Cards are indices into ``CARDS``. A hand is a list of counts per card; a herd is a list
    of piles, bottom (the protected first pile) to top, each a list of cards whose first
    card is a goat exactly when the pile has a kind. The draw pile's top is its last card.

    Two private lists are derived from those fields and kept up to date by every move:
    ``_sizes``, the number of cards in each hand, and ``_top_slots``, where the duels against
    each herd's top pile are in a hand's choices (``DUEL_SLOT`` of the seat and the pile's
    first card, ``SAFE`` for a herd of fewer than two piles). Code that changes the
    fields by hand sets ``_legal = None`` afterwards, which rebuilds them (a new state and
    a clone of such a state start that way).
    """

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(players, seed, options)
        self.rounds = int(options.get("rounds", 0))
        if not 0 <= self.rounds <= MAX_ROUNDS:
            raise ConfigError(
                f"goat-lords option 'rounds' must be 0 to {MAX_ROUNDS}, not {self.rounds}"
            )
        self.hand_size = HAND_SIZES[players]
        self.totals = [0] * players
        self.round_scores: list[list[int]] = []
        self.round = 0
        self.is_over = False
        self.hands: list[list[int]] = []
        self.herds: list[list[list[int]]] = []
        self.draw: list[int] = []
        self.discard: list[int] = []
        self.recycled = False
        self.turn = 0
        self.duel_target = -1
        self.duel_cards: list[int] = []
        self._sizes: list[int] = []
        self._top_slots: list[int] = []
        self._uneven = False
        self._next = NEXT_SEAT[players]
        self._others = OTHERS[players]
        self._start_round()
        self._legal = None

    # -- rounds --------------------------------------------------------------------------

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

    def _derive(self) -> None:
        """Rebuild the derived lists from the fields (new lists: clones share them)."""
        self._next = NEXT_SEAT[self.players]
        self._others = OTHERS[self.players]
        self._sizes = [sum(hand) for hand in self.hands]
        self._top_slots = [
            DUEL_SLOT[seat][herd[-1][0]] if len(herd) > 1 else SAFE
            for seat, herd in enumerate(self.herds)
        ]
        size = self.hand_size
        self._uneven = bool(self.draw) and any(seat_size != size for seat_size in self._sizes)

    # -- the interface, without the generic layers (random playouts call these most) ------

    is_over: bool = False
    """True once the last round is scored (a plain field: playouts read it every decision)."""

    @property
    def over(self) -> bool:
        """The same as :attr:`is_over` (the name this field had first)."""
        return self.is_over

    @over.setter
    def over(self, value: bool) -> None:
        self.is_over = value

    def legal_actions(self) -> list[Action]:
        """The choices of the seat to act, computed once per state.

        The list may be shared with other states and with the engine's tables: callers
        must not change it (none does; copy it to reorder or filter).
        """
        legal = self._legal
        if legal is PENDING:
            # After a move of the engine's own this is a turn of ``self.turn``: a move that
            # ends the game or leaves a duel to answer sets ``_legal`` itself. The turn's
            # choices as in _turn_legal, inlined: this runs once per decision.
            seat = self.turn
            key = tuple(self.hands[seat])
            choices = HAND_CHOICES.get(key) or hand_choices(key)
            discard = self.discard
            legal = choices[discard[-1] if discard else NO_ASSIST]
            if self.herds[seat]:
                slots = self._top_slots
                for target in self._others[seat]:
                    offered = choices[slots[target]]
                    if offered:
                        legal = [*legal, *offered]
            self._legal = legal = legal or choices[DISCARDS]
        elif legal is None:
            self._derive()
            if self.is_over:
                legal = NO_ACTIONS
            elif self.duel_target >= 0:
                first = self.herds[self.duel_target][-1][0]
                legal = ANSWERS[first][holdings(self.hands[self._duel_responder()], first)]
            else:
                legal = self._turn_legal(self.turn)
            self._legal = legal
        return legal

    def _turn_legal(self, seat: int) -> list[Action]:
        """A turn's choices: the hand's births, an assisted birth and duels, else discards."""
        key = tuple(self.hands[seat])
        choices = HAND_CHOICES.get(key) or hand_choices(key)
        discard = self.discard
        legal = choices[discard[-1] if discard else NO_ASSIST]
        if self.herds[seat]:
            for target in self._others[seat]:
                offered = choices[self._top_slots[target]]
                if offered:
                    legal = [*legal, *offered]
        return legal or choices[DISCARDS]

    def apply_index(self, index: int) -> Action:
        """Apply the ``index``-th legal action and return it."""
        try:
            if index < 0:
                raise IndexError
            # Not computed yet fails too: PENDING is empty and None cannot be indexed.
            action = self._legal[index]  # type: ignore[index]
        except (IndexError, TypeError):
            legal = self.legal_actions()
            if not 0 <= index < len(legal):
                raise IllegalAction(
                    f"action index {index} is outside 0..{len(legal) - 1}"
                ) from None
            action = legal[index]
        self._legal = PENDING
        move, card, target = _MOVES[id(action)]
        move(self, card, target)
        self.history.append(action)
        return action

    def _commit(self, action: Action) -> None:
        self._legal = PENDING
        self._apply(action)
        self.history.append(action)

    # -- decisions -----------------------------------------------------------------------

    def _to_act(self) -> int | None:
        if self.is_over:
            return None
        if self.duel_target < 0:
            return self.turn
        return self._duel_responder()

    def _duel_responder(self) -> int:
        """The side to answer: the defender after an odd number of duel cards."""
        return self.duel_target if len(self.duel_cards) % 2 else self.turn

    def _legal_actions(self) -> list[Action]:
        self._legal = None
        return self.legal_actions()

    def _apply(self, action: Action) -> None:
        move, card, target = _MOVES.get(id(action)) or _MOVES[id(shared_action(action))]
        move(self, card, target)

    # -- the moves, one method per kind of action (found through _MOVES) -------------------

    # Each move restocks its player at once in the common case, the draw pile outlasting the
    # cards it takes and every other hand full (not ``_uneven``): the hand is back to its
    # size and the next seat in order plays. Otherwise _end_turn does the general work.

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

    # -- scoring -------------------------------------------------------------------------

    def herd_value(self, seat: int) -> int:
        """The points of every card in ``seat``'s herd: the round score so far."""
        return sum(map(_value, chain.from_iterable(self.herds[seat])))

    def _result(self) -> Result:
        return Result(
            scores=[float(total) for total in self.totals], ranks=ranks_from_keys(self.totals)
        )

    # -- what a seat sees ----------------------------------------------------------------

    def observation(self, seat: int) -> Observation:
        """Own hand, every herd, discard top and size, draw size, hand sizes, duel, totals.

        Built from the fields each time (fresh lists and dicts the caller may keep), with
        the per-card work done by ``map`` over tables rather than in Python loops.
        """
        hand = self.hands[seat]
        key = tuple(hand)
        names = HAND_NAMES.get(key) or hand_names(key)
        herds = self.herds
        discard = self.discard
        return {
            "seat": seat,
            "to_act": self._to_act(),
            "round": self.round + 1,
            "turn": self.turn,
            "hand_size": self.hand_size,
            "hand": list(names),
            "hand_sizes": list(map(sum, self.hands)),
            "herds": [
                [{"kind": KIND_IDS[pile[0]], "cards": list(map(_card_id, pile))} for pile in herd]
                for herd in herds
            ],
            "discard_top": CARD_IDS[discard[-1]] if discard else None,
            "discard_size": len(discard),
            "draw_size": len(self.draw),
            "recycled": self.recycled,
            "duel": self._duel_view(),
            "herd_values": [sum(map(_value, chain.from_iterable(herd))) for herd in herds],
            "totals": list(self.totals),
            "round_scores": list(map(list, self.round_scores)),
        }

    def _duel_view(self) -> dict[str, Any] | None:
        if self.duel_target < 0:
            return None
        kind = pile_kind(self.herds[self.duel_target][-1])
        return {
            "attacker": self.turn,
            "defender": self.duel_target,
            "kind": CARD_IDS[kind] if kind != NO_KIND else None,
            "played": [CARD_IDS[card] for card in self.duel_cards],
            "to_answer": self._duel_responder(),
        }

    def _resample_hidden(self, seat: int, rng: random.Random) -> None:
        """Redeal the other hands and the draw pile from the cards ``seat`` cannot see."""
        unseen = list(self.draw)
        others = [other for other in range(self.players) if other != seat]
        sizes = []
        for other in others:
            hand = self.hands[other]
            sizes.append(sum(hand))
            for card in range(len(CARDS)):
                unseen.extend([card] * hand[card])
        rng.shuffle(unseen)
        for other, size in zip(others, sizes, strict=True):
            hand = [0] * len(CARDS)
            for card in unseen[len(unseen) - size :]:
                hand[card] += 1
            del unseen[len(unseen) - size :]
            self.hands[other] = hand
        self.draw = unseen

    def clone(self, rng: random.Random | None = None) -> GoatLordsState:
        """A copy made field by field (several times faster than deepcopy)."""
        other = self._copy_bookkeeping(rng)
        other.totals = list(self.totals)
        other.round_scores = [list(scores) for scores in self.round_scores]
        other.hands = [list(hand) for hand in self.hands]
        other.herds = [[list(pile) for pile in herd] for herd in self.herds]
        other.draw = list(self.draw)
        other.discard = list(self.discard)
        other.duel_cards = list(self.duel_cards)
        if self._legal is not None:  # the derived lists are up to date: copy them
            other._sizes = list(self._sizes)
            other._top_slots = list(self._top_slots)
        return other

    def __getstate__(self) -> dict[str, Any]:
        """What deepcopy and pickle copy: all but the cached legal actions, rebuilt on use.

        The cache holds the engine's shared action objects, which the moves find by
        identity; a copied list would hold equal objects that are not them.
        """
        fields = self.__dict__.copy()
        fields["_legal"] = None
        return fields

    def render(self) -> str:
        """Round, piles, every hand and herd, the duel in progress and the totals."""
        lines = [
            f"round {self.round + 1}  turn seat {self.turn}  draw {len(self.draw)}"
            f"  discard {len(self.discard)} (top {describe_top(self.discard)})"
            f"{'  recycled' if self.recycled else ''}"
        ]
        duel = self._duel_view()
        if duel is not None:
            lines.append(
                f"  duel: seat {duel['attacker']} attacks seat {duel['defender']}"
                f" ({duel['kind'] or 'wilds'}), played {duel['played']},"
                f" seat {duel['to_answer']} to answer"
            )
        for seat in range(self.players):
            hand = " ".join(
                CARD_IDS[card] for card in range(len(CARDS)) for _ in range(self.hands[seat][card])
            )
            piles = " | ".join(
                " ".join(CARD_IDS[card] for card in pile) for pile in self.herds[seat]
            )
            lines.append(
                f"  seat {seat}: total {self.totals[seat]}, herd {self.herd_value(seat)}:"
                f" [{piles}]  hand: {hand or '-'}"
            )
        if self.is_over:
            lines.append(f"  game over after {len(self.round_scores)} rounds")
        return "\n".join(lines)


Move = Callable[[GoatLordsState, int, int], None]
_MOVES: dict[int, tuple[Move, int, int]] = {id(YIELD): (GoatLordsState._end_duel, -1, -1)}
"""What each shared action does, found by the object's identity: (method, card, target)."""
for _card in range(len(CARDS)):
    _MOVES[id(BIRTH[_card])] = (
        GoatLordsState._birth_pair if IS_GOAT[_card] else GoatLordsState._birth_wild,
        _card,
        -1,
    )
    _MOVES[id(ASSISTED_BIRTH[_card])] = (GoatLordsState._assisted_birth, _card, -1)
    _MOVES[id(DISCARD[_card])] = (GoatLordsState._discard, _card, -1)
    _MOVES[id(PLAY[_card])] = (GoatLordsState._answer, _card, -1)
    for _target in range(MAX_PLAYERS):
        _MOVES[id(DUEL[_target][_card])] = (GoatLordsState._open_duel, _card, _target)


INFO = GameInfo(
    name="goat-lords",
    title="Goat Lords (Simple Version)",
    min_players=2,
    max_players=6,
    state_class=GoatLordsState,
    default_options={"rounds": 0},
    hidden_information=True,
    summary="cards: birth pairs of goats into a herd and duel for opponents' top piles",
)
