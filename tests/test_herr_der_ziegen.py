"""Scenario tests for Herr der Ziegen, one group per rule of rules/herr-der-ziegen.md."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from goatarena.errors import IllegalAction
from goatarena.games import find_game
from goatarena.games.herr_der_ziegen import (
    DOG,
    INFO,
    HerrDerZiegenState,
    Phase,
    cards_in_play,
    track_side,
)
from goatarena.testing import check_game, random_playout

Cell = tuple[int, int]


def table(
    players: int = 2,
    cards: dict[Cell, str] | None = None,
    marks: dict[Cell, int] | None = None,
    hands: list[list[str]] | None = None,
    displays: list[list[str]] | None = None,
    draw: list[str] | None = None,
) -> HerrDerZiegenState:
    """A fresh game with the pasture, hands, displays and draw pile replaced."""
    state = INFO.new_state(players, 7)
    assert isinstance(state, HerrDerZiegenState)
    size = state.size
    state.cards = [None] * (size * size)
    state.marks = [None] * (size * size)
    for (row, column), card in (cards or {}).items():
        state.cards[row * size + column] = card
    for (row, column), seat in (marks or {}).items():
        state.marks[row * size + column] = seat
    state.hands = [list(hand) for hand in hands] if hands else [[] for _ in range(players)]
    state.known = [[] for _ in range(players)]
    state.displays = (
        [list(display) for display in displays] if displays else [[] for _ in range(players)]
    )
    state.draw = list(draw or [])
    return state


def card_at(state: HerrDerZiegenState, row: int, column: int) -> str | None:
    return state.cards[row * state.size + column]


def mark_at(state: HerrDerZiegenState, row: int, column: int) -> int | None:
    return state.marks[row * state.size + column]


def take(row: int, column: int) -> dict[str, list[int]]:
    return {"take": [row, column]}


def drive(source: Cell, target: Cell) -> dict[str, list[list[int]]]:
    return {"drive": [list(source), list(target)]}


# -- Resolution: cards in play and pasture per player count -------------------------------


@pytest.mark.parametrize(
    ("players", "types", "dogs", "milk", "size"),
    [(2, 10, 7, 8, 6), (3, 14, 11, 12, 7), (4, 16, 13, 14, 7), (5, 18, 15, 16, 7)],
)
def test_cards_in_play_and_pasture_per_player_count(players, types, dogs, milk, size):
    deck = Counter(cards_in_play(players))
    goat_cards = [card for card in deck if card not in (DOG, "milk1", "milk2")]
    assert len(goat_cards) == types * 5
    assert {card[0] for card in goat_cards} == set("ABCDEFGHIJKLMNOPQR"[:types])
    assert all(deck[card] == 1 for card in goat_cards)
    assert deck[DOG] == dogs
    assert deck["milk1"] == deck["milk2"] == milk // 2
    state = INFO.new_state(players, 3)
    assert state.size == size
    laid = [card for card in state.cards if card is not None]
    assert len(laid) == size * size - players
    assert state.markers == [10] * players
    everything = Counter(laid) + Counter(state.draw)
    for hand in state.hands:
        everything += Counter(hand)
    assert everything == deck


def test_setup_lays_the_shuffled_cards_row_by_row_into_non_stall_cells():
    state = INFO.new_state(3, 11)
    deck = cards_in_play(3)
    random.Random(11).shuffle(deck)
    open_cells = [cell for cell in range(49) if cell not in state.stall_seat]
    assert [state.cards[cell] for cell in open_cells] == deck[: 49 - 3]
    assert all(state.cards[cell] is None for cell in state.stalls)


def test_dealt_hands_hold_two_cards_and_never_a_dog():
    for seed in range(60):
        state = INFO.new_state(5, seed)
        assert all(len(hand) == 2 and DOG not in hand for hand in state.hands)
        assert state.seat == 0 and state.phase is Phase.PLAY


# -- Resolution: stall cells; the track and the big goats' start --------------------------


@pytest.mark.parametrize(
    ("players", "stalls", "starts"),
    [
        (2, [(0, 0), (5, 5)], [0, 11]),
        (3, [(0, 0), (0, 6), (6, 3)], [0, 6, 17]),
        (4, [(0, 0), (0, 6), (6, 6), (6, 0)], [0, 6, 13, 20]),
        (5, [(0, 0), (0, 3), (0, 6), (6, 6), (6, 0)], [0, 3, 6, 13, 20]),
    ],
)
def test_stalls_and_big_goat_start_positions(players, stalls, starts):
    state = INFO.new_state(players, 1)
    assert state.observation(0)["stalls"] == [list(cell) for cell in stalls]
    assert state.goats == starts


@pytest.mark.parametrize(
    ("position", "faced"),
    [
        (0, ("column", 0)),  # top side of (0, 0)
        (5, ("column", 5)),  # top side of (0, 5)
        (6, ("row", 0)),  # right side of (0, 5)
        (11, ("row", 5)),  # right side of (5, 5)
        (12, ("column", 5)),  # bottom side of (5, 5)
        (17, ("column", 0)),  # bottom side of (5, 0)
        (18, ("row", 5)),  # left side of (5, 0)
        (23, ("row", 0)),  # left side of (0, 0)
    ],
)
def test_track_position_faces_a_row_or_column(position, faced):
    assert track_side(position, 6) == faced


@pytest.mark.parametrize(
    ("start", "card", "end"),
    [
        (22, "A5", 3),  # past the top-left corner: 27 mod 24
        (4, "B3", 7),  # round the top-right corner onto the right side
        (10, "milk2", 12),  # round the bottom-right corner
        (16, "milk2", 18),  # round the bottom-left corner onto the left side
        (20, "A3", 23),  # left side, facing row 0
        (9, DOG, 9),  # a dog does not move the goat
    ],
)
def test_big_goat_moves_clockwise_by_the_card_value(start, card, end):
    filler = {(row, column): "J1" for row in range(6) for column in range(6)}
    del filler[(0, 0)], filler[(5, 5)]
    state = table(cards=filler, hands=[[card, "C1"], ["C2", "C3"]], draw=["D1"])
    state.goats = [start, 11]
    state.apply({"play": card})
    assert state.goats[0] == end
    kind, index = track_side(end, 6)
    line = [(index, c) if kind == "row" else (r, index) for r in range(6) for c in range(6)]
    expected = sorted({cell for cell in line if cell not in ((0, 0), (5, 5))})
    assert state.legal_actions() == [take(*cell) for cell in expected]


def test_big_goats_may_share_a_position():
    state = table(cards={(0, 1): "A1", (3, 1): "B1"}, hands=[["C1", "C2"], []], draw=["D1"])
    state.goats = [0, 1]
    state.apply({"play": "C1"})
    assert state.goats == [1, 1]
    assert state.phase is Phase.TAKE


# -- play and take ---------------------------------------------------------------------


def test_interchangeable_hand_cards_give_one_choice():
    state = table(hands=[["milk1", "milk1"], []], cards={(0, 1): "A1"})
    assert state.legal_actions() == [{"play": "milk1"}]
    with pytest.raises(IllegalAction):
        state.apply({"play": "milk2"})


def test_take_puts_the_card_in_hand_and_refills_the_gap_from_the_draw_top():
    state = table(
        cards={(2, 1): "B4", (4, 1): "C2", (3, 1): "D3"},
        marks={(3, 1): 1},
        hands=[["milk1", "E2"], ["F1", "F2"]],
        draw=["H1", "G3"],
    )
    state.apply({"play": "milk1"})
    assert state.legal_actions() == [take(2, 1), take(4, 1)]  # marked and stall cells are not
    state.apply(take(4, 1))
    assert sorted(state.hands[0]) == ["C2", "E2"]
    assert card_at(state, 4, 1) == "G3" and state.draw == ["H1"]
    assert state.displays[0] == ["milk1"]
    seen_by_1 = state.observation(1)
    assert seen_by_1["known_hands"][0] == ["C2"]
    assert seen_by_1["hand_sizes"] == [2, 2]
    assert seen_by_1["draw_size"] == 1
    assert state.seat == 1 and state.phase is Phase.PLAY


# -- scoring: majority -------------------------------------------------------------------


def test_majority_owns_the_type_marks_its_pasture_cards_and_later_refills():
    state = table(
        cards={(2, 3): "A1", (4, 1): "A2", (1, 4): "B2", (3, 5): DOG},
        hands=[["A4", "B1"], ["milk1", "C1"]],
        displays=[["A5", "milk2"], ["A3"]],
        draw=["C5", "D1"],
    )
    state.apply({"play": "A4"})  # 0 -> 4: column 4
    state.apply(take(1, 4))
    assert card_at(state, 1, 4) == "D1"
    assert state.owners == {"A": 0}
    assert "A" in state.closed
    assert mark_at(state, 2, 3) == 0 and mark_at(state, 4, 1) == 0
    assert state.markers[0] == 8
    assert state.displays == [["milk2"], []]  # every display loses its A cards
    assert state.seat == 1


def test_a_card_of_an_owned_type_entering_the_pasture_is_marked_at_once():
    state = table(cards={(3, 5): DOG, (1, 5): "B1"}, hands=[[], ["milk1", "C1"]], draw=["C5", "A3"])
    state.owners = {"A": 0}
    state.closed = {"A"}
    state.seat = 1
    state.apply({"play": "milk1"})  # 11 -> 12: column 5
    state.apply(take(3, 5))
    assert card_at(state, 3, 5) == "A3" and mark_at(state, 3, 5) == 0
    assert state.markers == [9, 10]


def test_a_display_sum_under_eight_does_not_score():
    state = table(
        cards={(1, 4): "B2"}, hands=[["A4", "B1"], []], displays=[["A3"], []], draw=["C1"]
    )
    state.apply({"play": "A4"})
    state.apply(take(1, 4))
    assert state.owners == {} and state.closed == set()
    assert state.displays[0] == ["A3", "A4"]


def test_majority_takes_precedence_over_the_fourth_card():
    state = table(
        cards={(1, 3): "B2", (2, 2): "A4"},
        hands=[["A3", "B1"], []],
        displays=[["A5"], ["A1", "A2"]],
        draw=["C1"],
    )
    state.apply({"play": "A3"})
    state.apply(take(1, 3))
    assert state.owners == {"A": 0} and state.fifth == {}
    assert mark_at(state, 2, 2) == 0


def test_running_out_of_markers_marks_the_highest_values_first():
    state = table(
        cards={(1, 4): "B2", (2, 0): "A1", (5, 2): "A2", (3, 5): DOG},
        hands=[["A4", "B1"], ["milk1", "C1"]],
        displays=[["A5"], []],
        draw=["A3", "D1"],
    )
    state.markers = [1, 10]
    state.apply({"play": "A4"})
    state.apply(take(1, 4))
    assert state.owners == {"A": 0}
    assert mark_at(state, 5, 2) == 0
    assert mark_at(state, 2, 0) is None  # no marker left for A1
    assert state.observation(1)["markers"] == [0, 10]
    state.apply({"play": "milk1"})
    state.apply(take(3, 5))
    assert card_at(state, 3, 5) == "A3" and mark_at(state, 3, 5) is None


def test_a_closed_type_card_only_moves_the_goat_and_is_removed():
    state = table(
        cards={(2, 5): "B2"}, hands=[["A5", "B1"], []], displays=[["milk1"], []], draw=["C1"]
    )
    state.closed = {"A"}
    state.apply({"play": "A5"})
    assert state.goats[0] == 5
    assert state.displays[0] == ["milk1"]
    state.apply(take(2, 5))
    assert state.owners == {} and state.fifth == {}
    assert "A5" not in state.hands[0] + state.displays[0] + state.draw


# -- scoring: the fourth card -----------------------------------------------------------


@pytest.mark.parametrize("where", ["pasture", "draw", "hand"])
def test_fourth_card_gives_the_fifth_card_to_the_strict_leader(where):
    cards = {(1, 4): "B2", (3, 5): DOG}
    hands = [["A4", "B1"], ["milk1", "C1"]]
    draw = ["C2", "D1"]
    if where == "pasture":
        cards[(4, 0)] = "A5"
    elif where == "draw":
        draw = ["A5", "D1"]  # D1 refills this turn, A5 enters next turn
    else:
        hands[1] = ["milk1", "A5"]
    state = table(cards=cards, hands=hands, displays=[["A2"], ["A1", "A3"]], draw=draw)
    state.apply({"play": "A4"})  # fourth A card: sums 6 against 4
    state.apply(take(1, 4))
    assert state.fifth == {"A5": 0} and state.owners == {}
    assert "A" in state.closed and state.displays == [[], []]
    if where == "pasture":
        assert mark_at(state, 4, 0) == 0 and state.markers[0] == 9
    state.apply({"play": "milk1"})  # seat 1: 11 -> 12, column 5
    state.apply(take(3, 5))
    if where == "draw":
        assert card_at(state, 3, 5) == "A5" and mark_at(state, 3, 5) == 0
        assert state.markers[0] == 9
    if where == "hand":
        assert state.markers[0] == 10
        state.seat = 1
        state.phase = Phase.PLAY
        state.cards[2 * 6 + 0] = "E1"
        state.apply({"play": "A5"})  # closed type: moves and is removed
        assert "A5" not in state.displays[1]
        assert all(card != "A5" for card in state.cards)
        assert state.phase is Phase.TAKE and state.goats[1] == 17


def test_fourth_card_with_a_tie_gives_no_owner_but_closes_the_type():
    state = table(
        cards={(2, 3): "B2", (4, 0): "A5"},
        hands=[["A3", "B1"], []],
        displays=[["A2", "milk1"], ["A1", "A4"]],
        draw=["C1"],
    )
    state.apply({"play": "A3"})  # fourth A card: sums 5 and 5
    state.apply(take(2, 3))
    assert state.fifth == {} and state.owners == {}
    assert "A" in state.closed
    assert state.displays == [["milk1"], []]
    assert mark_at(state, 4, 0) is None


# -- the dog ----------------------------------------------------------------------------

DRIVE_CARDS: dict[Cell, str] = {
    (3, 0): "milk1",  # taken after the dog
    (2, 3): "A5",  # seat 0's card to drive (distance 5 from stall (0, 0))
    (2, 1): "B3",  # seat 1's
    (2, 2): "C1",  # available
    (2, 4): "D1",
    (2, 5): "D2",
    (0, 3): DOG,
    (1, 3): "milk2",
    (3, 3): "E1",
    (4, 3): "E2",
    (4, 4): "C2",  # seat 0's, not on a line of A5 and farther away
}
DRIVE_MARKS: dict[Cell, int] = {(2, 3): 0, (2, 1): 1, (4, 4): 0}


def dog_table() -> HerrDerZiegenState:
    state = table(
        cards=DRIVE_CARDS,
        marks=DRIVE_MARKS,
        hands=[[DOG, "F1"], ["F2", "F3"]],
        draw=["G1"],
    )
    state.apply({"play": DOG})
    assert state.goats[0] == 0
    state.apply(take(3, 0))
    return state


def test_drive_choices_go_strictly_closer_to_the_stall_along_row_or_column():
    state = dog_table()
    assert state.phase is Phase.DRIVE and state.to_act == 0
    # A5 at (2, 3): (2, 0) is empty; own marks, farther cells and stalls are excluded.
    # C2 at (4, 4): row 4 and column 4 towards the stall, mostly empty cells.
    assert state.legal_actions() == [
        drive((2, 3), (0, 3)),
        drive((2, 3), (1, 3)),
        drive((2, 3), (2, 0)),
        drive((2, 3), (2, 1)),
        drive((2, 3), (2, 2)),
        drive((4, 4), (0, 4)),
        drive((4, 4), (1, 4)),
        drive((4, 4), (2, 4)),
        drive((4, 4), (3, 4)),
        drive((4, 4), (4, 0)),
        drive((4, 4), (4, 1)),
        drive((4, 4), (4, 2)),
        drive((4, 4), (4, 3)),
        "pass",
    ]


@pytest.mark.parametrize(
    ("target", "card_left_behind", "mark_left_behind"),
    [
        ((0, 3), DOG, None),  # swap with an available card
        ((1, 3), "milk2", None),
        ((2, 2), "C1", None),
        ((2, 0), None, None),  # onto an empty cell
    ],
)
def test_drive_swaps_with_an_available_card_or_moves_to_an_empty_cell(
    target, card_left_behind, mark_left_behind
):
    state = dog_table()
    state.apply(drive((2, 3), target))
    assert card_at(state, *target) == "A5" and mark_at(state, *target) == 0
    assert card_at(state, 2, 3) == card_left_behind
    assert mark_at(state, 2, 3) == mark_left_behind
    assert state.seat == 1 and state.phase is Phase.PLAY


def test_drive_onto_an_opponents_card_asks_that_opponent_who_agrees():
    state = dog_table()
    state.apply(drive((2, 3), (2, 1)))
    assert state.phase is Phase.CONSENT
    assert state.to_act == 1
    assert state.legal_actions() == ["agree", "refuse"]
    assert state.observation(0)["pending_drive"] == [[2, 3], [2, 1]]
    state.apply("agree")
    assert (card_at(state, 2, 1), mark_at(state, 2, 1)) == ("A5", 0)
    assert (card_at(state, 2, 3), mark_at(state, 2, 3)) == ("B3", 1)
    assert state.seat == 1 and state.to_act == 1 and state.phase is Phase.PLAY


def test_a_refused_drive_is_not_offered_again_and_the_driver_chooses_again():
    state = dog_table()
    before = list(state.legal_actions())
    state.apply(drive((2, 3), (2, 1)))
    state.apply("refuse")
    assert (card_at(state, 2, 1), mark_at(state, 2, 1)) == ("B3", 1)
    assert state.to_act == 0 and state.phase is Phase.DRIVE
    assert state.legal_actions() == [a for a in before if a != drive((2, 3), (2, 1))]
    assert state.observation(1)["refused_drives"] == [[[2, 3], [2, 1]]]
    state.apply("pass")
    assert state.seat == 1 and state.observation(1)["refused_drives"] == []


def test_a_refusal_with_no_other_drive_ends_the_turn():
    state = table(
        cards={(3, 0): "milk1", (0, 2): "A5", (0, 1): "B3"},
        marks={(0, 2): 0, (0, 1): 1},
        hands=[[DOG, "F1"], []],
        draw=["G1"],
    )
    state.apply({"play": DOG})
    state.apply(take(3, 0))
    assert state.legal_actions() == [drive((0, 2), (0, 1)), "pass"]
    state.apply(drive((0, 2), (0, 1)))
    state.apply("refuse")
    assert state.seat == 1 and state.phase is Phase.PLAY


def test_a_dog_without_any_possible_drive_ends_the_turn():
    # own card next to the stall; the only closer cells are the stall and own cards
    state = table(
        cards={(3, 0): "milk1", (0, 1): "A5", (1, 1): "A4"},
        marks={(0, 1): 0, (1, 1): 0},
        hands=[[DOG, "F1"], []],
        draw=["G1"],
    )
    state.cards[1 * 6 + 0] = "A3"
    state.marks[1 * 6 + 0] = 0
    state.apply({"play": DOG})
    state.apply(take(3, 0))
    assert state.seat == 1 and state.phase is Phase.PLAY


def test_a_drive_must_end_strictly_closer_not_at_an_equal_distance():
    # five players: seat 1's stall is (0, 3); from (2, 1) (distance 4) the cell (2, 5)
    # is as far, (2, 2) and (2, 4) are closer, (1, 1) is closer along the column
    row_two = {(2, column): f"B{column}" for column in (2, 4, 5)}
    state = table(
        players=5,
        cards={**row_two, (2, 1): "A5", (1, 1): "C1", (5, 3): DOG, (3, 1): "D1"},
        marks={(2, 1): 1},
        hands=[[], [DOG, "E1"], [], [], []],
        draw=["F1"],
    )
    state.seat = 1
    state.apply({"play": DOG})  # seat 1 stays at 3: column 3
    state.apply(take(5, 3))
    assert state.legal_actions() == [
        drive((2, 1), (0, 1)),
        drive((2, 1), (1, 1)),
        drive((2, 1), (2, 2)),
        drive((2, 1), (2, 3)),
        drive((2, 1), (2, 4)),
        "pass",
    ]


def test_a_drive_needs_a_dog():
    state = table(
        cards={(0, 1): "milk1", (2, 3): "A5"},
        marks={(2, 3): 0},
        hands=[["milk1", "F1"], []],
        draw=["G1"],
    )
    state.apply({"play": "milk1"})
    state.apply(take(0, 1))
    assert state.seat == 1 and state.phase is Phase.PLAY


# -- the end ----------------------------------------------------------------------------


def test_game_ends_when_the_taken_cards_line_is_left_without_an_available_card():
    state = table(
        cards={(1, 4): "B2", (4, 4): "C3", (2, 0): "D1"},
        marks={(4, 4): 1},
        hands=[["A4", "B1"], ["E1", "E2"]],
        displays=[["A5"], []],
        draw=[],
    )
    state.apply({"play": "A4"})
    state.apply(take(1, 4))
    assert card_at(state, 1, 4) is None
    assert state.is_over and state.to_act is None and state.legal_actions() == []
    assert state.owners == {}  # ended at once: the played A4 is not scored
    assert state.result().scores == [0.0, 3.0]


def test_an_unfilled_gap_does_not_end_the_game_while_the_line_has_cards():
    state = table(cards={(1, 4): "B2", (3, 4): "C3"}, hands=[["A4", "B1"], ["E1", "E2"]], draw=[])
    state.apply({"play": "A4"})
    state.apply(take(1, 4))
    assert not state.is_over and state.seat == 1


def test_a_refilled_gap_does_not_end_the_game_even_if_the_new_card_is_marked():
    state = table(cards={(1, 4): "B2"}, hands=[["milk2", "B1"], ["E1", "E2"]], draw=["A1"])
    state.owners = {"A": 1}
    state.closed = {"A"}
    state.goats = [2, 11]
    state.apply({"play": "milk2"})
    state.apply(take(1, 4))
    assert mark_at(state, 1, 4) == 1
    assert not state.is_over and state.seat == 1


def test_game_ends_when_the_faced_line_holds_no_available_card():
    state = table(
        cards={(1, 2): "B2", (4, 2): "C3", (3, 3): "D4"},
        marks={(1, 2): 0, (4, 2): 1},
        hands=[["milk2", "B1"], ["E1", "E2"]],
        draw=["F1"],
    )
    state.apply({"play": "milk2"})
    assert state.is_over and state.to_act is None
    assert state.displays[0] == ["milk2"]
    assert state.result().scores == [2.0 + 2.0, 3.0]  # B2 plus the milk bonus; C3
    assert state.observation(1)["end_reason"]


# -- final scoring ------------------------------------------------------------------------


DOUBLING_CARDS: dict[Cell, str] = {
    **{(0, column): f"A{column}" for column in range(1, 6)},
    **{(row, 0): f"B{row}" for row in range(1, 6)},
    (1, 1): "C5",
}
"""Round seat 0's stall (0, 0): A1-A5 along row 0, B1-B5 down column 0."""


@pytest.mark.parametrize(
    ("marks", "expected"),
    [
        ({(0, 1): 0}, 2 * 1),  # next to the stall, sharing a side
        ({(1, 0): 0}, 2 * 1),
        ({(1, 1): 0}, 5),  # a diagonal neighbour is not next to the stall
        ({(0, 1): 0, (0, 2): 0, (0, 3): 1, (0, 4): 0}, 2 * 1 + 2 * 2 + 4),  # broken by seat 1
        ({(0, 1): 0, (0, 3): 0}, 2 * 1 + 3),  # broken by an available card
        ({(1, 0): 0, (2, 0): 0, (3, 0): 0}, 2 * (1 + 2 + 3)),  # down the column
        ({(2, 0): 0, (3, 0): 0}, 2 + 3),  # not starting next to the stall
        ({(0, 1): 0, (0, 2): 0, (1, 0): 0, (1, 1): 0}, 2 * (1 + 2 + 1) + 5),
    ],
)
def test_marked_cards_score_double_when_tied_to_the_stall(marks, expected):
    state = table(cards=DOUBLING_CARDS, marks=marks)
    assert state.pasture_points(0) == expected


@pytest.mark.parametrize(
    ("displays", "bonus"),
    [
        ([["milk2", "milk1"], ["milk2"]], [3, 1]),
        ([["milk2"], ["milk2"], ["milk1"]], [2, 2, 0]),  # tie for most; next: half of 1
        ([["milk2", "milk2"], ["milk1", "milk2"], ["milk1", "milk2"], []], [4, 1, 1, 0]),
        ([["milk2", "milk2"], ["milk1"], ["milk1", "milk2"], []], [4, 0, 1, 0]),
        ([[DOG], ["A1"]], [0, 0]),  # no cans, no bonus
        ([["milk1"], []], [1, 0]),
    ],
)
def test_milk_bonus_first_full_second_half_rounded_down(displays, bonus):
    state = table(players=len(displays), displays=displays)
    assert state.milk_bonus() == bonus


@pytest.mark.parametrize(
    ("marks", "ranks"),
    [
        ({(2, 2): 0, (2, 3): 0, (3, 3): 1}, [1, 2]),  # 3 each: two marked cards beat one
        ({(2, 2): 1, (2, 3): 1, (3, 3): 0}, [2, 1]),
        ({(2, 3): 0, (3, 3): 1}, [1, 1]),  # equal score and count: shared
    ],
)
def test_ties_are_broken_by_more_marked_cards_else_shared(marks, ranks):
    cards = {(2, 2): "A1", (2, 3): "B2", (3, 3): "C3"}
    if len(marks) == 2:
        cards = {(2, 3): "B3", (3, 3): "C3"}
    state = table(cards=cards, marks=marks)
    state.phase = Phase.OVER
    result = state.result()
    assert result.scores[0] == result.scores[1] == 3.0
    assert result.ranks == ranks


# -- what a seat sees -----------------------------------------------------------------


def test_observation_shows_own_hand_and_public_state_only():
    state = INFO.new_state(3, 5)
    seen = state.observation(1)
    assert seen["hand"] == sorted(state.hands[1])
    assert seen["hand_sizes"] == [2, 2, 2] and seen["draw_size"] == len(state.draw)
    assert seen["goats"] == state.goats and len(seen["pasture"]) == 7
    other = state.clone()
    other.hands[0] = ["R5", "R4"]
    other.draw = list(reversed(other.draw))
    assert other.observation(1) == seen
    assert other.observation(0) != state.observation(0)


def test_known_hand_cards_are_public_until_played():
    state = table(
        cards={(2, 1): "C2", (1, 4): "B2", (2, 3): "B5"},
        hands=[["milk1", "E2"], ["milk2", "F3"]],
        draw=["H1", "H2", "H3"],
    )
    state.apply({"play": "milk1"})
    state.apply(take(2, 1))
    state.apply({"play": "milk2"})  # seat 1: 11 -> 13, column 4
    state.apply(take(1, 4))
    assert state.observation(1)["known_hands"] == [["C2"], ["B2"]]
    state.apply({"play": "E2"})  # an unseen dealt card: C2 stays known
    assert state.observation(1)["known_hands"] == [["C2"], ["B2"]]
    state.apply(take(2, 3))  # E2 moved the goat 1 -> 3: column 3
    state.apply({"play": "B2"})
    assert state.observation(0)["known_hands"] == [["B5", "C2"], []]


def test_determinize_keeps_known_cards_and_never_deals_a_dog_into_a_hidden_slot():
    state = INFO.new_state(4, 9)
    rng = random.Random(2)
    for _ in range(30):
        state.apply_index(rng.randrange(len(state.legal_actions())))
    unseen = Counter(state.draw)
    for seat in (0, 2, 3):
        unseen += Counter(state.hands[seat])
    for _ in range(20):
        twin = state.determinize(1, rng)
        assert isinstance(twin, HerrDerZiegenState)
        assert twin.observation(1) == state.observation(1)
        assert twin.hands[1] == state.hands[1]
        redealt = Counter(twin.draw)
        for seat in (0, 2, 3):
            redealt += Counter(twin.hands[seat])
            hidden = Counter(twin.hands[seat]) - Counter(twin.known[seat])
            assert DOG not in hidden
            assert not Counter(twin.known[seat]) - Counter(twin.hands[seat])
        assert redealt == unseen


def test_render_shows_pasture_markers_stalls_and_big_goats():
    state = table(cards={(0, 1): "A3", (2, 2): "milk2"}, marks={(0, 1): 1})
    state.goats = [0, 13]
    text = state.render()
    assert "[S0]" in text and "[S1]" in text
    assert "A3*1" in text and "mk2" in text
    assert "v0" in text  # seat 0's goat above column 0
    assert "^1" in text  # seat 1's goat below column 4 (track position 13)


def test_clone_is_independent():
    state = INFO.new_state(2, 4)
    twin = state.clone()
    twin.apply(twin.legal_actions()[0])
    assert state.history == [] and state.phase is Phase.PLAY
    assert len(state.hands[0]) == 2 and len(twin.hands[0]) == 1


# -- the whole game ----------------------------------------------------------------------


GAMES = {2: 30, 3: 25, 4: 20, 5: 20}
"""Random games per player count in the conformance check (kept to a few seconds)."""


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_conformance(players):
    assert check_game("herr-der-ziegen", players=players, games=GAMES[players], seed=players) > 0


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_games_terminate_and_conserve_cards(players):
    info = find_game("herr-der-ziegen")
    rng = random.Random(players)
    for seed in range(300):
        state = info.new_state(players, seed)
        assert isinstance(state, HerrDerZiegenState)
        limit = len(state.draw) + sum(card is not None for card in state.cards)
        random_playout(state, rng)
        assert state.turn <= limit + 1
        assert sum(len(hand) for hand in state.hands) in (2 * players - 1, 2 * players)
        assert sum(state.markers) + sum(mark is not None for mark in state.marks) == 10 * players
        in_game = Counter(card for card in state.cards if card is not None) + Counter(state.draw)
        for seat in range(players):
            in_game += Counter(state.hands[seat]) + Counter(state.displays[seat])
        removed = Counter(cards_in_play(players)) - in_game
        assert not in_game - Counter(cards_in_play(players))
        assert all(card[0] in state.closed for card in removed)
