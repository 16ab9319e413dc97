"""The bundled bots' game knowledge: samplers, greedy choice, search and the bots themselves."""

from __future__ import annotations

import importlib.util
import json
import random
import shlex
import sys
import time
from collections import Counter
from types import ModuleType

import pytest
from click.testing import CliRunner

from goatarena.cli import main
from goatarena.games import GAMES, find_game
from goatarena.games.base import State
from goatarena.games.goat_lords import GoatLordsState
from goatarena.games.goat_lords_tables import IS_GOAT
from goatarena.games.goat_n_goat import GoatNGoatState
from goatarena.games.goat_n_goat_tables import card_type
from goatarena.games.herr_der_ziegen import HerrDerZiegenState
from goatarena.sdk import play_local
from goatarena.strategy import STRATEGIES, find_strategy, greedy_choice
from goatarena.strategy.base import rank_rewards, value_rewards
from goatarena.strategy.mcts import search
from tests.helpers import ROOT

GAME_COUNTS = [(name, players) for name, info in GAMES.items() for players in info.player_counts]


def public_history(state: State, seat: int) -> list:
    """The actions so far as ``seat`` saw them."""
    return [state.public_action(seat, action) for action in state.history]


def decision_points(name: str, players: int, games: int, every: int):
    """States along random games: every ``every``-th decision of ``games`` games."""
    info = find_game(name)
    for game in range(games):
        state = info.new_state(players, 100 + game)
        chooser = random.Random(game)
        decision = 0
        while not state.is_over:
            if decision % every == 0:
                yield state
            state.apply_index(chooser.randrange(len(state.legal_actions())))
            decision += 1


def census(state: State) -> Counter | None:
    """Every card of a card game's state wherever it lies (None for dice games)."""
    cards: Counter = Counter()
    if isinstance(state, GoatLordsState):
        for hand in state.hands:
            cards.update({card: count for card, count in enumerate(hand) if count})
        cards.update(card for herd in state.herds for pile in herd for card in pile)
        cards.update(state.draw + state.discard + state.duel_cards)
    elif isinstance(state, GoatNGoatState):
        for hand in state.hands:
            cards.update({card: count for card, count in enumerate(hand) if count})
        cards.update(state.row + state.discard + state.draw)
        for pile in [*state.penalty_public, *state.penalty_hidden]:
            cards.update(pile)
        for flocks in state.flocks:
            for colour, flock in enumerate(flocks):
                cards.update(card_type(colour, number) for number in flock)
    elif isinstance(state, HerrDerZiegenState):
        cards.update(card for card in state.cards if card is not None)
        for pile in [*state.hands, *state.displays, state.draw]:
            cards.update(pile)
    else:
        return None
    return cards


def test_every_registered_game_has_a_strategy():
    assert set(STRATEGIES) == set(GAMES)


@pytest.mark.parametrize(("name", "players"), GAME_COUNTS)
def test_sampled_states_give_the_seat_its_observation_and_its_legal_actions(name, players):
    strategy = find_strategy(name)
    rng = random.Random(players)
    checked = 0
    for state in decision_points(name, players, games=2, every=7):
        seat = state.to_act
        for viewer in {seat, rng.randrange(players)}:
            observation = state.observation(viewer)
            for history in (None, public_history(state, viewer)):
                sampled = strategy.sample_state(observation, rng, history=history)
                assert type(sampled) is type(state)
                assert sampled.observation(viewer) == observation
                if viewer == seat:
                    assert sampled.legal_actions() == state.legal_actions()
                checked += 1
    assert checked > 10


@pytest.mark.parametrize(("name", "players"), GAME_COUNTS)
def test_sampled_states_hold_every_card_once_and_play_to_the_end(name, players):
    strategy = find_strategy(name)
    rng = random.Random(players)
    for state in decision_points(name, players, games=1, every=11):
        viewer = state.to_act
        sampled = strategy.sample_state(
            state.observation(viewer), rng, history=public_history(state, viewer)
        )
        real = census(state)
        if real is not None:
            assert census(sampled) == real
        while not sampled.is_over:
            sampled.apply_index(rng.randrange(len(sampled.legal_actions())))


def test_samples_differ_where_the_seat_cannot_see():
    state = find_game("goat-lords").new_state(3, 5)
    sample = find_strategy("goat-lords").sampler(state.observation(0), {})
    rng = random.Random(1)
    hands = {tuple(sample(rng).hands[1]) for _ in range(20)}
    assert len(hands) > 10
    assert all(tuple(sample(rng).hands[0]) == tuple(state.hands[0]) for _ in range(5))


def test_goat_lords_samples_never_put_a_wild_where_no_wild_can_be():
    # Wilds are never discarded (a wild always allows a birth), so the discard pile, and a
    # draw pile recycled from it, hold goats only.
    strategy = find_strategy("goat-lords")
    rng = random.Random(0)
    recycled = 0
    for players in (2, 3, 4):
        for state in decision_points("goat-lords", players, games=2, every=3):
            sampled = strategy.sample_state(state.observation(state.to_act), rng)
            assert all(IS_GOAT[card] for card in sampled.discard)
            if sampled.recycled:
                recycled += 1
                assert all(IS_GOAT[card] for card in sampled.draw)
    assert recycled > 0


def test_herr_der_ziegen_sampler_keeps_removed_cards_out_when_given_the_history():
    info = find_game("herr-der-ziegen")
    strategy = find_strategy("herr-der-ziegen")
    for seed in range(40):
        state = info.new_state(2, seed)
        chooser = random.Random(seed)
        while not state.is_over and not state.closed:
            state.apply_index(chooser.randrange(len(state.legal_actions())))
        if state.is_over:
            continue
        observation = state.observation(state.to_act)
        sampled = strategy.sample_state(
            observation, random.Random(0), history=public_history(state, state.to_act)
        )
        assert census(sampled) == census(state)
        return
    pytest.fail("no game closed a goat type")


@pytest.mark.parametrize("name", list(GAMES))
def test_greedy_choice_is_always_a_legal_index(name):
    info = find_game(name)
    strategy = find_strategy(name)
    for players in (2, 3):
        state = info.new_state(players, 7)
        rng = random.Random(players)
        while not state.is_over:
            seat = state.to_act
            legal = state.legal_actions()
            if seat == 0:
                index = greedy_choice(
                    strategy,
                    state.observation(seat),
                    legal,
                    rng,
                    history=public_history(state, seat),
                )
                assert 0 <= index < len(legal)
            else:
                index = rng.randrange(len(legal))
            state.apply_index(index)


@pytest.mark.parametrize("name", list(GAMES))
def test_search_returns_a_legal_index_within_its_budget(name):
    info = find_game(name)
    strategy = find_strategy(name)
    state = info.new_state(3, 11)
    rng = random.Random(3)
    searched = 0
    while not state.is_over and searched < 4:
        legal = state.legal_actions()
        seat = state.to_act
        if len(legal) > 1:
            started = time.perf_counter()
            result = search(
                strategy,
                state.observation(seat),
                legal,
                rng,
                history=public_history(state, seat),
                seconds=0.03,
            )
            elapsed = time.perf_counter() - started
            assert 0 <= result.index < len(legal)
            assert result.iterations >= 1
            assert elapsed < 0.5  # generous: one iteration takes a few milliseconds at most
            assert sum(result.visits.values()) <= result.iterations
            searched += 1
        state.apply_index(rng.randrange(len(legal)))
    assert searched == 4


def test_search_stops_when_its_clock_says_so():
    state = find_game("mountain-goats").new_state(2, 1)
    ticks = iter(range(1_000_000))
    result = search(
        find_strategy("mountain-goats"),
        state.observation(0),
        state.legal_actions(),
        random.Random(0),
        seconds=10,
        clock=lambda: float(next(ticks)),
    )
    # The clock reads 0 at the start and one more at every iteration's check.
    assert result.iterations == 10


def test_search_with_an_iteration_budget_is_repeatable():
    state = find_game("goat-n-goat").new_state(3, 4)
    strategy = find_strategy("goat-n-goat")
    results = [
        search(
            strategy, state.observation(0), state.legal_actions(), random.Random(9), iterations=60
        )
        for _ in range(2)
    ]
    assert results[0].iterations == 60
    assert results[0].index == results[1].index and results[0].visits == results[1].visits


def test_a_single_choice_is_answered_without_searching():
    state = find_game("mountain-goats").new_state(2, 1)
    result = search(
        find_strategy("mountain-goats"), state.observation(0), [{"move": []}], random.Random(0)
    )
    assert result.index == 0 and result.iterations == 0


def test_rewards_from_ranks_and_values():
    assert rank_rewards([1, 2, 3]) == [1.0, 0.5, 0.0]
    assert rank_rewards([1, 1, 3]) == [0.75, 0.75, 0.0]
    assert rank_rewards([2, 1]) == [0.0, 1.0]
    even = value_rewards([10.0, 10.0], scale=5)
    assert even == [0.5, 0.5]
    ahead, behind = value_rewards([20.0, 10.0], scale=5)
    assert ahead > 0.8 and behind < 0.2 and ahead + behind == pytest.approx(1)


# -- the bot scripts -------------------------------------------------------------------------


def load_bot(script: str) -> ModuleType:
    """Import a bot script from bots/python as a module."""
    path = ROOT / "bots" / "python" / script
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_greedy_and_mcts_bots_beat_random_at_mountain_goats_in_process():
    greedy = load_bot("greedy_bot.py").GreedyBot
    mcts = load_bot("mcts_bot.py").MctsBot
    random_bot = load_bot("random_bot.py").RandomBot
    wins = {"greedy": 0, "mcts": 0}
    games = 6
    for seed in range(games):
        # Greedy scores about twice what random does; it wins nearly every game.
        for name, bot in (("greedy", greedy()), ("mcts", mcts(ms=15))):
            bots = [bot, random_bot()] if seed % 2 == 0 else [random_bot(), bot]
            result = play_local(bots, "mountain-goats", seed=seed)
            seat = bots.index(bot)
            wins[name] += result.ranks[seat] == 1
    assert wins["greedy"] >= games - 1
    assert wins["mcts"] >= games - 1


@pytest.mark.parametrize("name", list(GAMES))
def test_goatarena_play_runs_greedy_and_mcts_bots_without_violations(name):
    python = shlex.quote(sys.executable)
    bots = [
        f"{python} {ROOT / 'bots' / 'python' / 'greedy_bot.py'}",
        f"{python} {ROOT / 'bots' / 'python' / 'mcts_bot.py'} --ms 10",
        f"{python} {ROOT / 'bots' / 'python' / 'random_bot.py'}",
    ]
    result = CliRunner().invoke(
        main,
        ["play", name, "--seed", "5", "--json", "--quiet", *[f"--bot={bot}" for bot in bots]],
    )
    assert result.exit_code == 0, result.output
    outcome = json.loads(result.output.strip().splitlines()[-1])
    assert outcome["violations"] == [None, None, None]
    assert outcome["players"][:2] == ["greedy", "mcts"]
    assert sorted(outcome["ranks"])[0] == 1
