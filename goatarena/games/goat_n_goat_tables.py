"""Goat 'n' Goat tables: the card data, the phases and small helpers on cards.

Everything here is plain data or a pure function of its arguments; the state
(:mod:`goatarena.games.goat_n_goat`) and the strategy build on it.
"""

from __future__ import annotations

from enum import StrEnum

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


PLAY, TAKE, DISCARD, MOUNTAIN, OVER = Phase  # module names: cheaper than Phase.PLAY


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


DECK = tuple(goat_deck())
NEXT_SEATS = {
    players: tuple(
        tuple((seat + step) % players for step in range(1, players + 1)) for seat in range(players)
    )
    for players in FINAL_RUN_OUT
}
"""Per player count and seat: the seats in the order they may play next."""
MOUNTAINS = {players: tuple(mountain_values(players)) for players in FINAL_RUN_OUT}
"""One colour's mountains by player count, ascending."""

STRIDE = len(NUMBERS)
"""Card indices per colour: ``card_type(colour, n)`` is ``colour * STRIDE + n - 1``."""
CARD_COUNT = len(CARD_TYPES)
CARD_RANGE = tuple(range(CARD_COUNT))

PlayMove = tuple[tuple[int, ...], int, tuple[tuple[int, list[int]], ...], list[str]]
"""A play: its cards, their number, (colour, the numbers added to its flock) per colour
played in colour order, and the cards' names."""


def codes_of_counts(counts: list[int]) -> list[str]:
    """Card names of a count-per-card-index list, in card order."""
    names: list[str] = []
    for code, count in zip(CODES, counts, strict=True):
        if count:
            names += [code] * count
    return names


def sorted_codes(cards: list[int]) -> list[str]:
    """Card names of a pile, in card order (the pile's own order stays hidden)."""
    return list(map(CODES.__getitem__, sorted(cards)))


def named_by_colour(values: list[list[int]]) -> dict[str, list[int]]:
    """A per-colour list as a dict keyed by colour name."""
    green, blue, red = values
    return {"green": list(green), "blue": list(blue), "red": list(red)}
