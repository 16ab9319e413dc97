"""Goat Lords, Simple Version (Gatwick Games, 2016) for 2-6 players, as ``rules/goat-lords.md``.

Players build herds, stacks of piles of one goat kind plus wilds, by births from hand, by
assisted births with the top of the discard pile, and by duels for an opponent's top pile.
A seat's turn is one decision, except a duel: after the attacker's opening card the
defender and the attacker answer in turn (``to_act`` names the side to answer), each with
one matching card or ``"yield"``, and a side without a matching card loses at once.

Hidden information: the hands of the other seats and the draw order.

Speed: every action offered is a shared object built once (``BIRTH``, ``DUEL``, ...; never
change an offered action in place), found again by identity when applied; a hand's births
and discards are computed once per distinct hand; the shuffles draw exactly what
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
from itertools import chain
from typing import Any

from goatarena.errors import ConfigError
from goatarena.games.base import Action, GameInfo, Observation, Result, State, ranks_from_keys
from goatarena.games.chance import randbelow, shuffle

# -- constants and card data -------------------------------------------------------------

CARDS: tuple[tuple[str, str, int, str, int], ...] = (
    # (id, name, copies, kind, value)
    ("baby", "Fainting Baby Goat", 10, "goat", 5),
    ("ladypug", "Ladypug", 10, "goat", 5),
    ("foodie", "Foodie Goat", 10, "goat", 5),
    ("ghoast", "Gleeful Ghoast", 10, "goat", 10),
    ("fairy", "Fairy Goat Mother", 10, "goat", 10),
    ("tgoat", "Friendly T-Goat", 10, "goat", 10),
    ("ninja", "Goat Ninja", 10, "goat", 15),
    ("kraken", "Krakengoat", 10, "goat", 15),
    ("dragon", "Fire Breathing Dragon Goat", 10, "goat", 20),
    ("goatacorn", "Flying Goat-a-Corn", 8, "goat", 20),
    ("goatini", "Magical Goatini", 8, "wild", 25),
    ("lord", "Goat Lord", 4, "wild", 50),
)
"""The 110 goat cards of the published deck; the values are the ruleset's Resolution."""

HAND_SIZES = {2: 5, 3: 5, 4: 4, 5: 4, 6: 4}
TARGET = 1000
"""A total that ends the game at the end of a round (with the option ``rounds`` = 0)."""
RECYCLE_MINIMUM = 5
"""The discard pile is recycled only if it holds at least this many cards."""

CARD_IDS = tuple(card[0] for card in CARDS)
CARD_INDEX = {card_id: index for index, card_id in enumerate(CARD_IDS)}
VALUES = tuple(card[4] for card in CARDS)
IS_GOAT = tuple(card[3] == "goat" for card in CARDS)
GOATS = tuple(index for index, goat in enumerate(IS_GOAT) if goat)
WILDS = tuple(index for index, goat in enumerate(IS_GOAT) if not goat)
DECK = tuple(index for index, card in enumerate(CARDS) for _ in range(card[2]))
NO_KIND = -1
"""The kind of a pile made only of wilds."""
_value = VALUES.__getitem__

YIELD = "yield"
GOATINI, LORD = WILDS
MAX_PLAYERS = 6

# Every action the engine offers is one of these shared objects (never changed in place):
# legal action lists are assembled from them instead of building new dicts each decision.
BIRTH = tuple({"birth": card_id} for card_id in CARD_IDS)
ASSISTED_BIRTH = tuple({"assisted_birth": card_id} for card_id in CARD_IDS)
DISCARD = tuple({"discard": card_id} for card_id in CARD_IDS)
PLAY = tuple({"play": card_id} for card_id in CARD_IDS)
DUEL = tuple(
    tuple({"duel": target, "play": card_id} for card_id in CARD_IDS)
    for target in range(MAX_PLAYERS)
)
RESTOCK_ORDER = tuple(
    tuple(
        tuple((active + offset) % players for offset in range(players)) for active in range(players)
    )
    for players in range(MAX_PLAYERS + 1)
)
"""Per player count and active seat: the seats in restocking order, the active one first."""
NEXT_SEATS = tuple(tuple(order[1:] + order[:1] for order in orders) for orders in RESTOCK_ORDER)
"""Per player count and active seat: the seats that may play next, in order."""
OTHERS = tuple(
    tuple(tuple(other for other in range(players) if other != seat) for seat in range(players))
    for players in range(MAX_PLAYERS + 1)
)
"""Per player count and seat: the other seats in seat order (the duel targets' order)."""
# What each offered action does, found by the object's identity: (move, card, target).
BIRTH_MOVE, ASSISTED_MOVE, DISCARD_MOVE, DUEL_MOVE, PLAY_MOVE, YIELD_MOVE = range(6)
_MOVES: dict[int, tuple[int, int, int]] = {id(YIELD): (YIELD_MOVE, -1, -1)}
for _card in range(len(CARDS)):
    _MOVES[id(BIRTH[_card])] = (BIRTH_MOVE, _card, -1)
    _MOVES[id(ASSISTED_BIRTH[_card])] = (ASSISTED_MOVE, _card, -1)
    _MOVES[id(DISCARD[_card])] = (DISCARD_MOVE, _card, -1)
    _MOVES[id(PLAY[_card])] = (PLAY_MOVE, _card, -1)
    for _target in range(MAX_PLAYERS):
        _MOVES[id(DUEL[_target][_card])] = (DUEL_MOVE, _card, _target)
_HAND_CHOICES: dict[tuple[int, ...], tuple[list[Action], list[Action], tuple[int, ...]]] = {}
"""Per hand (counts per card): its births, its discards and its wilds, computed once."""
_HAND_CHOICES_LIMIT = 50_000
"""Hands seen in play number a few thousand; a state built by hand may add odd ones."""


# -- the state ---------------------------------------------------------------------------


class GoatLordsState(State):
    """A Goat Lords game in progress.

    Cards are indices into ``CARDS``. A hand is a list of counts per card; a herd is a list
    of piles, bottom (the protected first pile) to top, each a list of cards whose first
    card is a goat exactly when the pile has a kind. The draw pile's top is its last card.
    """

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(players, seed, options)
        self.rounds = int(options.get("rounds", 0))
        if self.rounds < 0:
            raise ConfigError(f"goat-lords option 'rounds' must be 0 or more, not {self.rounds}")
        self.hand_size = HAND_SIZES[players]
        self.totals = [0] * players
        self.round_scores: list[list[int]] = []
        self.round = 0
        self.over = False
        self.hands: list[list[int]] = []
        self.herds: list[list[list[int]]] = []
        self.draw: list[int] = []
        self.discard: list[int] = []
        self.recycled = False
        self.turn = 0
        self.duel_target = -1
        self.duel_cards: list[int] = []
        self._start_round()

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

    def _end_round(self) -> None:
        scores = [self.herd_value(seat) for seat in range(self.players)]
        self.round_scores.append(scores)
        self.totals = [total + score for total, score in zip(self.totals, scores, strict=True)]
        if self.rounds > 0:
            self.over = len(self.round_scores) >= self.rounds
        else:
            self.over = max(self.totals) >= TARGET
        if not self.over:
            self.round += 1
            self._start_round()

    # -- the interface, without the generic layers (random playouts call these most) ------

    @property
    def is_over(self) -> bool:
        """True once the last round is scored."""
        return self.over

    def legal_actions(self) -> list[Action]:
        """The choices of the seat to act, computed once per state."""
        legal = self._legal
        if legal is None:
            legal = self._legal = [] if self.over else self._legal_actions()
        return legal

    # -- decisions -----------------------------------------------------------------------

    def _to_act(self) -> int | None:
        if self.over:
            return None
        if self.duel_target < 0:
            return self.turn
        return self._duel_responder()

    def _duel_responder(self) -> int:
        """The side to answer: the defender after an odd number of duel cards."""
        return self.duel_target if len(self.duel_cards) % 2 else self.turn

    def _legal_actions(self) -> list[Action]:
        # The actions are shared constants; lists of them are built, never dicts.
        if self.duel_target >= 0:
            duel_cards = self.duel_cards
            hand = self.hands[self.duel_target if len(duel_cards) % 2 else self.turn]
            kind = self.herds[self.duel_target][-1][0]
            plays: list[Action] = [PLAY[kind]] if IS_GOAT[kind] and hand[kind] else []
            if hand[GOATINI]:
                plays.append(PLAY[GOATINI])
            if hand[LORD]:
                plays.append(PLAY[LORD])
            plays.append(YIELD)
            return plays
        seat = self.turn
        hand = self.hands[seat]
        key = tuple(hand)
        choices = _HAND_CHOICES.get(key) or hand_choices(key)
        actions = choices[0]
        discard = self.discard
        if discard:
            top = discard[-1]
            if hand[top] and IS_GOAT[top]:
                actions = [*actions, ASSISTED_BIRTH[top]]
        herds = self.herds
        if herds[seat]:
            wilds = choices[2]
            for target in OTHERS[self.players][seat]:
                herd = herds[target]
                if len(herd) < 2:
                    continue
                duel = DUEL[target]
                kind = herd[-1][0]
                if hand[kind] and IS_GOAT[kind]:
                    actions = [*actions, duel[kind], *[duel[card] for card in wilds]]
                elif wilds:
                    actions = [*actions, *[duel[card] for card in wilds]]
        if actions:
            return actions if actions is not choices[0] else list(actions)
        return list(choices[1])

    def _apply(self, action: Action) -> None:
        move, card, target = _MOVES.get(id(action)) or parse_move(action)
        if move == PLAY_MOVE:
            self._answer(card)
            return
        if move == YIELD_MOVE:
            self._end_duel()
            return
        seat = self.turn
        hand = self.hands[seat]
        if move == BIRTH_MOVE:
            if IS_GOAT[card]:
                hand[card] -= 2
                self.herds[seat].append([card, card])
            else:
                hand[card] -= 1
                self.herds[seat].append([card])
        elif move == ASSISTED_MOVE:
            card = self.discard.pop()
            hand[card] -= 1
            self.herds[seat].append([card, card])
        elif move == DISCARD_MOVE:
            hand[card] -= 1
            self.discard.append(card)
        else:
            self.duel_target = target
            self.duel_cards = []
            self._answer(card)
            return
        self._end_turn()

    # -- duels ---------------------------------------------------------------------------

    def _answer(self, card: int) -> None:
        """The side to answer plays ``card``; the duel ends if the other side cannot answer."""
        duel_cards, target, hands = self.duel_cards, self.duel_target, self.hands
        if len(duel_cards) % 2:
            hands[target][card] -= 1
            hand = hands[self.turn]
        else:
            hands[self.turn][card] -= 1
            hand = hands[target]
        duel_cards.append(card)
        kind = self.herds[target][-1][0]
        if not ((hand[kind] and IS_GOAT[kind]) or hand[GOATINI] or hand[LORD]):
            self._end_duel()

    def _end_duel(self) -> None:
        """The side that played the last card wins the duel."""
        defender_herd = self.herds[self.duel_target]
        if len(self.duel_cards) % 2:
            pile = defender_herd.pop()
            pile.extend(self.duel_cards)
            self.herds[self.turn].append(pile)
        else:
            defender_herd[-1].extend(self.duel_cards)
        self.duel_target = -1
        self.duel_cards = []
        self._end_turn()

    # -- restocking and the next turn ----------------------------------------------------

    def _end_turn(self) -> None:
        """Restock from the player who moved on in seat order, then find the next player."""
        active, hands = self.turn, self.hands
        draw = self.draw
        if draw:  # once empty, the draw pile stays empty for the round
            size = self.hand_size
            for seat in RESTOCK_ORDER[self.players][active]:
                hand = hands[seat]
                missing = size - sum(hand)
                while missing > 0 and draw:
                    hand[draw.pop()] += 1
                    missing -= 1
                    if not draw:
                        draw = self._recycle()
        for seat in NEXT_SEATS[self.players][active]:
            if any(hands[seat]):
                self.turn = seat
                return
        self._end_round()

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
        """Own hand, every herd, discard top and size, draw size, hand sizes, duel, totals."""
        hand = self.hands[seat]
        return {
            "seat": seat,
            "to_act": self._to_act(),
            "round": self.round + 1,
            "turn": self.turn,
            "hand_size": self.hand_size,
            "hand": [CARD_IDS[card] for card in range(len(CARDS)) for _ in range(hand[card])],
            "hand_sizes": [sum(other) for other in self.hands],
            "herds": [[pile_view(pile) for pile in herd] for herd in self.herds],
            "discard_top": CARD_IDS[self.discard[-1]] if self.discard else None,
            "discard_size": len(self.discard),
            "draw_size": len(self.draw),
            "recycled": self.recycled,
            "duel": self._duel_view(),
            "herd_values": [self.herd_value(other) for other in range(self.players)],
            "totals": list(self.totals),
            "round_scores": [list(scores) for scores in self.round_scores],
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

    def clone(self) -> GoatLordsState:
        """A copy made field by field (several times faster than deepcopy)."""
        other = self._copy_bookkeeping()
        other.totals = list(self.totals)
        other.round_scores = [list(scores) for scores in self.round_scores]
        other.hands = [list(hand) for hand in self.hands]
        other.herds = [[list(pile) for pile in herd] for herd in self.herds]
        other.draw = list(self.draw)
        other.discard = list(self.discard)
        other.duel_cards = list(self.duel_cards)
        other._legal = None
        return other

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
        if self.over:
            lines.append(f"  game over after {len(self.round_scores)} rounds")
        return "\n".join(lines)


# -- helpers -----------------------------------------------------------------------------


def pile_kind(pile: list[int]) -> int:
    """The goat kind of a pile, or NO_KIND for a pile made only of wilds."""
    return pile[0] if IS_GOAT[pile[0]] else NO_KIND


def hand_choices(key: tuple[int, ...]) -> tuple[list[Action], list[Action], tuple[int, ...]]:
    """The births, the discards and the wilds of a hand given as counts per card (cached)."""
    births: list[Action] = [BIRTH[card] for card in GOATS if key[card] >= 2]
    births.extend(BIRTH[card] for card in WILDS if key[card])
    discards: list[Action] = [DISCARD[card] for card in range(len(CARDS)) if key[card]]
    choices = (births, discards, tuple(card for card in WILDS if key[card]))
    if len(_HAND_CHOICES) >= _HAND_CHOICES_LIMIT:
        _HAND_CHOICES.clear()
    _HAND_CHOICES[key] = choices
    return choices


def parse_move(action: Action) -> tuple[int, int, int]:
    """What a legal action that is not one of the shared objects (a decoded one) does."""
    if action == YIELD:
        return (YIELD_MOVE, -1, -1)
    if "duel" in action:
        return (DUEL_MOVE, CARD_INDEX[action["play"]], action["duel"])
    if "play" in action:
        return (PLAY_MOVE, CARD_INDEX[action["play"]], -1)
    if "birth" in action:
        return (BIRTH_MOVE, CARD_INDEX[action["birth"]], -1)
    if "assisted_birth" in action:
        return (ASSISTED_MOVE, CARD_INDEX[action["assisted_birth"]], -1)
    return (DISCARD_MOVE, CARD_INDEX[action["discard"]], -1)


def matching(hand: list[int], kind: int) -> list[int]:
    """The distinct cards of ``hand`` that can attack or defend a pile of ``kind``."""
    cards = [kind] if kind != NO_KIND and hand[kind] else []
    cards.extend(card for card in WILDS if hand[card])
    return cards


def pile_view(pile: list[int]) -> dict[str, Any]:
    """A pile as a seat sees it: its kind (None for wilds only) and its cards, bottom first."""
    kind = pile_kind(pile)
    return {
        "kind": CARD_IDS[kind] if kind != NO_KIND else None,
        "cards": [CARD_IDS[card] for card in pile],
    }


def describe_top(discard: list[int]) -> str:
    """The top card of a discard pile, or a dash."""
    return CARD_IDS[discard[-1]] if discard else "-"


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
