"""Goat Lords: states from observations, an evaluation and a playout policy.

A seat sees its own hand, every herd, the duel cards, the top of the discard pile and
the sizes of everything else. The sampler deals the cards it cannot see (the deck less
those) to the other hands, the draw pile and the discard pile below its top, uniformly
among the deals that agree with two facts the rules imply: a wild is never discarded (a
wild in hand always allows a birth), so the discard pile holds only goats; and a
recycled draw pile is an old discard pile, so after recycling it holds only goats too.

The evaluation estimates each seat's total at the end of the round: its running total,
its herd, and most of its hand (cards in hand are mostly born into the herd later). A
duel in progress is first played out as if both sides answer while they can, cheapest
card first, and the pile goes to the side that answers last.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, cast

from goatarena.games.base import Action, Observation, State
from goatarena.games.goat_lords import GoatLordsState
from goatarena.games.goat_lords_tables import (
    CARD_INDEX,
    CARDS,
    DECK,
    IS_GOAT,
    VALUES,
    matching,
    pile_kind,
)
from goatarena.strategy.base import Sample, Strategy, blank_states

HAND_WORTH = 0.6
"""The share of a card's value in hand that a seat is expected to bring into its herd."""
ROLLOUT_NOISE = 12.0
"""Random points added to each playout move's score so that playouts vary."""


def sampler(
    observation: Observation,
    options: Mapping[str, Any],
    history: Sequence[Action] | None = None,
) -> Sample:
    """Deal the cards ``observation``'s seat cannot see, consistently with what it saw."""
    seat = observation["seat"]
    players = len(observation["hand_sizes"])
    own = [0] * len(CARDS)
    for card in observation["hand"]:
        own[CARD_INDEX[card]] += 1
    herds = [
        [[CARD_INDEX[card] for card in pile["cards"]] for pile in herd]
        for herd in observation["herds"]
    ]
    duel = observation["duel"]
    duel_cards = [CARD_INDEX[card] for card in duel["played"]] if duel else []
    top = observation["discard_top"]
    seen = [0] * len(CARDS)
    for card in _seen_cards(own, herds, duel_cards, top):
        seen[card] += 1
    unseen_wilds: list[int] = []
    unseen_goats: list[int] = []
    remaining = [0] * len(CARDS)
    for card in DECK:
        remaining[card] += 1
    for card, count in enumerate(remaining):
        left = count - seen[card]
        (unseen_goats if IS_GOAT[card] else unseen_wilds).extend([card] * left)
    others = [other for other in range(players) if other != seat]
    sizes = [observation["hand_sizes"][other] for other in others]
    in_hands = sum(sizes)
    draw_size = observation["draw_size"]
    below_top = max(0, observation["discard_size"] - 1)
    # Wilds may lie in other hands, or in a draw pile that was never recycled.
    wild_places = in_hands + (0 if observation["recycled"] else draw_size)
    if len(unseen_wilds) > wild_places:  # cannot happen in a real game; stay total
        wild_places = in_hands + draw_size + below_top
    rounds = int(options.get("rounds", 0))

    blank = blank_states(GoatLordsState, players, options)

    def sample(rng: random.Random) -> State:
        slots: list[int] = [-1] * (in_hands + draw_size + below_top)
        for place, card in zip(rng.sample(range(wild_places), len(unseen_wilds)), unseen_wilds):
            slots[place] = card
        goats = list(unseen_goats)
        rng.shuffle(goats)
        next_goat = 0
        for place, card in enumerate(slots):
            if card < 0:
                slots[place] = goats[next_goat]
                next_goat += 1
        state = blank(rng)
        state.rounds = rounds
        state.hand_size = observation["hand_size"]
        state.totals = list(observation["totals"])
        state.round_scores = [list(scores) for scores in observation["round_scores"]]
        state.round = observation["round"] - 1
        state.is_over = observation["to_act"] is None
        hands = [list(own) if other == seat else [0] * len(CARDS) for other in range(players)]
        start = 0
        for other, size in zip(others, sizes):
            hand = hands[other]
            for card in slots[start : start + size]:
                hand[card] += 1
            start += size
        state.hands = hands
        state.herds = [[list(pile) for pile in herd] for herd in herds]
        state.draw = slots[start : start + draw_size]
        discard = slots[start + draw_size :]
        if top is not None:
            discard.append(CARD_INDEX[top])
        state.discard = discard
        state.recycled = observation["recycled"]
        state.turn = observation["turn"]
        state.duel_target = duel["defender"] if duel else -1
        state.duel_cards = list(duel_cards)
        return state

    return sample


def _seen_cards(
    own: list[int], herds: list[list[list[int]]], duel_cards: list[int], top: str | None
) -> list[int]:
    cards = [card for card, count in enumerate(own) for _ in range(count)]
    cards.extend(card for herd in herds for pile in herd for card in pile)
    cards.extend(duel_cards)
    if top is not None:
        cards.append(CARD_INDEX[top])
    return cards


def values(state: State) -> list[float]:
    """Each seat's total plus its herd and most of its hand, a duel played out first."""
    game = cast(GoatLordsState, state)
    worth = [
        float(game.totals[seat] + game.herd_value(seat))
        + HAND_WORTH * sum(VALUES[card] * count for card, count in enumerate(game.hands[seat]))
        for seat in range(game.players)
    ]
    if game.duel_target >= 0:
        _settle_duel(game, worth)
    return worth


def _settle_duel(game: GoatLordsState, worth: list[float]) -> None:
    """Move the values of a duel in progress to the side that would win it."""
    attacker, defender = game.turn, game.duel_target
    pile = game.herds[defender][-1]
    kind = pile_kind(pile)
    counts = {
        attacker: len(_matching_cards(game.hands[attacker], kind)),
        defender: len(_matching_cards(game.hands[defender], kind)),
    }
    played = len(game.duel_cards)
    responder = defender if played % 2 else attacker
    answers = {attacker: 0, defender: 0}
    last = attacker if played % 2 else defender
    while answers[responder] < counts[responder]:
        answers[responder] += 1
        last = responder
        responder = attacker if responder == defender else defender
    stake = sum(VALUES[card] for card in game.duel_cards)
    if last == attacker:
        pile_value = sum(VALUES[card] for card in pile)
        worth[attacker] += pile_value + stake
        worth[defender] -= pile_value
    else:
        worth[defender] += stake


def _matching_cards(hand: list[int], kind: int) -> list[int]:
    """Every card (with repeats) of ``hand`` that can answer a pile of ``kind``."""
    return [card for card in matching(hand, kind) for _ in range(hand[card])]


def rollout(state: State, rng: random.Random) -> int:
    """A quick sensible move: answer duels with the cheapest card, else score moves."""
    game = cast(GoatLordsState, state)
    legal = game.legal_actions()
    if game.duel_target >= 0:
        return 0  # the cheapest matching card; "yield" comes last and is then the only one
    best, best_score = 0, -1e9
    for index, action in enumerate(legal):
        if "birth" in action:
            card = CARD_INDEX[action["birth"]]
            score = VALUES[card] * (2 if IS_GOAT[card] else 1) * (1 - HAND_WORTH)
        elif "assisted_birth" in action:
            score = VALUES[CARD_INDEX[action["assisted_birth"]]] * (2 - HAND_WORTH)
        elif "duel" in action:
            pile = game.herds[action["duel"]][-1]
            score = sum(VALUES[card] for card in pile) * 0.5
        else:
            score = -VALUES[CARD_INDEX[action["discard"]]]
        score += rng.random() * ROLLOUT_NOISE
        if score > best_score:
            best, best_score = index, score
    return best


STRATEGY = Strategy(
    game="goat-lords",
    sampler=sampler,
    values=values,
    scale=60.0,
    rollout=rollout,
    rollout_depth=4,
    greedy_samples=8,
)
