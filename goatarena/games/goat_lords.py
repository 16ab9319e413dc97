"""Goat Lords, Simple Version (Gatwick Games, 2016) for 2-6 players, as ``rules/goat-lords.md``.

Players build herds, stacks of piles of one goat kind plus wilds, by births from hand, by
assisted births with the top of the discard pile, and by duels for an opponent's top pile.
A seat's turn is one decision, except a duel: after the attacker's opening card the
defender and the attacker answer in turn (``to_act`` names the side to answer), each with
one matching card or ``"yield"``, and a side without a matching card loses at once.

Hidden information: the hands of the other seats and the draw order.

The state is built in layers: :mod:`goatarena.games.goat_lords_view` declares the fields
and reads them (observations, scores, the picture), :mod:`goatarena.games.goat_lords_moves`
holds the rounds, the restocking and one method per kind of move, and this module the
state itself with the legal actions and their dispatch.

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
from typing import Any

from goatarena.errors import IllegalAction
from goatarena.games.base import Action, GameInfo
from goatarena.games.goat_lords_moves import HerdMoves
from goatarena.games.goat_lords_tables import (
    ANSWERS,
    ASSISTED_BIRTH,
    BIRTH,
    DISCARD,
    DISCARDS,
    DUEL,
    DUEL_SLOT,
    HAND_CHOICES,
    HAND_SIZES,
    IS_GOAT,
    MAX_PLAYERS,
    NEXT_SEAT,
    NO_ACTIONS,
    NO_ASSIST,
    OTHERS,
    PENDING,
    PLAY,
    SAFE,
    YIELD,
    hand_choices,
    holdings,
    shared_action,
)
from goatarena.games.goat_lords_tables import CARD_INDEX as CARD_INDEX  # re-exported
from goatarena.games.goat_lords_tables import CARDS as CARDS
from goatarena.games.goat_lords_tables import matching as matching

# -- the state ---------------------------------------------------------------------------


MAX_ROUNDS = 1000
"""The most rounds the ``rounds`` option may ask for (a game of a thousand rounds already
takes minutes; more would be a game that seems never to end)."""


class GoatLordsState(HerdMoves):
    """A Goat Lords game in progress; its fields are described by the view it is built on.

    Two private lists are derived from the fields and kept up to date by every move:
    ``_sizes``, the number of cards in each hand, and ``_top_slots``, where the duels against
    each herd's top pile are in a hand's choices (``DUEL_SLOT`` of the seat and the pile's
    first card, ``SAFE`` for a herd of fewer than two piles). Code that changes the
    fields by hand sets ``_legal = None`` afterwards, which rebuilds them (a new state and
    a clone of such a state start that way).
    """

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(players, seed, options)
        self.rounds = int(options.get("rounds", 0))
        self.hand_size = HAND_SIZES[players]
        self.totals = [0] * players
        self.round_scores = []
        self.round = 0
        self.is_over = False
        self.hands = []
        self.herds = []
        self.draw = []
        self.discard = []
        self.recycled = False
        self.turn = 0
        self.duel_target = -1
        self.duel_cards = []
        self._sizes = []
        self._top_slots = []
        self._uneven = False
        self._next = NEXT_SEAT[players]
        self._others = OTHERS[players]
        self._start_round()
        self._legal = None

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

    def _legal_actions(self) -> list[Action]:
        self._legal = None
        return self.legal_actions()

    def _apply(self, action: Action) -> None:
        move, card, target = _MOVES.get(id(action)) or _MOVES[id(shared_action(action))]
        move(self, card, target)

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
    option_ranges={"rounds": (0, MAX_ROUNDS)},
    hidden_information=True,
    summary="cards: birth pairs of goats into a herd and duel for opponents' top piles",
)
