"""Moves in words: every action of every game described, distinct within a decision."""

from __future__ import annotations

import random

import pytest

from goatarena.games import GAMES, find_game
from goatarena.render.view import table_view
from goatarena.render.words import describe_action, describe_move

GAMES_PER_GAME = 200
SHORT_OPTIONS = {"goat-lords": {"rounds": 1}}
"""Goat Lords plays to 1,000 points by default; one round offers every kind of decision."""


def _described_decisions(name: str, games: int):
    """(state, view, actor, actions, phrases) for every decision of random games, the
    player counts taken in turn."""
    info = find_game(name)
    counts = list(range(info.min_players, info.max_players + 1))
    for number in range(games):
        players = counts[number % len(counts)]
        state = info.new_state(players, number, SHORT_OPTIONS.get(name, {}))
        chooser = random.Random(number)
        while not state.is_over:
            actions = state.legal_actions()
            view = table_view(state)
            actor = state.to_act
            phrases = [describe_action(name, view, actor, action) for action in actions]
            yield state, actor, actions, phrases
            state.apply(chooser.choice(actions))


@pytest.mark.slow
@pytest.mark.parametrize("name", list(GAMES))
def test_every_action_offered_has_its_own_phrase(name):
    decisions = 0
    for _state, _actor, actions, phrases in _described_decisions(name, GAMES_PER_GAME):
        decisions += 1
        for phrase in phrases:
            assert phrase and "{" not in phrase and "None" not in phrase, phrase
        # two different actions of one decision never read the same
        assert len(set(phrases)) == len(actions), list(zip(actions, phrases))
    assert decisions > GAMES_PER_GAME


@pytest.mark.parametrize("name", list(GAMES))
def test_a_few_games_describe_without_error(name):
    for _state, _actor, actions, phrases in _described_decisions(name, 3):
        assert len(set(phrases)) == len(actions)


@pytest.mark.parametrize(
    ("name", "players", "action", "expected"),
    [
        ("mountain-goats", 2, {"move": [7, 10], "groups": [[2, 5], [5, 5]]},
         "moves goats 7 and 10 (2+5, 5+5)"),
        ("mountain-goats", 2, {"move": [6, 6], "groups": [[1], [2, 4], [6]]},
         "moves goat 6 twice (2+4, 6, unused 1)"),
        ("mountain-goats", 2, {"move": [], "groups": [[1, 4, 6], [2]]},
         "moves no goat (1 2 4 6)"),
        ("goat-lords", 3, {"birth": "ninja"}, "births two Goat Ninjas"),
        ("goat-lords", 3, {"birth": "lord"}, "births a Goat Lord as a new pile"),
        ("goat-lords", 3, {"discard": "kraken"}, "discards a Krakengoat"),
        ("goat-n-goat", 3, {"play": ["g1", "r1"]}, "plays green 1 and red 1"),
        ("goat-n-goat", 3, {"play": ["b2", "b2"]}, "plays two blue 2s"),
        ("goat-n-goat", 3, {"discard": None}, "discards a card"),
        ("goat-n-goat", 3, "decline", "declines to trade a flock"),
        ("herr-der-ziegen", 2, {"play": "C4"}, "plays goat C4, the big goat walks 4"),
        ("herr-der-ziegen", 2, {"play": "milk2"}, "plays milk (2 cans), the big goat walks 2"),
        ("herr-der-ziegen", 2, {"play": "dog"}, "plays a dog"),
    ],
)  # fmt: skip
def test_phrases_read_as_the_rules_speak(name, players, action, expected):
    view = table_view(find_game(name).new_state(players, 1))
    assert describe_action(name, view, 0, action) == expected


def test_a_duel_names_the_pile_and_the_card():
    # the documented example: seat 2 dueled seat 0's Fairy Goat Mothers with a Goatini
    state = find_game("goat-lords").new_state(3, 1)
    chooser = random.Random(0)
    while not (state.observation(0)["duel"] is None and any("duel" in a for a in _dicts(state))):
        state.apply(chooser.choice(state.legal_actions()))
    duel = next(a for a in _dicts(state) if "duel" in a)
    phrase = describe_move(state, duel)
    kind = state.observation(0)["herds"][duel["duel"]][-1]["kind"]
    assert phrase.startswith(f"duels seat {duel['duel']}'s top pile (")
    assert phrase.endswith(" with a " + _name(duel["play"]))
    assert kind is None or _name(kind) in phrase


def test_a_hidden_discard_reads_a_card_for_the_other_seats_only():
    state = find_game("goat-n-goat").new_state(2, 3)
    chooser = random.Random(3)
    while not any("discard" in a for a in _dicts(state)):
        state.apply(chooser.choice(state.legal_actions()))
    action = state.legal_actions()[0]
    actor = state.to_act
    assert describe_move(state, action, viewer=1 - actor) == "discards a card"
    assert describe_move(state, action, viewer=actor) != "discards a card"
    assert describe_move(state, action).startswith("discards ")


def _dicts(state):
    return [a for a in state.legal_actions() if isinstance(a, dict)]


def _name(card):
    from goatarena.render.words.goat_lords import NAMES

    return NAMES[card]
