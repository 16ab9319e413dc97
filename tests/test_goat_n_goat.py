"""Rule scenarios for Goat 'n' Goat, one table or test per rule of rules/goat-n-goat.md."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from goatarena.errors import IllegalAction
from goatarena.games import find_game
from goatarena.games.goat_n_goat import GoatNGoatState
from goatarena.games.goat_n_goat_tables import (
    CODE_INDEX,
    CODES,
    DECLINE,
    DOUBLE_MOUNTAINS,
    Phase,
    goat_deck,
    mountain_values,
)
from goatarena.testing import check_game, random_playout

INFO = find_game("goat-n-goat")


def cards(text: str) -> list[int]:
    """Card indices of a space-separated list of card names."""
    return [CODE_INDEX[code] for code in text.split()]


def counts(text: str) -> list[int]:
    """A hand (counts per card index) from card names."""
    hand = [0] * len(CODES)
    for card in cards(text):
        hand[card] += 1
    return hand


def make(
    players: int = 3,
    *,
    hands: dict[int, str] | None = None,
    row: str = "g1 g2 g3 b1 b2 r1",
    draw: str = "g1 g1 g1 g1 g1 g1 g1 g1 g1 g1",
    discard: str = "",
    flocks: dict[int, dict[int, list[int]]] | None = None,
) -> GoatNGoatState:
    """A fresh game with chosen hands, row and piles; seat 0 is to play."""
    state = INFO.new_state(players, seed=7)
    assert isinstance(state, GoatNGoatState)
    state.hands = [counts((hands or {}).get(seat, "g1")) for seat in range(players)]
    state.row = cards(row)
    state.draw = cards(draw)
    state.discard = cards(discard)
    for seat, by_colour in (flocks or {}).items():
        for colour, numbers in by_colour.items():
            state.flocks[seat][colour] = list(numbers)
    state._legal = None
    return state


def hand_of(state: GoatNGoatState, seat: int) -> str:
    return " ".join(state.observation(seat)["hand"])


def play(state: GoatNGoatState, text: str) -> None:
    state.apply({"play": text.split()})


def take(state: GoatNGoatState, text: str) -> None:
    state.apply({"take": text.split()})


def card_census(state: GoatNGoatState) -> Counter[int]:
    """Every goat card wherever it lies, by card index."""
    census: Counter[int] = Counter(state.draw + state.discard + state.row)
    for seat in range(state.players):
        census.update({card: n for card, n in enumerate(state.hands[seat]) if n})
        census.update(state.penalty_public[seat] + state.penalty_hidden[seat])
        for colour, flock in enumerate(state.flocks[seat]):
            census.update(colour * 5 + number - 1 for number in flock)
    return census


# -- cards and setup -------------------------------------------------------------------


def test_deck_has_84_goats_in_three_colours():
    deck = Counter(CODES[card] for card in goat_deck())
    assert sum(deck.values()) == 84
    for letter in "gbr":
        assert [deck[f"{letter}{n}"] for n in range(1, 6)] == [10, 8, 5, 3, 2]


@pytest.mark.parametrize(
    ("players", "values"),
    [
        (2, [3, 4, 5, 6, 7, 8, 9]),
        (3, [3, 3, 4, 4, 5, 6, 7]),
        (4, [3, 3, 4, 4, 5, 6, 7]),
        (5, [3, 3, 4, 4, 5, 6, 7]),
    ],
)
def test_resolution_mountains_double_cards_show_side_for_player_count(players, values):
    assert DOUBLE_MOUNTAINS == ((8, 4), (9, 3))
    assert mountain_values(players) == values
    state = INFO.new_state(players, seed=1)
    assert state.observation(0)["mountains"] == {
        "green": values,
        "blue": values,
        "red": values,
    }


@pytest.mark.parametrize(
    ("players", "hand_sizes"),
    [(2, [3, 4]), (3, [3, 4, 4]), (4, [3, 4, 4, 5]), (5, [3, 4, 4, 5, 5])],
)
def test_setup_deals_hands_by_seat_and_a_row_of_six(players, hand_sizes):
    state = INFO.new_state(players, seed=3)
    observation = state.observation(0)
    assert observation["hand_sizes"] == hand_sizes
    assert len(observation["row"]) == 6
    assert observation["draw_size"] == 84 - 6 - sum(hand_sizes)
    assert observation["discard"] == []
    assert state.to_act == 0 and observation["phase"] == "play"


# -- play ------------------------------------------------------------------------------


def test_play_offers_each_distinct_choice_once():
    state = make(hands={0: "g1 g1 b1 r2 r2 r2"})
    plays = [action["play"] for action in state.legal_actions()]
    assert plays == [
        ["b1"],
        ["g1"],
        ["g1", "b1"],
        ["g1", "g1"],
        ["g1", "g1", "b1"],
        ["r2"],
        ["r2", "r2"],
        ["r2", "r2", "r2"],
    ]


@pytest.mark.parametrize(
    "illegal",
    [
        {"play": ["g1", "r2"]},  # two numbers
        {"play": ["g1", "g1", "g1"]},  # more than held
        {"play": []},
        {"play": ["r1"]},  # not held
    ],
)
def test_play_rejects_mixed_numbers_and_cards_not_held(illegal):
    state = make(hands={0: "g1 g1 b1 r2"})
    with pytest.raises(IllegalAction):
        state.apply(illegal)


def test_mixed_colours_in_one_play_go_to_their_own_flocks():
    state = make(hands={0: "g2 r2 r2 b4"})
    play(state, "g2 r2 r2")
    assert state.flocks[0] == [[2], [], [2, 2]]
    assert hand_of(state, 0) == "b4"
    assert state.phase is Phase.TAKE and state.take_count == 2


@pytest.mark.parametrize(
    ("flock", "played", "flock_after", "penalty_after"),
    [
        ([], "g3", [3], 0),  # empty flock: added
        ([1, 2], "g2", [1, 2, 2], 0),  # equal number: added
        ([1, 2], "g4", [1, 2, 4], 0),  # higher number: added
        ([1, 1, 3], "g2", [2], 3),  # lower number: old flock to the penalty pile
        ([5], "g1 g1", [1, 1], 1),
    ],
)
def test_flock_rule(flock, played, flock_after, penalty_after):
    state = make(hands={0: played + " b5"}, flocks={0: {0: flock}})
    play(state, played)
    assert state.flocks[0][0] == flock_after
    assert state.observation(1)["penalty_sizes"][0] == penalty_after
    assert state.penalty_public[0] == ([n - 1 for n in flock] if penalty_after else [])


def test_lower_number_retires_only_the_flocks_that_receive_cards():
    state = make(hands={0: "g2 b2"}, flocks={0: {0: [3], 1: [1], 2: [5, 5]}})
    play(state, "g2 b2")
    assert state.flocks[0] == [[2], [1, 2], [5, 5]]
    assert state.penalty(0) == 1


# -- take ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "played", "take_count"),
    [
        ("g1 g1 b1", "g1 g1", 1),  # two 1s take one card
        ("g1 g1 b1 r1 r1", "g1 g1 b1 r1 r1", 1),  # five 1s still take one
        ("g3", "g3", 3),
        ("g5 r5", "g5 r5", 5),
    ],
)
def test_take_as_many_cards_as_the_number_played(hand, played, take_count):
    state = make(hands={0: hand}, row="g1 g2 g3 b1 b2 r1")
    play(state, played)
    assert state.observation(0)["take_count"] == take_count
    assert {len(action["take"]) for action in state.legal_actions()} == {take_count}


def test_playing_two_ones_draws_one_card_into_the_hand():
    state = make(hands={0: "g1 b1 r4"}, row="g1 g2 g3 b1 b2 r1")
    play(state, "g1 b1")
    take(state, "g3")
    assert hand_of(state, 0) == "g3 r4"
    assert len(state.row) == 6


def test_take_offers_distinct_sets_of_interchangeable_row_cards():
    state = make(hands={0: "g2"}, row="g1 g1 g1 b2 b2 r3")
    play(state, "g2")
    takes = sorted(tuple(action["take"]) for action in state.legal_actions())
    assert takes == sorted([("g1", "g1"), ("g1", "b2"), ("g1", "r3"), ("b2", "b2"), ("b2", "r3")])


def test_take_all_of_a_short_row():
    state = make(hands={0: "g4"}, row="b2 r3")
    play(state, "g4")
    assert state.legal_actions() == [{"take": ["b2", "r3"]}]


def test_resolution_take_together_then_refill_to_six():
    # The draw pile's top is its last card: r5, then b5.
    state = make(hands={0: "g2"}, row="g1 g1 g3 b1 b2 r1", draw="g4 b5 r5")
    play(state, "g2")
    # Both cards come from the row as it was; the new cards cannot be chosen.
    assert {"take": ["r5"]} not in state.legal_actions()
    take(state, "g1 g3")
    assert hand_of(state, 0) == "g1 g3"
    assert [CODES[card] for card in state.row] == ["g1", "b1", "b2", "r1", "r5", "b5"]
    assert [CODES[card] for card in state.draw] == ["g4"]


# -- hand limit ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "played", "discards"),
    [
        ("g1 g1 g1 g1 g1 b1 b1 r3", "r3", 2),  # 8 - 1 + 3 = 10
        ("g1 g1 g1 g1 g1 b1 b1 r1", "r1", 0),  # 8 - 1 + 1 = 8: no discard
        ("g1 g1 g1 g1 g1 b1 b1 r5", "r5", 4),  # 8 - 1 + 5 = 12
    ],
)
def test_hand_limit_discards_down_to_eight(hand, played, discards):
    state = make(hands={0: hand}, row="g2 g2 g2 b2 b2 b2")
    play(state, played)
    take(state, " ".join(["g2"] * min(3, state.take_count) + ["b2"] * (state.take_count - 3)))
    for _ in range(discards):
        assert state.phase is Phase.DISCARD and state.to_act == 0
        state.apply({"discard": "g1"})
    assert state.phase is not Phase.DISCARD
    assert sum(state.hands[0]) == 8
    assert state.penalty(0) == discards
    assert state.penalty_hidden[0] == cards(" ".join(["g1"] * discards))


def test_hand_discard_is_hidden_from_other_seats():
    state = make(hands={0: "g1 g1 g1 g1 g1 b1 b1 r3"}, row="g2 g2 g2 b2 b2 b2")
    play(state, "r3")
    take(state, "g2 g2 b2")
    assert state.legal_actions() == [{"discard": code} for code in ("g1", "g2", "b1", "b2")]
    assert state.public_action(0, {"discard": "b1"}) == {"discard": None}
    assert state.public_action(0, {"take": ["g2"]}) == {"take": ["g2"]}
    before = state.observation(1)["known_in_hands"][0]
    assert before == ["g2", "g2", "b2"]
    state.apply({"discard": "b1"})
    # The discarded card might have been a known one: each known count drops by one.
    assert state.observation(1)["known_in_hands"][0] == ["g2"]


# -- mountains -------------------------------------------------------------------------


def test_trade_a_larger_flock_than_the_mountain():
    state = make(hands={0: "g5 b1"}, flocks={0: {0: [1, 1, 2, 3, 4]}})
    play(state, "g5")
    take(state, "g1 g2 g3 b1 b2")
    assert state.phase is Phase.MOUNTAIN
    choices = state.legal_actions()
    assert choices == [{"trade": "green", "mountain": v} for v in (3, 4, 5, 6)] + [DECLINE]
    state.apply({"trade": "green", "mountain": 4})
    assert state.flocks[0][0] == []
    assert sorted(CODES[c] for c in state.discard) == ["g1", "g1", "g2", "g3", "g4", "g5"]
    assert state.observation(2)["mountains_held"][0] == {"green": [4], "blue": [], "red": []}
    assert state.mountains[0] == [3, 3, 4, 5, 6, 7]
    assert state.score(0) == 4


def test_mountain_must_match_the_flock_colour_and_be_affordable():
    state = make(hands={0: "r1"}, flocks={0: {0: [1, 1], 1: [2, 2, 2, 2]}})
    play(state, "r1")
    take(state, "g1")
    assert state.legal_actions() == [
        {"trade": "blue", "mountain": 3},
        {"trade": "blue", "mountain": 4},
        DECLINE,
    ]


def test_no_mountain_decision_when_nothing_is_affordable():
    state = make(hands={0: "g1"}, flocks={0: {1: [1, 1]}})
    play(state, "g1")
    take(state, "g1")
    assert state.to_act == 1 and state.phase is Phase.PLAY


def test_decline_keeps_the_flock():
    state = make(hands={0: "g1"}, flocks={0: {1: [1, 1, 1]}})
    play(state, "g1")
    take(state, "g1")
    state.apply(DECLINE)
    assert state.flocks[0][1] == [1, 1, 1] and state.to_act == 1


def test_no_second_trade_in_a_turn():
    state = make(hands={0: "r1"}, flocks={0: {0: [1, 1, 1], 1: [1, 1, 1]}})
    play(state, "r1")
    take(state, "g1")
    state.apply({"trade": "green", "mountain": 3})
    assert state.flocks[0][1] == [1, 1, 1]
    assert state.to_act == 1 and state.phase is Phase.PLAY


def test_a_taken_mountain_is_gone_for_everyone():
    state = make(players=2, hands={0: "r1", 1: "r1"}, flocks={0: {0: [1] * 9}, 1: {0: [1] * 9}})
    play(state, "r1")
    take(state, "g1")
    state.apply({"trade": "green", "mountain": 9})
    play(state, "r1")
    take(state, "g1")
    assert {"trade": "green", "mountain": 9} not in state.legal_actions()
    assert {"trade": "green", "mountain": 8} in state.legal_actions()


# -- the deck running out --------------------------------------------------------------


def finish_turn(state: GoatNGoatState) -> None:
    """Discard and decline until the turn of the current seat is over."""
    seat = state.seat
    while state.phase in (Phase.DISCARD, Phase.MOUNTAIN) and state.seat == seat:
        state.apply_index(len(state.legal_actions()) - 1)


def test_two_players_end_at_the_first_run_out():
    state = make(players=2, hands={0: "g2 g1", 1: "b1"}, draw="r5")
    play(state, "g2")
    take(state, "g1 g2")
    # One card was left to draw; the second draw found the pile empty.
    assert state.run_outs == 1 and state.ending
    assert len(state.row) == 5
    finish_turn(state)
    assert state.is_over and state.to_act is None


def test_drawing_the_last_card_is_not_a_run_out():
    state = make(players=2, hands={0: "g1 g1", 1: "b1"}, draw="r5")
    play(state, "g1")
    take(state, "g1")
    assert state.run_outs == 0 and not state.ending
    assert state.draw == [] and len(state.row) == 6
    assert state.to_act == 1


def test_four_players_reshuffle_the_discard_at_the_first_run_out():
    state = make(players=4, hands={0: "g2 g1", 1: "b1"}, draw="r5", discard="b3 b3 b4")
    play(state, "g2")
    take(state, "g1 g2")
    assert state.run_outs == 1 and not state.ending
    assert len(state.row) == 6 and len(state.draw) == 2 and state.discard == []
    assert state.observation(1)["draw_cards"] == sorted(
        state.observation(1)["draw_cards"], key=CODE_INDEX.__getitem__
    )
    assert Counter(state.observation(1)["draw_cards"]) + Counter(
        CODES[c] for c in state.row[-1:]
    ) == Counter(["b3", "b3", "b4"])
    assert state.to_act == 1


def test_four_players_end_at_the_second_run_out():
    state = make(players=4, hands={0: "g3 g1", 1: "b1"}, draw="r5", discard="b3")
    play(state, "g3")
    take(state, "g1 g2 g3")
    # r5, then the rebuilt pile's b3, then the pile runs out a second time.
    assert state.run_outs == 2 and state.ending
    assert len(state.row) == 5
    finish_turn(state)
    assert state.is_over


def test_run_out_with_an_empty_discard_pile_ends_the_game():
    state = make(players=3, hands={0: "g2 g1", 1: "b1"}, draw="", discard="")
    play(state, "g2")
    take(state, "g1 g2")
    assert state.run_outs == 1 and state.ending and len(state.row) == 4
    finish_turn(state)
    assert state.is_over


def test_the_last_turn_still_has_hand_limit_and_mountain():
    state = make(
        players=2,
        hands={0: "g1 g1 g1 g1 g1 g1 g1 r5", 1: "b1"},
        row="b2 b2 b2 b2 b2 b2",
        draw="",
        flocks={0: {1: [1, 1, 1]}},
    )
    play(state, "r5")
    take(state, "b2 b2 b2 b2 b2")
    assert state.ending and len(state.row) == 1
    for _ in range(4):
        state.apply({"discard": "g1"})
    assert state.phase is Phase.MOUNTAIN
    state.apply({"trade": "blue", "mountain": 3})
    assert state.is_over
    assert state.result().scores == [3.0 - 4.0, 0.0]


def test_a_player_with_no_cards_passes():
    state = make(players=3, hands={0: "g1", 1: "", 2: "r1"})
    play(state, "g1")
    take(state, "g1")
    assert state.to_act == 2


def test_the_game_ends_when_nobody_holds_a_card():
    state = make(players=3, hands={0: "g1", 1: "", 2: ""}, row="")
    play(state, "g1")  # an empty row: nothing to take, the turn ends
    assert state.is_over


# -- scoring ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mountains", "penalties", "scores", "ranks"),
    [
        ([[5, 4], [7]], [2, 0], [7, 7], [2, 1]),  # tie on score: fewer penalty cards wins
        ([[5], [6]], [1, 1], [4, 5], [2, 1]),
        ([[4], [4]], [1, 1], [3, 3], [1, 1]),  # equal in both: shared rank
        ([[], [3]], [0, 4], [0, -1], [1, 2]),
    ],
)
def test_resolution_ties_score_then_fewer_penalty_cards(mountains, penalties, scores, ranks):
    state = make(players=2, hands={0: "g1 g3 g4", 1: "b1 b2 b3"})
    for seat in range(2):
        state.held[seat][0] = mountains[seat]
        state.penalty_public[seat] = cards(" ".join(["g1"] * penalties[seat]))
    state.phase = Phase.OVER
    result = state.result()
    assert result.scores == [float(s) for s in scores]
    assert result.ranks == ranks


def test_hands_and_flocks_do_not_score():
    state = make(players=2, hands={0: "g5 g5 g5", 1: ""}, flocks={0: {0: [1, 2, 3]}})
    state.held[1][2] = [3]
    state.phase = Phase.OVER
    assert state.result().scores == [0.0, 3.0]


# -- observation and hidden information ------------------------------------------------


def test_observation_shows_own_hand_and_public_things_only():
    state = INFO.new_state(3, seed=11)
    observation = state.observation(1)
    assert observation["hand"] == hand_of(state, 1).split()
    assert set(observation) == {
        "seat",
        "to_act",
        "turn",
        "phase",
        "played",
        "take_count",
        "hand",
        "row",
        "flocks",
        "penalty_sizes",
        "mountains_held",
        "mountains",
        "hand_sizes",
        "known_in_hands",
        "draw_size",
        "draw_cards",
        "discard",
        "run_outs",
        "final_run_out",
        "ending",
        "scores",
    }
    assert observation["draw_cards"] is None
    assert observation["hand_sizes"] == [3, 4, 4]


def test_determinize_keeps_known_cards_and_the_rebuilt_pile():
    state = make(
        players=3, hands={0: "g2 g1", 1: "b1 b1 r4", 2: "r2 r3"}, draw="r5", discard="b3 b3 b4"
    )
    play(state, "g2")
    take(state, "g1 g2")
    play(state, "b1")
    take(state, "g3")
    for trial in range(20):
        twin = state.determinize(0, random.Random(trial))
        assert isinstance(twin, GoatNGoatState)
        assert twin.observation(0) == state.observation(0)
        assert twin.hands[1][CODE_INDEX["g3"]] >= 1  # taken publicly, not played since
        assert sorted(twin.draw) == sorted(state.draw)  # the rebuilt pile is public
        assert card_census(twin) == card_census(state)


def test_determinize_redeals_hidden_cards_among_hands_and_draw():
    state = INFO.new_state(4, seed=5)
    assert isinstance(state, GoatNGoatState)
    seen = set()
    for trial in range(10):
        twin = state.determinize(0, random.Random(trial))
        assert isinstance(twin, GoatNGoatState)
        assert twin.observation(0) == state.observation(0)
        assert [sum(hand) for hand in twin.hands] == [sum(hand) for hand in state.hands]
        assert card_census(twin) == card_census(state)
        seen.add(tuple(twin.hands[1]))
    assert len(seen) > 1


def test_cards_are_conserved_through_random_games():
    for players in (2, 5):
        state = INFO.new_state(players, seed=players)
        assert isinstance(state, GoatNGoatState)
        rng = random.Random(players)
        full = Counter(goat_deck())
        while not state.is_over:
            assert card_census(state) == full
            for hand, known in zip(state.hands, state.known, strict=True):
                assert all(k <= h for k, h in zip(known, hand, strict=True))
            state.apply_index(rng.randrange(len(state.legal_actions())))
        assert card_census(state) == full
        assert state.run_outs >= 1


def test_clone_is_independent_and_continues_identically():
    state = INFO.new_state(4, seed=9)
    rng = random.Random(1)
    for _ in range(25):
        state.apply_index(rng.randrange(len(state.legal_actions())))
    copy = state.clone()
    assert copy.observation(2) == state.observation(2)
    random_playout(copy, random.Random(3))
    assert copy.is_over and not state.is_over
    again = state.clone()
    random_playout(again, random.Random(3))
    random_playout(state, random.Random(3))
    assert again.result() == state.result() == copy.result()
    assert again.history == state.history


def test_render_names_the_phase_row_and_seats():
    state = make(hands={0: "g2 r2"}, flocks={0: {0: [1, 1]}})
    play(state, "g2")
    text = state.render()
    assert "seat 0: take 2" in text
    assert "row: g1 g2 g3 b1 b2 r1" in text
    assert "seat 2:" in text and "flocks green 112" in text


def test_replay_from_record_reaches_the_same_end():
    state = INFO.new_state(3, seed=21)
    random_playout(state, random.Random(2))
    replayed = INFO.replay(state.to_record())
    assert replayed.result() == state.result()


@pytest.mark.parametrize(("players", "games"), [(2, 25), (3, 20), (4, 20), (5, 20)])
def test_check_game(players: int, games: int):
    assert check_game("goat-n-goat", players=players, games=games) > games * 50
