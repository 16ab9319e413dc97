"""Scenario tests for Goat Lords (Simple Version), one group per rule of rules/goat-lords.md."""

from __future__ import annotations

import copy
import pickle
import random
from collections import Counter

import pytest

from goatarena.errors import ConfigError, IllegalAction
from goatarena.games import find_game
from goatarena.games.goat_lords import GoatLordsState
from goatarena.games.goat_lords_tables import CARD_INDEX, CARDS, DECK
from goatarena.testing import check_game, random_playout

INFO = find_game("goat-lords")


def counts(cards: list[str]) -> list[int]:
    """A hand as counts per card from a list of card ids."""
    hand = [0] * len(CARDS)
    for card in cards:
        hand[CARD_INDEX[card]] += 1
    return hand


def cards(ids: list[str]) -> list[int]:
    return [CARD_INDEX[card] for card in ids]


def make(
    players: int = 3,
    hands: dict[int, list[str]] | None = None,
    herds: dict[int, list[list[str]]] | None = None,
    discard: list[str] | None = None,
    draw: list[str] | None = None,
    turn: int = 0,
    options: dict[str, int] | None = None,
) -> GoatLordsState:
    """A fresh state with the given hands, herds and piles (the draw pile's top is last)."""
    state = INFO.new_state(players, 0, options)
    assert isinstance(state, GoatLordsState)
    hands = hands or {}
    herds = herds or {}
    state.hands = [counts(hands.get(seat, [])) for seat in range(players)]
    state.herds = [[cards(pile) for pile in herds.get(seat, [])] for seat in range(players)]
    state.discard = cards(discard or [])
    state.draw = cards(draw if draw is not None else ["tgoat"] * 30)
    state.turn = turn
    return state


def hand_of(state: GoatLordsState, seat: int) -> list[str]:
    return state.observation(seat)["hand"]


def herd_of(state: GoatLordsState, seat: int) -> list[list[str]]:
    return [pile["cards"] for pile in state.observation(seat)["herds"][seat]]


# -- cards and setup ---------------------------------------------------------------------


def test_deck_is_the_published_110_goat_cards_with_the_resolved_values():
    table = {card_id: (copies, kind, value) for card_id, _, copies, kind, value in CARDS}
    assert len(DECK) == 110
    assert sum(copies for copies, kind, _ in table.values() if kind == "wild") == 12
    assert table["goatacorn"] == (8, "goat", 20)
    assert table["goatini"] == (8, "wild", 25)
    assert table["lord"] == (4, "wild", 50)
    goat_values = sorted(value for _, kind, value in table.values() if kind == "goat")
    assert goat_values == [5, 5, 5, 10, 10, 10, 15, 15, 20, 20]
    assert Counter(DECK)[CARD_INDEX["baby"]] == 10


@pytest.mark.parametrize(("players", "hand_size"), [(2, 5), (3, 5), (4, 4), (5, 4), (6, 4)])
def test_deal_gives_the_hand_size_and_starts_the_discard_pile(players, hand_size):
    state = INFO.new_state(players, 7)
    view = state.observation(0)
    assert view["hand_sizes"] == [hand_size] * players
    assert view["discard_size"] == 1
    assert view["draw_size"] == 110 - players * hand_size - 1
    assert view["to_act"] == 0


def test_discard_pile_is_never_started_by_a_wild():
    for seed in range(200):
        top = INFO.new_state(4, seed).observation(0)["discard_top"]
        assert CARDS[CARD_INDEX[top]][3] == "goat"


class _FixedDeck(random.Random):
    """Shuffles into a fixed order and puts a returned card at the bottom of the pile."""

    def __init__(self, order: list[int]) -> None:
        super().__init__(0)
        self.order = order

    def shuffle(self, x):  # type: ignore[override]
        x[:] = self.order

    def randrange(self, *args, **kwargs):  # type: ignore[override]
        return 0


def test_a_turned_wild_goes_back_into_the_draw_pile():
    # Pops come from the end: ten ninjas for the deal, then a Goat Lord, then a baby goat.
    top = cards(["baby", "lord"] + ["ninja"] * 10)
    rest = list(DECK)
    for card in top:
        rest.remove(card)
    state = make(players=2)
    state.rng = _FixedDeck(rest + top)
    state._start_round()
    assert state.discard == cards(["baby"])
    assert state.draw[0] == CARD_INDEX["lord"]
    assert len(state.draw) == 110 - 10 - 1
    assert hand_of(state, 0) == ["ninja"] * 5


# -- the four actions --------------------------------------------------------------------

LEGAL_CASES = [
    # (name, hand of seat 0, herds, discard, expected actions of seat 0)
    ("pair births", ["ninja", "ninja", "baby"], {}, ["foodie"], [{"birth": "ninja"}]),
    (
        "one wild alone, each wild once",
        ["lord", "lord", "goatini", "baby"],
        {},
        ["foodie"],
        [{"birth": "goatini"}, {"birth": "lord"}],
    ),
    (
        "assisted birth with the discard top",
        ["ninja", "baby", "foodie"],
        {},
        ["ninja"],
        [{"assisted_birth": "ninja"}],
    ),
    (
        "no assisted birth with a wild in hand",
        ["lord", "baby"],
        {},
        ["ninja"],
        [{"birth": "lord"}],
    ),
    (
        "no assisted birth from an empty discard pile",
        ["ninja", "baby", "foodie"],
        {},
        [],
        [{"discard": "baby"}, {"discard": "foodie"}, {"discard": "ninja"}],
    ),
    (
        "duel with a matching goat or a wild",
        ["kraken", "baby", "ninja"],
        {0: [["fairy", "fairy"]], 1: [["dragon", "dragon"], ["kraken", "kraken"]]},
        ["foodie"],
        [{"duel": 1, "play": "kraken"}],
    ),
    (
        "no duel without a pile of one's own",
        ["kraken", "baby", "ninja"],
        {1: [["dragon", "dragon"], ["kraken", "kraken"]]},
        ["foodie"],
        [{"discard": "baby"}, {"discard": "ninja"}, {"discard": "kraken"}],
    ),
    (
        "no duel against a single protected pile",
        ["kraken", "baby", "ninja"],
        {0: [["fairy", "fairy"]], 1: [["kraken", "kraken"]]},
        ["foodie"],
        [{"discard": "baby"}, {"discard": "ninja"}, {"discard": "kraken"}],
    ),
    (
        "a wild-only pile only by a wild",
        ["kraken", "goatini", "ninja"],
        {0: [["fairy", "fairy"]], 1: [["baby", "baby"], ["lord"]], 2: [["ninja", "ninja"]] * 2},
        ["foodie"],
        [
            {"birth": "goatini"},
            {"duel": 1, "play": "goatini"},
            {"duel": 2, "play": "ninja"},
            {"duel": 2, "play": "goatini"},
        ],
    ),
    (
        "a wild-only pile is safe from goats",
        ["kraken", "baby", "ninja"],
        {0: [["fairy", "fairy"]], 1: [["baby", "baby"], ["lord"]]},
        ["foodie"],
        [{"discard": "baby"}, {"discard": "ninja"}, {"discard": "kraken"}],
    ),
]


@pytest.mark.parametrize(("hand", "herds", "discard", "expected"), [c[1:] for c in LEGAL_CASES])
def test_legal_actions_on_a_turn(hand, herds, discard, expected):
    state = make(hands={0: hand, 1: ["tgoat"] * 5, 2: ["tgoat"] * 5}, herds=herds, discard=discard)
    assert state.to_act == 0
    assert state.legal_actions() == expected


@pytest.mark.parametrize(
    "hand",
    [["ninja", "ninja", "baby"], ["lord", "baby"], ["ninja", "baby"]],
    ids=["pair", "wild", "assisted"],
)
def test_discard_is_refused_while_another_action_is_possible(hand):
    state = make(hands={0: hand, 1: ["tgoat"]}, discard=["ninja"])
    with pytest.raises(IllegalAction):
        state.apply({"discard": "baby"})


def test_discard_is_refused_while_a_duel_is_possible():
    state = make(
        hands={0: ["kraken", "baby"], 1: ["tgoat"]},
        herds={0: [["fairy", "fairy"]], 1: [["dragon", "dragon"], ["kraken", "kraken"]]},
    )
    with pytest.raises(IllegalAction):
        state.apply({"discard": "baby"})


APPLY_CASES = [
    # (action, hand before, discard before, hand after (restocked with tgoat), herd, discard)
    ({"birth": "ninja"}, ["ninja", "ninja", "baby"], ["foodie"], ["ninja", "ninja"], ["foodie"]),
    ({"birth": "lord"}, ["lord", "baby"], ["foodie"], ["lord"], ["foodie"]),
    (
        {"assisted_birth": "ninja"},
        ["ninja", "baby"],
        ["foodie", "ninja"],
        ["ninja"] * 2,
        ["foodie"],
    ),
    ({"discard": "baby"}, ["ninja", "baby"], ["foodie"], None, ["foodie", "baby"]),
]


@pytest.mark.parametrize(("action", "hand", "discard", "pile", "discard_after"), APPLY_CASES)
def test_apply_an_action_builds_the_herd_and_restocks(action, hand, discard, pile, discard_after):
    state = make(players=2, hands={0: hand, 1: ["tgoat"] * 5}, discard=discard)
    state.apply(action)
    assert herd_of(state, 0) == ([pile] if pile else [])
    assert state.observation(0)["discard_size"] == len(discard_after)
    assert state.discard == cards(discard_after)
    assert len(hand_of(state, 0)) == 5
    assert state.to_act == 1


# -- duels -------------------------------------------------------------------------------

DUEL_CASES = [
    # (name, attacker hand, defender hand, decisions, attacker herd, defender herd)
    (
        "defender cannot answer: attacker wins at once",
        ["kraken", "baby"],
        ["tgoat"] * 4,
        [{"duel": 1, "play": "kraken"}],
        [["fairy", "fairy"], ["kraken", "kraken", "kraken"]],
        [["dragon", "dragon"]],
    ),
    (
        "defender yields",
        ["kraken", "baby"],
        ["kraken", "tgoat"],
        [{"duel": 1, "play": "kraken"}, "yield"],
        [["fairy", "fairy"], ["kraken", "kraken", "kraken"]],
        [["dragon", "dragon"]],
    ),
    (
        "attacker yields: the defender adds the duel cards",
        ["kraken", "lord"],
        ["kraken", "tgoat"],
        [{"duel": 1, "play": "kraken"}, {"play": "kraken"}, "yield"],
        [["fairy", "fairy"]],
        [["dragon", "dragon"], ["kraken", "kraken", "kraken", "kraken"]],
    ),
    (
        "attacker cannot answer: the defender wins",
        ["kraken", "baby"],
        ["goatini", "tgoat"],
        [{"duel": 1, "play": "kraken"}, {"play": "goatini"}],
        [["fairy", "fairy"]],
        [["dragon", "dragon"], ["kraken", "kraken", "kraken", "goatini"]],
    ),
    (
        "a long duel won by the attacker",
        ["kraken", "lord", "goatini"],
        ["kraken", "lord"],
        [
            {"duel": 1, "play": "kraken"},
            {"play": "lord"},
            {"play": "goatini"},
            {"play": "kraken"},
            {"play": "lord"},
        ],
        [
            ["fairy", "fairy"],
            ["kraken", "kraken", "kraken", "lord", "goatini", "kraken", "lord"],
        ],
        [["dragon", "dragon"]],
    ),
]


@pytest.mark.parametrize(
    ("attacker", "defender", "decisions", "attacker_herd", "defender_herd"),
    [case[1:] for case in DUEL_CASES],
    ids=[case[0] for case in DUEL_CASES],
)
def test_duel_outcomes(attacker, defender, decisions, attacker_herd, defender_herd):
    state = make(
        players=3,
        hands={0: attacker, 1: defender, 2: ["tgoat"] * 5},
        herds={0: [["fairy", "fairy"]], 1: [["dragon", "dragon"], ["kraken", "kraken"]]},
        discard=["foodie"],
    )
    for index, decision in enumerate(decisions):
        assert state.to_act == (0 if index % 2 == 0 else 1)
        state.apply(decision)
    assert state.observation(2)["duel"] is None
    assert herd_of(state, 0) == attacker_herd
    assert herd_of(state, 1) == defender_herd
    assert state.to_act == 1  # the next turn
    assert state.observation(0)["hand_sizes"] == [5, 5, 5]


def test_the_duel_asks_the_defender_out_of_turn_with_matching_cards_only():
    state = make(
        players=3,
        hands={0: ["kraken", "baby"], 1: ["kraken", "lord", "ninja"], 2: ["tgoat"]},
        herds={0: [["fairy", "fairy"]], 1: [["dragon", "dragon"], ["kraken", "kraken"]]},
    )
    state.apply({"duel": 1, "play": "kraken"})
    assert state.to_act == 1
    assert state.legal_actions() == [{"play": "kraken"}, {"play": "lord"}, "yield"]
    duel = state.observation(2)["duel"]
    assert duel == {
        "attacker": 0,
        "defender": 1,
        "kind": "kraken",
        "played": ["kraken"],
        "to_answer": 1,
    }
    with pytest.raises(IllegalAction):
        state.apply({"play": "ninja"})


def test_a_wild_only_pile_is_attacked_and_defended_only_by_wilds():
    state = make(
        players=2,
        hands={0: ["ninja", "goatini"], 1: ["ninja", "lord"]},
        herds={0: [["fairy", "fairy"]], 1: [["dragon", "dragon"], ["lord"]]},
    )
    assert {"duel": 1, "play": "ninja"} not in state.legal_actions()
    state.apply({"duel": 1, "play": "goatini"})
    assert state.legal_actions() == [{"play": "lord"}, "yield"]
    state.apply({"play": "lord"})
    # The attacker's last wild is gone: the defender wins and the pile stays kindless.
    assert herd_of(state, 1) == [["dragon", "dragon"], ["lord", "goatini", "lord"]]
    assert state.observation(0)["herds"][1][1]["kind"] is None


def test_a_duel_against_a_player_with_one_pile_is_refused():
    state = make(
        players=2,
        hands={0: ["kraken", "baby"], 1: ["tgoat"]},
        herds={0: [["fairy", "fairy"]], 1: [["kraken", "kraken"]]},
    )
    with pytest.raises(IllegalAction):
        state.apply({"duel": 1, "play": "kraken"})


def test_the_first_pile_stays_protected_after_losing_the_top_pile():
    state = make(
        players=3,
        hands={0: ["kraken", "kraken", "dragon"], 1: ["tgoat"], 2: ["dragon", "baby"]},
        herds={0: [["fairy", "fairy"]], 1: [["dragon", "dragon"], ["kraken", "kraken"]]},
    )
    state.apply({"duel": 1, "play": "kraken"})
    assert herd_of(state, 1) == [["dragon", "dragon"]]
    state.turn = 2
    state.herds[2] = [cards(["foodie", "foodie"])]
    state._legal = None
    assert all("duel" not in action or action["duel"] != 1 for action in state.legal_actions())


# -- restocking and recycling ------------------------------------------------------------


def test_restocking_starts_with_the_player_who_moved_then_seat_order():
    state = make(
        players=3,
        hands={0: ["baby"] * 4, 1: ["ninja", "ninja", "foodie", "foodie", "fairy"], 2: ["baby"]},
        discard=["ladypug"],
        draw=["tgoat"] * 10 + ["dragon", "kraken", "goatini", "lord"],
        turn=1,
    )
    state.apply({"birth": "ninja"})
    assert hand_of(state, 1) == ["foodie", "foodie", "fairy", "goatini", "lord"]
    assert hand_of(state, 2) == ["baby", "tgoat", "tgoat", "kraken", "dragon"]
    assert hand_of(state, 0) == ["baby"] * 4 + ["tgoat"]


RECYCLE_CASES = [
    # (discard size when the draw pile empties, recycled already, recycles)
    (5, False, True),
    (4, False, False),
    (9, True, False),
]


@pytest.mark.parametrize(("discard_size", "recycled", "recycles"), RECYCLE_CASES)
def test_recycling_needs_five_cards_and_happens_once(discard_size, recycled, recycles):
    state = make(
        players=2,
        hands={0: ["ninja", "ninja", "baby"], 1: ["tgoat"] * 5},
        discard=["foodie"] * discard_size,
        draw=["dragon"],
    )
    state.recycled = recycled
    state.apply({"birth": "ninja"})
    view = state.observation(0)
    if recycles:
        assert hand_of(state, 0) == ["baby", "foodie", "foodie", "foodie", "dragon"]
        assert view["recycled"] is True
        assert view["discard_size"] == 0
        assert view["draw_size"] == discard_size - 3
    else:
        assert hand_of(state, 0) == ["baby", "dragon"]
        assert view["discard_size"] == discard_size
        assert view["draw_size"] == 0


def test_recycling_happens_once_per_round_even_with_a_full_discard_pile():
    state = make(
        players=2,
        hands={0: ["ninja", "ninja", "baby"], 1: ["tgoat"] * 5},
        discard=["foodie"] * 5,
        draw=["dragon"],
    )
    state.apply({"birth": "ninja"})
    assert state.recycled and state.observation(0)["draw_size"] == 2
    state.discard = cards(["fairy"] * 6)
    state.apply({"birth": "tgoat"})  # seat 1 draws the last two cards
    view = state.observation(0)
    assert (view["draw_size"], view["discard_size"], view["hand_sizes"]) == (0, 6, [5, 5])


def test_play_goes_on_with_hands_once_the_draw_pile_is_gone_skipping_empty_hands():
    state = make(
        players=3,
        hands={0: ["ninja", "ninja"], 1: [], 2: ["baby"]},
        herds={0: [["fairy", "fairy"]]},
        discard=["foodie"],
        draw=[],
    )
    state.recycled = True
    state.apply({"birth": "ninja"})
    assert state.to_act == 2  # seat 1 has no cards
    assert state.legal_actions() == [{"discard": "baby"}]
    state.apply({"discard": "baby"})
    # Every hand is empty: round 1 is scored and round 2 starts with seat 1.
    view = state.observation(0)
    assert view["round_scores"] == [[50, 0, 0]]
    assert view["totals"] == [50, 0, 0]
    assert view["round"] == 2
    assert view["to_act"] == 1
    assert view["herds"] == [[], [], []]
    assert view["hand_sizes"] == [5, 5, 5]


# -- rounds, scoring and the game ---------------------------------------------------------


def _finish_round(state: GoatLordsState, herds: dict[int, list[list[str]]]) -> None:
    """End the current round at once with the given herds (the last card is discarded)."""
    for seat in range(state.players):
        state.hands[seat] = counts([])
        state.herds[seat] = [cards(pile) for pile in herds.get(seat, [])]
    state.hands[state.turn] = counts(["baby"])
    state.draw = []
    state.discard = []
    state.recycled = True
    state._legal = None
    state.apply({"discard": "baby"})


def test_the_round_score_is_the_herd_value_and_totals_run_on():
    state = make(players=2)
    _finish_round(state, {0: [["lord", "goatini"], ["ninja", "ninja", "lord"]], 1: [["baby"] * 2]})
    assert state.totals == [50 + 25 + 15 + 15 + 50, 10]
    assert state.to_act == 1 and state.round == 1
    _finish_round(state, {1: [["dragon", "dragon"]]})
    assert state.totals == [155, 50]
    assert state.to_act == 0 and state.round == 2


def test_the_game_ends_at_the_end_of_a_round_with_1000_points():
    state = make(players=3)
    state.totals = [900, 990, 0]
    _finish_round(state, {0: [["lord", "lord"]] * 2, 1: [["lord"]]})
    assert state.is_over
    assert state.result().scores == [1100.0, 1040.0, 0.0]
    assert state.result().ranks == [1, 2, 3]


def test_equal_totals_share_the_rank():
    state = make(players=4)
    state.totals = [990, 980, 0, 5]
    _finish_round(state, {0: [["baby", "baby"]], 1: [["ghoast", "ghoast"]], 3: [["baby"] * 2]})
    assert state.result().scores == [1000.0, 1000.0, 0.0, 15.0]
    assert state.result().ranks == [1, 1, 4, 3]


def test_rounds_one_is_the_alternate_scoring_of_a_single_round():
    state = make(players=2, options={"rounds": 1})
    _finish_round(state, {0: [["baby", "baby"]]})
    assert state.is_over and state.result().ranks == [1, 2]
    played = random_playout(INFO.new_state(5, 3, {"rounds": 1}), random.Random(3))
    assert len(played.observation(0)["round_scores"]) == 1


def test_rounds_three_plays_exactly_three_rounds():
    state = random_playout(INFO.new_state(2, 11, {"rounds": 3}), random.Random(1))
    view = state.observation(0)
    assert len(view["round_scores"]) == 3
    assert max(view["totals"]) >= 1000  # two players pass 1,000 well before the end


@pytest.mark.parametrize("rounds", [-1, "2", 1.0, 1001, 10**20])
def test_bad_rounds_option_is_rejected(rounds):
    with pytest.raises(ConfigError):
        INFO.new_state(3, 0, {"rounds": rounds})


@pytest.mark.parametrize("players", [2, 4, 6])
def test_a_multi_round_game_reaches_1000(players):
    for seed in range(6):
        state = random_playout(INFO.new_state(players, seed), random.Random(seed))
        view = state.observation(0)
        rounds = view["round_scores"]
        totals = [sum(column) for column in zip(*rounds, strict=True)]
        assert totals == view["totals"]
        assert max(totals) >= 1000
        before_last = [sum(column) for column in zip(*rounds[:-1], strict=True)] or [0]
        assert max(before_last) < 1000
        # Every wild ends in a herd each round: at least 400 points are scored per round.
        assert all(sum(scores) >= 400 for scores in rounds)
        if players == 6:
            assert len(rounds) > 1


def test_each_round_starts_one_seat_further_left():
    state = make(players=3)
    starters = []
    for _ in range(4):
        starters.append(state.to_act)
        _finish_round(state, {})
    assert starters == [0, 1, 2, 0]


# -- what a seat sees --------------------------------------------------------------------


def test_observation_shows_own_hand_and_public_piles_only():
    state = make(
        players=3,
        hands={0: ["ninja", "lord"], 1: ["kraken", "kraken"], 2: ["baby"]},
        herds={1: [["dragon", "dragon"], ["lord"]]},
        discard=["foodie", "fairy"],
        draw=["tgoat", "ghoast", "goatini"],
    )
    view = state.observation(0)
    assert view["hand"] == ["ninja", "lord"]
    assert view["hand_sizes"] == [2, 2, 1]
    assert view["herds"][1] == [
        {"kind": "dragon", "cards": ["dragon", "dragon"]},
        {"kind": None, "cards": ["lord"]},
    ]
    assert (view["discard_top"], view["discard_size"], view["draw_size"]) == ("fairy", 2, 3)
    text = repr(view)
    assert "kraken" not in text and "ghoast" not in text and "goatini" not in text
    state.hands[1] = counts(["baby", "baby"])
    state.draw = cards(["goatini", "tgoat", "ghoast"])
    assert state.observation(0) == view


def test_determinize_keeps_the_seat_view_and_the_card_multiset():
    state = INFO.new_state(4, 5)
    random_playout_steps(state, 40)
    for seat in range(4):
        twin = state.determinize(seat, random.Random(seat))
        assert twin.observation(seat) == state.observation(seat)
        assert isinstance(twin, GoatLordsState)
        assert _all_cards(twin) == _all_cards(state)


def random_playout_steps(state: GoatLordsState, steps: int) -> None:
    rng = random.Random(0)
    for _ in range(steps):
        state.apply_index(rng.randrange(len(state.legal_actions())))


def _all_cards(state: GoatLordsState) -> Counter:
    total: Counter = Counter(state.draw + state.discard + state.duel_cards)
    for hand in state.hands:
        total.update({card: count for card, count in enumerate(hand) if count})
    for herd in state.herds:
        for pile in herd:
            total.update(pile)
    return total


def test_cards_are_conserved_through_random_play():
    state = INFO.new_state(5, 9)
    rng = random.Random(9)
    while not state.is_over:
        assert _all_cards(state) == Counter(DECK)
        state.apply_index(rng.randrange(len(state.legal_actions())))


def test_render_shows_herds_hands_and_the_duel():
    state = make(
        players=2,
        hands={0: ["kraken", "baby"], 1: ["kraken"]},
        herds={0: [["fairy", "fairy"]], 1: [["dragon", "dragon"], ["kraken", "kraken"]]},
    )
    state.apply({"duel": 1, "play": "kraken"})
    text = state.render()
    assert "seat 0 attacks seat 1 (kraken)" in text
    assert "dragon dragon | kraken kraken" in text
    assert "hand: baby" in text


def test_clone_is_independent_and_matches_deepcopy():
    state = INFO.new_state(3, 4)
    random_playout_steps(state, 30)
    fast, slow = state.clone(), copy.deepcopy(state)
    rng_fast, rng_slow = random.Random(2), random.Random(2)
    random_playout(fast, rng_fast)
    random_playout(slow, rng_slow)
    assert fast.history == slow.history and fast.result() == slow.result()
    assert len(state.history) == 30 and not state.is_over


def test_pickled_and_hand_edited_states_play_on_like_the_original():
    # The engine keeps hand sizes and top piles beside the fields, and finds moves by the
    # identity of the offered action objects: a copy made by pickle, and a state whose
    # fields were rewritten (then ``_legal = None``), must still play by the rules.
    state = INFO.new_state(3, 8)
    rng = random.Random(8)
    while state.duel_target < 0 or len(state.duel_cards) < 1:
        state.apply_index(rng.randrange(len(state.legal_actions())))
    copied = pickle.loads(pickle.dumps(state))
    assert copied.legal_actions() == state.legal_actions()
    random_playout(state, random.Random(5))
    random_playout(copied, random.Random(5))
    assert copied.history == state.history and copied.result() == state.result()

    edited = make(
        players=3,
        hands={0: ["ninja", "ninja"], 1: ["baby"] * 5, 2: ["baby"]},
        herds={0: [["fairy", "fairy"]], 1: [["kraken", "kraken"], ["lord"]]},
        draw=["tgoat"] * 3,
    )
    edited.apply({"birth": "ninja"})  # seat 0 draws the whole pile, none is left for seat 2
    assert edited.observation(0)["hand_sizes"] == [3, 5, 1] and edited.to_act == 1
    edited.hands[1] = counts(["goatini"])
    edited.herds[2] = [cards(["dragon", "dragon"]), cards(["ninja", "ninja"])]
    edited._legal = None
    assert edited.legal_actions() == [
        {"birth": "goatini"},
        {"duel": 0, "play": "goatini"},
        {"duel": 2, "play": "goatini"},
    ]
    edited.apply({"duel": 2, "play": "goatini"})  # seat 2 holds no ninja and no wild
    assert herd_of(edited, 1)[-1] == ["ninja", "ninja", "goatini"]
    assert edited.observation(0)["hand_sizes"] == [3, 0, 1] and edited.to_act == 2
    # Seat 2 is left one protected pile; its baby goat matches no top pile: a discard.
    assert edited.legal_actions() == [{"discard": "baby"}]


# -- conformance ------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_check_game(players):
    assert check_game("goat-lords", players=players, games=20, hidden_checks=2) > 0
