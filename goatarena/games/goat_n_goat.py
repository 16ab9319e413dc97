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

Hidden information: the hands, the cards discarded into penalty piles (face down) and the
draw order. Cards a seat took from the row are public until that seat plays or discards
cards that might be them; :meth:`GoatNGoatState._resample_hidden` keeps those cards in
their hands and keeps the rebuilt draw pile (the public traded flocks) its own.
"""

from __future__ import annotations

import itertools
import random
from enum import StrEnum
from functools import cache
from typing import Any

from goatarena.games.base import Action, GameInfo, Observation, Result, State, ranks_from_keys

# -- constants and card data ------------------------------------------------------------

COLOURS = ("green", "blue", "red")
COLOUR_LETTERS = ("g", "b", "r")
NUMBERS = (1, 2, 3, 4, 5)
COPIES = {1: 10, 2: 8, 3: 5, 4: 3, 5: 2}
"""Goat cards of each number in each colour: 28 per colour, 84 in all."""
SINGLE_MOUNTAINS = (3, 4, 5, 6, 7)
"""Single-sided mountain cards per colour (Resolution: the reading of "values 3 to 9")."""
DOUBLE_MOUNTAINS = ((8, 4), (9, 3))
"""Double-sided mountain cards per colour: (side shown with 2 players, side with 3-5)."""
STARTING_HANDS = (3, 4, 4, 5, 5)
"""Cards dealt by seat."""
ROW_SIZE = 6
HAND_LIMIT = 8
FINAL_RUN_OUT = {2: 1, 3: 2, 4: 2, 5: 2}
"""Which run-out of the draw pile is the final one, by player count."""

CARD_TYPES = tuple((colour, number) for colour in range(len(COLOURS)) for number in NUMBERS)
"""Every distinct goat card as (colour index, number); a card is an index into this."""
CODES = tuple(f"{COLOUR_LETTERS[colour]}{number}" for colour, number in CARD_TYPES)
"""The name of each card type in actions and observations, e.g. "g1", "r5"."""
CODE_INDEX = {code: index for index, code in enumerate(CODES)}
COLOUR_INDEX = {colour: index for index, colour in enumerate(COLOURS)}
DECLINE = "decline"


class Phase(StrEnum):
    """The decision the seat whose turn it is must make next."""

    PLAY = "play"
    TAKE = "take"
    DISCARD = "discard"
    MOUNTAIN = "mountain"
    OVER = "over"


def card_type(colour: int, number: int) -> int:
    """The card index of a colour index and a number."""
    return colour * len(NUMBERS) + number - 1


def goat_deck() -> list[int]:
    """All 84 goat cards as card indices, in a fixed order."""
    return [card_type(c, n) for c in range(len(COLOURS)) for n in NUMBERS for _ in range(COPIES[n])]


def mountain_values(players: int) -> list[int]:
    """The values of one colour's mountains with ``players`` players, ascending."""
    side = 0 if players == 2 else 1
    return sorted([*SINGLE_MOUNTAINS, *(card[side] for card in DOUBLE_MOUNTAINS)])


# -- the state ---------------------------------------------------------------------------


class GoatNGoatState(State):
    """A Goat 'n' Goat game in progress.

    Hands are counts per card index; flocks are the numbers of their cards, bottom to
    top; penalty piles keep the public old flocks apart from the hidden hand discards.
    """

    def __init__(self, players: int, seed: int, options: dict[str, Any]) -> None:
        super().__init__(players, seed, options)
        self.draw = goat_deck()
        self.rng.shuffle(self.draw)
        self.hands = [[0] * len(CARD_TYPES) for _ in range(players)]
        self.known = [[0] * len(CARD_TYPES) for _ in range(players)]
        for seat in range(players):
            for _ in range(STARTING_HANDS[seat]):
                self.hands[seat][self.draw.pop()] += 1
        self.row = [self.draw.pop() for _ in range(ROW_SIZE)]
        self.discard: list[int] = []
        self.flocks: list[list[list[int]]] = [[[] for _ in COLOURS] for _ in range(players)]
        self.penalty_public: list[list[int]] = [[] for _ in range(players)]
        self.penalty_hidden: list[list[int]] = [[] for _ in range(players)]
        self.mountains = [mountain_values(players) for _ in COLOURS]
        self.held: list[list[list[int]]] = [[[] for _ in COLOURS] for _ in range(players)]
        self.seat = 0
        self.phase = Phase.PLAY
        self.take_count = 0
        self.played: list[str] = []
        self.run_outs = 0
        self.reshuffled = False
        self.ending = False

    # -- whose decision and which choices ---------------------------------------------

    def _to_act(self) -> int | None:
        return None if self.phase is Phase.OVER else self.seat

    def _legal_actions(self) -> list[Action]:
        if self.phase is Phase.PLAY:
            return self._play_choices()
        if self.phase is Phase.TAKE:
            size = min(self.take_count, len(self.row))
            return [{"take": [CODES[card] for card in cards]} for cards in subsets(self.row, size)]
        if self.phase is Phase.DISCARD:
            hand = self.hands[self.seat]
            return [{"discard": CODES[card]} for card, count in enumerate(hand) if count]
        return [*self._trade_choices(), DECLINE]

    def _play_choices(self) -> list[Action]:
        hand = self.hands[self.seat]
        choices: list[Action] = []
        for number in NUMBERS:
            held = tuple(hand[card_type(colour, number)] for colour in range(len(COLOURS)))
            if any(held):
                choices.extend({"play": list(cards)} for cards in plays_of_one_number(number, held))
        return choices

    def _trade_choices(self) -> list[Action]:
        choices: list[Action] = []
        for colour, flock in enumerate(self.flocks[self.seat]):
            for value in sorted(set(self.mountains[colour])):
                if value <= len(flock):
                    choices.append({"trade": COLOURS[colour], "mountain": value})
        return choices

    # -- carrying out a decision --------------------------------------------------------

    def _apply(self, action: Action) -> None:
        if self.phase is Phase.PLAY:
            self._play([CODE_INDEX[code] for code in action["play"]])
        elif self.phase is Phase.TAKE:
            self._take([CODE_INDEX[code] for code in action["take"]])
        elif self.phase is Phase.DISCARD:
            self._discard(CODE_INDEX[action["discard"]])
        elif action == DECLINE:
            self._end_turn()
        else:
            self._trade(COLOUR_INDEX[action["trade"]], action["mountain"])

    def _play(self, cards: list[int]) -> None:
        """Cards of one number onto their flocks; a lower number retires the old flock."""
        seat, number = self.seat, CARD_TYPES[cards[0]][1]
        hand, known = self.hands[seat], self.known[seat]
        for card in cards:
            hand[card] -= 1
            known[card] = max(0, known[card] - 1)
        for colour in sorted({CARD_TYPES[card][0] for card in cards}):
            flock = self.flocks[seat][colour]
            if flock and number < flock[-1]:
                self.penalty_public[seat].extend(card_type(colour, n) for n in flock)
                flock.clear()
            flock.extend(number for card in cards if CARD_TYPES[card][0] == colour)
        self.played = [CODES[card] for card in cards]
        self.take_count = number
        if self.row:
            self.phase = Phase.TAKE
        else:
            self._after_take()

    def _take(self, cards: list[int]) -> None:
        """Resolution: the chosen cards are taken together, then the row is refilled."""
        for card in cards:
            self.row.remove(card)
            self.hands[self.seat][card] += 1
            self.known[self.seat][card] += 1
        while len(self.row) < ROW_SIZE:
            drawn = self._draw_card()
            if drawn is None:
                break
            self.row.append(drawn)
        self._after_take()

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
            self.rng.shuffle(self.draw)
            self.reshuffled = True
        return self.draw.pop()

    def _after_take(self) -> None:
        if sum(self.hands[self.seat]) > HAND_LIMIT:
            self.phase = Phase.DISCARD
        else:
            self._offer_trade()

    def _discard(self, card: int) -> None:
        """One card from hand face down to the penalty pile; others learn only that."""
        seat = self.seat
        self.hands[seat][card] -= 1
        self.penalty_hidden[seat].append(card)
        # Any known card may be the one discarded, so each known count drops by one.
        self.known[seat] = [max(0, count - 1) for count in self.known[seat]]
        if sum(self.hands[seat]) <= HAND_LIMIT:
            self._offer_trade()

    def _offer_trade(self) -> None:
        if self._trade_choices():
            self.phase = Phase.MOUNTAIN
        else:
            self._end_turn()

    def _trade(self, colour: int, value: int) -> None:
        """A whole flock to the discard pile for a face-up mountain of its colour."""
        flock = self.flocks[self.seat][colour]
        self.discard.extend(card_type(colour, number) for number in flock)
        flock.clear()
        self.mountains[colour].remove(value)
        self.held[self.seat][colour].append(value)
        self._end_turn()

    def _end_turn(self) -> None:
        self.played = []
        self.take_count = 0
        if self.ending:
            self.phase = Phase.OVER
            return
        for step in range(1, self.players + 1):
            seat = (self.seat + step) % self.players
            if any(self.hands[seat]):
                self.seat = seat
                self.phase = Phase.PLAY
                return
        self.phase = Phase.OVER  # nobody holds a card: nothing can ever happen again

    # -- scoring -------------------------------------------------------------------------

    def penalty(self, seat: int) -> int:
        """Cards in the penalty pile of ``seat``."""
        return len(self.penalty_public[seat]) + len(self.penalty_hidden[seat])

    def score(self, seat: int) -> int:
        """Mountain values held minus one per penalty card."""
        return sum(sum(values) for values in self.held[seat]) - self.penalty(seat)

    def _result(self) -> Result:
        scores = [self.score(seat) for seat in range(self.players)]
        keys = [(scores[seat], -self.penalty(seat)) for seat in range(self.players)]
        return Result(scores=[float(score) for score in scores], ranks=ranks_from_keys(keys))

    # -- what a seat sees ----------------------------------------------------------------

    def observation(self, seat: int) -> Observation:
        """Own hand and everything public; other hands and the draw order stay hidden."""
        return {
            "seat": seat,
            "to_act": self._to_act(),
            "turn": self.seat,
            "phase": self.phase.value,
            "played": list(self.played),
            "take_count": self.take_count,
            "hand": codes_of_counts(self.hands[seat]),
            "row": [CODES[card] for card in self.row],
            "flocks": [named_by_colour(flocks) for flocks in self.flocks],
            "penalty_sizes": [self.penalty(other) for other in range(self.players)],
            "mountains_held": [named_by_colour(held) for held in self.held],
            "mountains": named_by_colour(self.mountains),
            "hand_sizes": [sum(hand) for hand in self.hands],
            "known_in_hands": [codes_of_counts(known) for known in self.known],
            "draw_size": len(self.draw),
            "draw_cards": sorted_codes(self.draw) if self.reshuffled else None,
            "discard": sorted_codes(self.discard),
            "run_outs": self.run_outs,
            "final_run_out": FINAL_RUN_OUT[self.players],
            "ending": self.ending,
            "scores": [self.score(other) for other in range(self.players)],
        }

    def public_action(self, seat: int, action: Action) -> Action:
        """A hand discard goes face down: the other seats learn only that it happened."""
        if isinstance(action, dict) and "discard" in action:
            return {"discard": None}
        return action

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

    def clone(self) -> GoatNGoatState:
        """A fast independent copy (no deepcopy: searches clone often)."""
        other = self._copy_bookkeeping()
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

    def render(self) -> str:
        """The row, the supplies and every seat's hand, flocks, penalties and mountains."""
        state = "game over" if self.phase is Phase.OVER else f"seat {self.seat}: {self.phase}"
        if self.phase is Phase.TAKE:
            state += f" {self.take_count} (played {' '.join(self.played)})"
        lines = [
            f"{state}  draw {len(self.draw)}  discard {len(self.discard)}"
            f"  run-outs {self.run_outs}/{FINAL_RUN_OUT[self.players]}"
            + ("  (last turn)" if self.ending else ""),
            f"  row: {' '.join(CODES[card] for card in self.row) or '-'}",
            "  mountains: "
            + "  ".join(
                f"{name} {' '.join(map(str, values)) or '-'}"
                for name, values in zip(COLOURS, self.mountains, strict=True)
            ),
        ]
        for seat in range(self.players):
            flocks = "  ".join(
                f"{name} {''.join(map(str, flock)) or '-'}"
                for name, flock in zip(COLOURS, self.flocks[seat], strict=True)
            )
            held = " ".join(
                f"{COLOUR_LETTERS[c]}{v}" for c in range(len(COLOURS)) for v in self.held[seat][c]
            )
            lines.append(
                f"  seat {seat}: hand {' '.join(codes_of_counts(self.hands[seat])) or '-'}"
                f" | flocks {flocks} | penalty {self.penalty(seat)}"
                f" | mountains {held or '-'} | score {self.score(seat)}"
            )
        return "\n".join(lines)


# -- helpers -----------------------------------------------------------------------------


def subsets(cards: list[int], size: int) -> list[list[int]]:
    """The distinct sub-multisets of ``cards`` with ``size`` cards, each sorted."""
    return [list(chosen) for chosen in dict.fromkeys(itertools.combinations(sorted(cards), size))]


@cache
def plays_of_one_number(number: int, held: tuple[int, ...]) -> tuple[tuple[str, ...], ...]:
    """Every non-empty choice of ``number`` cards from ``held`` cards per colour."""
    kinds = [card_type(colour, number) for colour in range(len(COLOURS))]
    return tuple(
        tuple(CODES[kind] for kind, n in zip(kinds, chosen, strict=True) for _ in range(n))
        for chosen in itertools.product(*(range(count + 1) for count in held))
        if any(chosen)
    )


def codes_of_counts(counts: list[int]) -> list[str]:
    """Card names of a count-per-card-index list, in card order."""
    return [CODES[card] for card, count in enumerate(counts) for _ in range(count)]


def sorted_codes(cards: list[int]) -> list[str]:
    """Card names of a pile, in card order (the pile's own order stays hidden)."""
    return [CODES[card] for card in sorted(cards)]


def named_by_colour(values: list[list[int]]) -> dict[str, list[int]]:
    """A per-colour list as a dict keyed by colour name."""
    return {name: list(items) for name, items in zip(COLOURS, values, strict=True)}


INFO = GameInfo(
    name="goat-n-goat",
    title="Goat 'n' Goat (やぎ山)",
    min_players=2,
    max_players=5,
    state_class=GoatNGoatState,
    summary="cards: play goats of one number onto colour flocks, trade flocks for mountains",
)
