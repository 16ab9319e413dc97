"""Herr der Ziegen: states from observations, an evaluation and a playout policy.

A seat sees the whole pasture, every display and every card a hand took from the
pasture; it does not see the two cards each other seat was dealt (never dogs: a dealt
dog is replaced) nor the draw pile. Cards of a closed type that were in the displays,
or were played after the type closed, are out of the game; the observation does not
list them, so the sampler takes them from the public history (every play is public)
when it is given, and otherwise draws which of the unaccounted cards of closed types
are out, as many as the card counts require.

The evaluation estimates each seat's final score: the score as if the game ended now
(marked cards, doubled when tied to the stall, and the milk bonus) plus, for each open
goat type, the chance of winning it by majority times what its owner would mark now.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, cast

from goatarena.games.base import Action, Observation, State
from goatarena.games.herr_der_ziegen import HerrDerZiegenState
from goatarena.games.herr_der_ziegen_tables import (
    CARD_TYPE,
    CARD_VALUE,
    DOG,
    MAJORITY,
    Phase,
    cards_in_play,
)
from goatarena.strategy.base import Sample, Strategy, blank_states

SURE_MAJORITY = 0.75
"""The chance of a majority for a seat holding the card that completes it."""
LEAD_WORTH = 0.35
"""The chance of a majority for a seat whose display holds the whole majority (scaled down)."""
LIFE_CARDS = 12.0
"""Cards left in the draw pile at which open types keep their full worth."""
ROLLOUT_EPSILON = 0.3
"""How often a playout move is uniformly random instead of the heuristic one."""


def sampler(
    observation: Observation,
    options: Mapping[str, Any],
    history: Sequence[Action] | None = None,
) -> Sample:
    """Deal the cards ``observation``'s seat cannot see, consistently with what it saw."""
    seat = observation["seat"]
    players = len(observation["hand_sizes"])
    size = observation["size"]
    cards = [card for row in observation["pasture"] for card in row]
    marks = [mark for row in observation["marks"] for mark in row]
    displays = [list(display) for display in observation["displays"]]
    known = [list(hand) for hand in observation["known_hands"]]
    own = list(observation["hand"])
    closed = set(observation["closed"])
    visible = Counter(card for card in cards if card is not None)
    for display in displays:
        visible.update(display)
    visible.update(own)
    for other in range(players):
        if other != seat:
            visible.update(known[other])
    hidden_in_hands = {
        other: observation["hand_sizes"][other] - len(known[other])
        for other in range(players)
        if other != seat
    }
    slots = sum(hidden_in_hands.values()) + observation["draw_size"]
    unaccounted = Counter(cards_in_play(players)) - visible
    removed: Counter[str] | None = None
    if history is not None:
        played = Counter(
            action["play"] for action in history if isinstance(action, dict) and "play" in action
        )
        for display in displays:
            played.subtract(display)
        removed = +played
    out_candidates = [card for card in unaccounted.elements() if CARD_TYPE.get(card, "") in closed]
    out_count = unaccounted.total() - slots
    stalls = [row * size + column for row, column in observation["stalls"]]
    pending = observation["pending_drive"]
    refused = [
        (source[0] * size + source[1], target[0] * size + target[1])
        for source, target in observation["refused_drives"]
    ]

    blank = blank_states(HerrDerZiegenState, players, options)

    def sample(rng: random.Random) -> State:
        if removed is not None:
            pool = list((unaccounted - removed).elements())
        else:
            out = Counter(rng.sample(out_candidates, max(0, out_count)))
            pool = list((unaccounted - out).elements())
        not_dogs = [card for card in pool if card != DOG]
        rng.shuffle(not_dogs)
        state = blank(rng)
        hands = []
        for other in range(players):
            if other == seat:
                hands.append(list(own))
                continue
            hand = list(known[other])
            for _ in range(hidden_in_hands[other]):
                hand.append(not_dogs.pop())
            hands.append(hand)
        draw = not_dogs + [DOG] * pool.count(DOG)
        rng.shuffle(draw)
        state.size = size
        state.stalls = list(stalls)
        state.stall_seat = {cell: owner for owner, cell in enumerate(stalls)}
        state.goats = list(observation["goats"])
        state.markers = list(observation["markers"])
        state.hands = hands
        state.known = [list(hand) for hand in known]
        state.displays = [list(display) for display in displays]
        state.owners = dict(observation["owners"])
        state.fifth = dict(observation["fifth_cards"])
        state.closed = set(closed)
        state.seat = observation["active"]
        state.phase = Phase(observation["phase"])
        state.is_over = state.phase is Phase.OVER
        state.played = observation["played"]
        state.refused = list(refused)
        state.pending = (
            None
            if pending is None
            else (pending[0][0] * size + pending[0][1], pending[1][0] * size + pending[1][1])
        )
        state.turn = observation["turn"]
        state.end_reason = observation["end_reason"]
        state.cards = list(cards)
        state.marks = list(marks)
        state.draw = draw
        return state

    return sample


def values(state: State) -> list[float]:
    """Each seat's score now plus its chances of winning the open goat types."""
    game = cast(HerrDerZiegenState, state)
    worth = [float(score) for score in game.scores()]
    if game.phase is Phase.OVER:
        return worth
    life = min(1.0, (len(game.draw) + 2) / LIFE_CARDS)
    available: dict[str, int] = {}
    for cell, card in enumerate(game.cards):
        if card is not None and game.marks[cell] is None:
            kind = CARD_TYPE.get(card)
            if kind is not None and kind not in game.closed:
                available[kind] = available.get(kind, 0) + CARD_VALUE[card]
    sums = [_type_sums(display) for display in game.displays]
    best_in_hand = [_best_per_type(hand) for hand in game.hands]
    for kind, prize in available.items():
        for seat in range(game.players):
            if not game.markers[seat]:
                continue
            total = sums[seat].get(kind, 0)
            if best_in_hand[seat].get(kind, 0) >= MAJORITY - total:
                chance = SURE_MAJORITY
            else:
                chance = LEAD_WORTH * (total / MAJORITY) ** 2
            worth[seat] += life * chance * prize
    return worth


def _type_sums(cards: list[str]) -> dict[str, int]:
    """The sum of the values of ``cards`` per goat type."""
    sums: dict[str, int] = {}
    for card in cards:
        kind = CARD_TYPE.get(card)
        if kind is not None:
            sums[kind] = sums.get(kind, 0) + CARD_VALUE[card]
    return sums


def _best_per_type(cards: list[str]) -> dict[str, int]:
    """The highest value among ``cards`` per goat type."""
    best: dict[str, int] = {}
    for card in cards:
        kind = CARD_TYPE.get(card)
        if kind is not None:
            best[kind] = max(best.get(kind, 0), CARD_VALUE[card])
    return best


def rollout(state: State, rng: random.Random) -> int:
    """Mostly a move towards a majority: play or take what completes one, or high cards."""
    game = cast(HerrDerZiegenState, state)
    legal = game.legal_actions()
    if rng.random() < ROLLOUT_EPSILON or game.phase not in (Phase.PLAY, Phase.TAKE):
        return rng.randrange(len(legal))
    sums = _type_sums(game.displays[game.seat])
    best, best_score = 0, -1.0
    for index, action in enumerate(legal):
        if game.phase is Phase.PLAY:
            card = action["play"]
        else:
            row, column = action["take"]
            card = game.cards[row * game.size + column] or ""
        kind = CARD_TYPE.get(card)
        score = rng.random()
        if kind is not None and kind not in game.closed:
            score += CARD_VALUE[card] + 2 * sums.get(kind, 0)
        if score > best_score:
            best, best_score = index, score
    return best


STRATEGY = Strategy(
    game="herr-der-ziegen",
    sampler=sampler,
    values=values,
    scale=5.0,
    rollout=rollout,
    rollout_depth=8,
    greedy_samples=4,
)
