"""Goat 'n' Goat: states from observations, an evaluation and a playout policy.

A seat sees its hand, the row, every flock, the traded flocks, which cards each hand is
publicly known to hold, and the sizes of the rest. The sampler deals every other card
(the unknown part of the other hands, all penalty piles, and the draw pile until it is
rebuilt from the public discard pile) uniformly at random. Penalty piles are dealt as a
whole: the observation gives their sizes only, and they score one point per card
whatever they hold.

The evaluation estimates each seat's final score: mountains held minus penalties now,
plus what its flocks can buy (the best face-up mountain of their colour a flock of that
size affords, or a share of the cheapest one it is growing towards), plus a little for
each card in hand, less a point for each card over the hand limit. Flocks and hands are
worth nothing at the end, so their worth shrinks as the draw pile runs out.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, cast

from goatarena.games.base import Action, Observation, State
from goatarena.games.goat_n_goat import GoatNGoatState
from goatarena.games.goat_n_goat_tables import (
    CARD_TYPES,
    CODE_INDEX,
    COLOURS,
    FINAL_RUN_OUT,
    HAND_LIMIT,
    Phase,
    card_type,
    goat_deck,
)
from goatarena.strategy.base import Sample, Strategy, blank_states

TRADE_NOW = 0.9
"""The share of an affordable mountain's value a flock is worth (it may still grow)."""
GROWING = 0.45
"""The share of the cheapest mountain's value a flock too small for it is worth, per card."""
CARD_WORTH = 0.3
"""Points a card in hand is worth: it may lengthen a flock."""
LIFE_CARDS = 24.0
"""Cards still to be drawn at which flocks and hands keep their full worth."""
ROLLOUT_NOISE = 0.8
"""Random points added to each playout move's score so that playouts vary."""


def sampler(
    observation: Observation,
    options: Mapping[str, Any],
    history: Sequence[Action] | None = None,
) -> Sample:
    """Deal the cards ``observation``'s seat cannot see, consistently with what it saw."""
    seat = observation["seat"]
    players = len(observation["hand_sizes"])
    own = _counts(observation["hand"])
    known = [_counts(codes) for codes in observation["known_in_hands"]]
    row = [CODE_INDEX[code] for code in observation["row"]]
    flocks = [
        [list(by_colour[colour]) for colour in COLOURS] for by_colour in observation["flocks"]
    ]
    held = [
        [list(by_colour[colour]) for colour in COLOURS]
        for by_colour in observation["mountains_held"]
    ]
    mountains = [list(observation["mountains"][colour]) for colour in COLOURS]
    discard = [CODE_INDEX[code] for code in observation["discard"]]
    draw_cards = observation["draw_cards"]
    rebuilt = draw_cards is not None
    draw_known = [CODE_INDEX[code] for code in draw_cards] if rebuilt else []
    pool = _counts_of_cards(goat_deck())
    seen: list[int] = [card for card, count in enumerate(own) for _ in range(count)]
    seen.extend(row)
    seen.extend(
        card_type(colour, number)
        for flock_set in flocks
        for colour, flock in enumerate(flock_set)
        for number in flock
    )
    seen.extend(discard)
    seen.extend(draw_known)
    for other in range(players):
        if other != seat:
            seen.extend(card for card, count in enumerate(known[other]) for _ in range(count))
    for card in seen:
        pool[card] -= 1
    unseen = [card for card, count in enumerate(pool) for _ in range(count)]
    free = [
        0 if other == seat else observation["hand_sizes"][other] - sum(known[other])
        for other in range(players)
    ]
    penalties = list(observation["penalty_sizes"])
    phase = Phase(observation["phase"])
    played = list(observation["played"])

    blank = blank_states(GoatNGoatState, players, options)

    def sample(rng: random.Random) -> State:
        cards = list(unseen)
        rng.shuffle(cards)
        state = blank(rng)
        hands = []
        hidden = []
        start = 0
        for other in range(players):
            hand = list(own) if other == seat else list(known[other])
            for card in cards[start : start + free[other]]:
                hand[card] += 1
            start += free[other]
            hands.append(hand)
            hidden.append(cards[start : start + penalties[other]])
            start += penalties[other]
        state.hands = hands
        state.known = [list(counts) for counts in known]
        state.penalty_hidden = hidden
        state.penalty_public = [[] for _ in range(players)]
        if rebuilt:
            state.draw = list(draw_known)
            rng.shuffle(state.draw)
        else:
            state.draw = cards[start:]
        state.row = list(row)
        state.discard = list(discard)
        state.flocks = [[list(flock) for flock in flock_set] for flock_set in flocks]
        # The engine keeps each colour's mountains ascending (its cheapest is the first).
        state.mountains = [sorted(values) for values in mountains]
        state.held = [[list(values) for values in by_colour] for by_colour in held]
        state.seat = observation["turn"]
        state.phase = phase
        state.take_count = observation["take_count"]
        state.played = list(played)
        state.run_outs = observation["run_outs"]
        state.reshuffled = rebuilt
        state.ending = observation["ending"]
        return state

    return sample


def _counts(codes: list[str]) -> list[int]:
    return _counts_of_cards([CODE_INDEX[code] for code in codes])


def _counts_of_cards(cards: list[int]) -> list[int]:
    counts = [0] * len(CARD_TYPES)
    for card in cards:
        counts[card] += 1
    return counts


def values(state: State) -> list[float]:
    """Each seat's score plus the estimated worth of its flocks and hand."""
    game = cast(GoatNGoatState, state)
    if game.ending:
        life = 0.0
    else:
        to_draw = len(game.draw)
        if game.run_outs + 1 < FINAL_RUN_OUT[game.players]:
            to_draw += len(game.discard)
        life = min(1.0, to_draw / LIFE_CARDS)
    worth = []
    for seat in range(game.players):
        total = float(game.score(seat))
        potential = 0.0
        for colour, flock in enumerate(game.flocks[seat]):
            potential += _flock_worth(len(flock), game.mountains[colour])
        in_hand = sum(game.hands[seat])
        potential += CARD_WORTH * min(in_hand, HAND_LIMIT)
        total -= max(0, in_hand - HAND_LIMIT)
        worth.append(total + life * potential)
    return worth


def _flock_worth(size: int, mountains: list[int]) -> float:
    if not size or not mountains:
        return 0.0
    affordable = [value for value in mountains if value <= size]
    if affordable:
        return TRADE_NOW * max(affordable)
    return GROWING * size


def rollout(state: State, rng: random.Random) -> int:
    """A quick sensible move for each phase of a turn."""
    game = cast(GoatNGoatState, state)
    legal = game.legal_actions()
    if game.phase is Phase.PLAY:
        return _best(legal, rng, lambda action: _play_score(game, action["play"]))
    if game.phase is Phase.MOUNTAIN:
        # The dearest mountain affordable now; "decline" is last and scores nothing.
        return _best(
            legal, rng, lambda action: action["mountain"] if isinstance(action, dict) else 0
        )
    return rng.randrange(len(legal))


def _play_score(game: GoatNGoatState, codes: list[str]) -> float:
    """Cards that lengthen flocks are good, flocks sent to the penalty pile cost their size."""
    seat = game.seat
    number = CARD_TYPES[CODE_INDEX[codes[0]]][1]
    score = 0.0
    retired = set()
    for code in codes:
        colour = CARD_TYPES[CODE_INDEX[code]][0]
        flock = game.flocks[seat][colour]
        if flock and number < flock[-1]:
            if colour not in retired:
                score -= len(flock)
                retired.add(colour)
            score += 0.5
        else:
            score += 1.0
    over = sum(game.hands[seat]) - len(codes) + min(number, len(game.row)) - HAND_LIMIT
    return score - max(0, over)


def _best(legal: list[Any], rng: random.Random, score: Any) -> int:
    best, best_score = 0, -1e9
    for index, action in enumerate(legal):
        value = score(action) + rng.random() * ROLLOUT_NOISE
        if value > best_score:
            best, best_score = index, value
    return best


STRATEGY = Strategy(
    game="goat-n-goat",
    sampler=sampler,
    values=values,
    scale=6.0,
    rollout=rollout,
    rollout_depth=8,
    greedy_samples=2,
)
