"""Goat 'n' Goat (やぎ山, Hisashi Hayashi, OKAZU brand 2019) for 2-5 players.

The rules are ``rules/goat-n-goat.md``. A turn is a sequence of decisions by the seat
whose turn it is:

1. ``{"play": ["g1", "r1"]}`` — one or more hand cards of one number, any colours. A
   card is named by colour letter (g, b, r) and number; cards of the same colour and
   number are interchangeable, so each distinct "how many of each colour, at which
   number" is offered once.
2. ``{"take": ["b2", "g5"]}`` — the distinct sets of row cards of the required size (the
   number played), or all of the row when it holds fewer. Asked whenever the row is not
   empty, even when only one choice exists, so every turn's take is in the record.
3. ``{"discard": "g1"}`` — only while the hand holds more than eight cards. The discards
   are asked **one card at a time** (a hand of twelve could otherwise offer hundreds of
   sets); other seats only learn that a card was discarded (:meth:`public_action`).
4. ``{"trade": "green", "mountain": 5}`` or ``"decline"`` — asked only when at least one
   flock can afford a face-up mountain of its colour; at most one trade per turn.

A seat that holds no card when its turn comes passes without being asked. Every game
ends: a turn that is not the last takes at least one card from a full row, so the refill
draws at least one card; the draw pile is finite and is rebuilt at most once, so the
final run-out always comes. Should every seat ever hold no card, the game ends too.

Speed: every action offered is a shared object built once (the tables at the end of the
module; never change an offered action in place), found again by identity when applied
together with the state method that carries it out, so a decision builds no dicts and
dispatches on nothing. Legal lists come from tables: plays per number and cards held of
it in each colour (nested lists indexed by the counts, each play one shared action),
takes of one card straight from the row, larger takes per sorted row (a bounded memo; the
lists are shared, never change one), trades per flock size and mountains. ``is_over`` is
a plain attribute that writing ``phase`` keeps in step. The shuffles draw exactly what
``random.Random.shuffle`` draws (:mod:`goatarena.games.chance`), so seeds give the same
games as before.

The state is built in layers: :mod:`goatarena.games.goat_n_goat_tables` holds the card
data, :mod:`goatarena.games.goat_n_goat_view` declares the fields and reads them
(observations, scores, the picture), :mod:`goatarena.games.goat_n_goat_moves` carries out
the decisions, and this module holds the state with its legal actions and the action
tables.

Hidden information: the hands, the cards discarded into penalty piles (face down) and the
draw order. Cards a seat took from the row are public until that seat plays or discards
cards that might be them; :meth:`GoatNGoatState._resample_hidden` keeps those cards in
their hands and keeps the rebuilt draw pile (the public traded flocks) its own.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Sequence
from itertools import compress
from typing import Any

from goatarena.errors import IllegalAction
from goatarena.games.base import Action, GameInfo
from goatarena.games.chance import shuffle
from goatarena.games.goat_n_goat_moves import FlockMoves
from goatarena.games.goat_n_goat_tables import (
    CARD_COUNT,
    CARD_TYPES,
    CODE_INDEX,
    CODES,
    COLOUR_INDEX,
    COLOURS,
    COPIES,
    DECK,
    DECLINE,
    DISCARD,
    MOUNTAIN,
    MOUNTAINS,
    NUMBERS,
    PLAY,
    ROW_SIZE,
    STARTING_HANDS,
    STRIDE,
    TAKE,
    Phase,
    PlayMove,
    card_type,
)

# -- the state ---------------------------------------------------------------------------


class GoatNGoatState(FlockMoves):
    """A Goat 'n' Goat game in progress; its fields are described by the view it is built on."""

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(players, seed, options)
        draw = self.draw = list(DECK)
        shuffle(self.rng, draw)
        # Dealt as the rules deal, one card at a time from the top (the end) of the pile;
        # a hand is a count per card, so only which cards it got counts.
        hands: list[list[int]] = []
        self.hands = hands
        for seat in range(players):
            hand = [0] * CARD_COUNT
            dealt = STARTING_HANDS[seat]
            for card in draw[-dealt:]:
                hand[card] += 1
            del draw[-dealt:]
            hands.append(hand)
        self.known = [[0] * CARD_COUNT for _ in range(players)]
        self.row = draw[: -ROW_SIZE - 1 : -1]  # popped one by one: the top card first
        del draw[-ROW_SIZE:]
        self.discard = []
        self.flocks = [[[], [], []] for _ in range(players)]
        self.penalty_public = [[] for _ in range(players)]
        self.penalty_hidden = [[] for _ in range(players)]
        values = MOUNTAINS[players]
        self.mountains = [list(values), list(values), list(values)]
        self.held = [[[], [], []] for _ in range(players)]
        self.seat = 0
        self.phase = PLAY  # sets is_over too
        self.take_count = 0
        self.played = []
        self.run_outs = 0
        self.reshuffled = False
        self.ending = False

    # -- the interface, without the generic layers (random playouts call these most) ------

    def legal_actions(self) -> list[Action]:
        """The choices of the seat to act, computed once per state.

        The list may be shared with other states (and the table it came from): like the
        actions in it, it must never be changed in place.
        """
        legal = self._legal
        if legal is not None:
            return legal
        phase = self._phase
        if phase is PLAY:
            # Per number, the plays of the cards of it held in each colour, looked up by
            # indexing nested lists with the counts unpacked into locals (no key to build
            # or hash); a combination not met before (None) is made by play_actions.
            g1, g2, g3, g4, g5, b1, b2, b3, b4, b5, r1, r2, r3, r4, r5 = hand = self.hands[
                self.seat
            ]
            try:
                legal = [
                    *_PLAYS_1[g1][b1][r1],
                    *_PLAYS_2[g2][b2][r2],
                    *_PLAYS_3[g3][b3][r3],
                    *_PLAYS_4[g4][b4][r4],
                    *_PLAYS_5[g5][b5][r5],
                ]
            except (TypeError, IndexError):
                legal = play_actions(hand)
        elif phase is TAKE:
            count = self.take_count
            if count == 1:  # the commonest take, one of each distinct card: cheaper than the memo
                legal = list(map(_TAKE_ONE.__getitem__, dict.fromkeys(sorted(self.row))))
            else:  # take_actions, inlined
                row = tuple(sorted(self.row))
                size = count if count < len(row) else len(row)
                legal = _TAKES[size].get(row)
                if legal is None:
                    legal = _remember_takes(row, size)
        elif phase is DISCARD:
            legal = list(compress(DISCARD_ACTIONS, self.hands[self.seat]))
        elif phase is MOUNTAIN:
            legal = [*self._trade_choices(), DECLINE]
        else:
            legal = []
        self._legal = legal
        return legal

    def apply_index(self, index: int) -> Action:
        """Apply the ``index``-th legal action and return it.

        The hot path of every playout: every action offered is a table object, so what it
        does is found by identity and called directly, without a dispatch on the phase.
        """
        legal = self._legal
        if legal is None:
            legal = self.legal_actions()
        try:
            if index < 0:
                raise IndexError(index)
            action = legal[index]
        except IndexError:
            raise IllegalAction(f"action index {index} is outside 0..{len(legal) - 1}") from None
        self._legal = None
        _, handler, move = _MOVES[id(action)]
        handler(self, move)
        self.history.append(action)
        return action

    def _legal_actions(self) -> list[Action]:
        self._legal = None
        return self.legal_actions()

    def _trade_choices(self) -> list[Action]:
        green, blue, red = self.flocks[self.seat]
        m_green, m_blue, m_red = self.mountains
        choices: list[Action] = []
        if green and m_green:
            choices += trade_actions(0, len(green), m_green)
        if blue and m_blue:
            choices += trade_actions(1, len(blue), m_blue)
        if red and m_red:
            choices += trade_actions(2, len(red), m_red)
        return choices

    # -- carrying out a decision --------------------------------------------------------

    def _apply(self, action: Action) -> None:
        entry = _MOVES.get(id(action))
        if entry is None or entry[0] is not action:  # an equal action, decoded
            entry = parse_move(self._phase, action)
        entry[1](self, entry[2])

    def _resample_hidden(self, seat: int, rng: random.Random) -> None:
        """Redeal other hands' unknown cards, hidden penalty cards and the draw pile.

        Cards publicly known to be in a hand stay there. Before the draw pile is rebuilt
        its cards are as unknown as the hands'; afterwards its cards are the public
        traded flocks, so only its order is shuffled.
        """
        others = [other for other in range(self.players) if other != seat]
        pool: list[int] = []
        for other in others:
            hand, known = self.hands[other], self.known[other]
            pool.extend(c for c in range(len(CARD_TYPES)) for _ in range(hand[c] - known[c]))
            pool.extend(self.penalty_hidden[other])
        if not self.reshuffled:
            pool.extend(self.draw)
        rng.shuffle(pool)
        for other in others:
            free = sum(self.hands[other]) - sum(self.known[other])
            self.hands[other] = list(self.known[other])
            for card in pool[:free]:
                self.hands[other][card] += 1
            hidden = len(self.penalty_hidden[other])
            self.penalty_hidden[other] = pool[free : free + hidden]
            pool = pool[free + hidden :]
        if self.reshuffled:
            rng.shuffle(self.draw)
        else:
            self.draw = pool

    # -- copying and display ----------------------------------------------------------

    def clone(self, rng: random.Random | None = None) -> GoatNGoatState:
        """A fast independent copy (no deepcopy: searches clone often)."""
        other = self._copy_bookkeeping(rng)
        other.draw = list(self.draw)
        other.discard = list(self.discard)
        other.row = list(self.row)
        other.played = list(self.played)
        other.hands = [list(hand) for hand in self.hands]
        other.known = [list(known) for known in self.known]
        other.flocks = [[list(flock) for flock in flocks] for flocks in self.flocks]
        other.penalty_public = [list(pile) for pile in self.penalty_public]
        other.penalty_hidden = [list(pile) for pile in self.penalty_hidden]
        other.mountains = [list(values) for values in self.mountains]
        other.held = [[list(values) for values in held] for held in self.held]
        return other


# -- the action tables ----------------------------------------------------------------
# Actions are built once and shared (never changed in place); _MOVES maps each one's
# identity to (the action, the state method that carries it out, its argument), holding
# the object so that the identity cannot be reused.

Handler = Callable[[GoatNGoatState, Any], None]
Move = tuple[Action, Handler, Any]

DISCARD_ACTIONS: tuple[Action, ...] = tuple({"discard": code} for code in CODES)
TRADE_ACTIONS: tuple[dict[int, Action], ...] = tuple(
    {value: {"trade": colour, "mountain": value} for value in range(1, 10)} for colour in COLOURS
)
_MOVES: dict[int, Move] = {id(DECLINE): (DECLINE, GoatNGoatState._decline, None)}
for _card, _discard in enumerate(DISCARD_ACTIONS):
    _MOVES[id(_discard)] = (_discard, GoatNGoatState._discard, _card)
for _colour, _by_value in enumerate(TRADE_ACTIONS):
    for _value, _trade in _by_value.items():
        _MOVES[id(_trade)] = (_trade, GoatNGoatState._trade, (_colour, _value))
_PLAYS_OF: tuple[list[list[list[Any]]], ...] = tuple(
    [
        [[None] * (COPIES[number] + 1) for _ in range(COPIES[number] + 1)]
        for _ in range(COPIES[number] + 1)
    ]
    for number in NUMBERS
)
"""Per number (less one), then the cards of it held in green, blue and red: the play
actions (filled lazily; None until met)."""
for _by_green in _PLAYS_OF:
    _by_green[0][0][0] = ()  # none of the number held: no play of it
_PLAYS_1, _PLAYS_2, _PLAYS_3, _PLAYS_4, _PLAYS_5 = _PLAYS_OF


_PLAY_OF: dict[tuple[int, int, int, int], Action] = {}
"""Per number and cards of it played per colour: the one shared play action (filled lazily).

Hands that hold different counts offer many of the same plays; sharing them keeps a new
hand's table entry cheap (lookups, not a new action and move per play)."""


def _play_of(number: int, chosen: tuple[int, int, int]) -> Action:
    codes = tuple(
        CODES[card_type(colour, number)] for colour, n in enumerate(chosen) for _ in range(n)
    )
    action = _PLAY_OF[(number, *chosen)] = {"play": list(codes)}
    _MOVES[id(action)] = (action, GoatNGoatState._play, play_move(codes))
    return action


def _plays_of(number: int, held: tuple[int, int, int]) -> tuple[Action, ...]:
    """The play actions of ``number`` with ``held`` cards of that number per colour."""
    green, blue, red = held
    keys = itertools.product((number,), range(green + 1), range(blue + 1), range(red + 1))
    next(keys)  # no card at all is not a play
    plays = tuple(_PLAY_OF.get(key) or _play_of(number, key[1:]) for key in keys)
    if green <= COPIES[number] and blue <= COPIES[number] and red <= COPIES[number]:
        _PLAYS_OF[number - 1][green][blue][red] = plays  # what a hand dealt from the deck can hold
    return plays


def play_actions(hand: list[int]) -> list[Action]:
    """Every play of a hand given as counts per card, in the engine's order."""
    actions: list[Action] = []
    for number, green, blue, red in zip(NUMBERS, hand[0:5], hand[5:10], hand[10:15], strict=True):
        try:
            plays = _PLAYS_OF[number - 1][green][blue][red]
        except IndexError:  # more cards of a kind than the deck holds (a made-up hand)
            plays = None
        actions += plays if plays is not None else _plays_of(number, (green, blue, red))
    return actions


_TAKE_OF: dict[tuple[int, ...], Action] = {}
"""Per sorted choice of row cards: its take action (at most 15,504 choices of 1 to 5)."""
_TAKES: tuple[dict[tuple[int, ...], list[Action]], ...] = tuple({} for _ in range(ROW_SIZE + 1))
"""Per number of cards taken and sorted row: the take actions, a shared list (bounded)."""
TAKE_MEMO = 1 << 15
"""Rows remembered per number of cards taken before the memo starts afresh."""


def _take_of(chosen: tuple[int, ...]) -> Action:
    action = _TAKE_OF[chosen] = {"take": [CODES[card] for card in chosen]}
    _MOVES[id(action)] = (action, _TAKE, chosen)
    return action


def _take_choices(row: tuple[int, ...], size: int) -> list[Action]:
    """Every take of ``size`` cards from a sorted row, computed afresh."""
    if size == 1:  # the commonest take: one of each distinct card
        return list(map(_TAKE_ONE.__getitem__, dict.fromkeys(row)))
    if size == len(row):
        return [_TAKE_OF.get(row) or _take_of(row)]
    # dict.fromkeys drops repeated choices and keeps the first-seen order; the lookups
    # run in C, and a choice not seen before is made on the way.
    choices = dict.fromkeys(itertools.combinations(row, size))
    try:
        return list(map(_TAKE_OF.__getitem__, choices))
    except KeyError:
        return [_TAKE_OF.get(chosen) or _take_of(chosen) for chosen in choices]


def take_actions(row: Sequence[int], count: int) -> list[Action]:
    """Every take of ``count`` cards (all of them, if fewer) from the row, in the engine's order.

    The list is shared by every state with the same row contents: never change it.
    """
    key = tuple(sorted(row))
    size = count if count < len(key) else len(key)
    legal = _TAKES[size].get(key)
    return legal if legal is not None else _remember_takes(key, size)


def _remember_takes(row: tuple[int, ...], size: int) -> list[Action]:
    """The takes of ``size`` cards from a sorted row, computed and kept in the memo."""
    memo = _TAKES[size]
    if len(memo) >= TAKE_MEMO:
        memo.clear()
    legal = memo[row] = _take_choices(row, size)
    return legal


_TAKE = GoatNGoatState._take
_TAKE_ONE = tuple(_take_of((card,)) for card in range(CARD_COUNT))


def play_move(codes: tuple[str, ...]) -> PlayMove:
    """What playing the cards named ``codes`` (all of one number) does."""
    cards = tuple(CODE_INDEX[code] for code in codes)
    number = CARD_TYPES[cards[0]][1]
    colours = sorted({card // STRIDE for card in cards})
    per_colour = tuple(
        (c, [number] * sum(1 for card in cards if card // STRIDE == c)) for c in colours
    )
    return (cards, number, per_colour, list(codes))


def parse_move(phase: Phase, action: Action) -> Move:
    """What a legal action that is not a shared table object (a decoded one) does."""
    if phase is PLAY:
        return (action, GoatNGoatState._play, play_move(tuple(action["play"])))
    if phase is TAKE:
        return (action, GoatNGoatState._take, tuple(CODE_INDEX[code] for code in action["take"]))
    if phase is DISCARD:
        return (action, GoatNGoatState._discard, CODE_INDEX[action["discard"]])
    if action == DECLINE:
        return (action, GoatNGoatState._decline, None)
    move = (COLOUR_INDEX[action["trade"]], action["mountain"])
    return (action, GoatNGoatState._trade, move)


_TRADES: tuple[dict[tuple[int, ...], tuple[Action, ...]], ...] = ({}, {}, {})
"""Per colour, and flock size followed by the face-up mountains: the trades it affords."""


def trade_actions(colour: int, size: int, mountains: list[int]) -> tuple[Action, ...]:
    """The trades a flock of ``size`` cards of ``colour`` affords, mountain values ascending."""
    key = (size, *mountains)
    trades = _TRADES[colour].get(key)
    if trades is None:
        by_value = TRADE_ACTIONS[colour]
        affordable = sorted({value for value in mountains if value <= size})
        trades = _TRADES[colour][key] = tuple(by_value[value] for value in affordable)
    return trades


INFO = GameInfo(
    name="goat-n-goat",
    title="Goat 'n' Goat (やぎ山)",
    min_players=2,
    max_players=5,
    state_class=GoatNGoatState,
    summary="cards: play goats of one number onto colour flocks, trade flocks for mountains",
)
