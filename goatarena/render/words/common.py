"""Pieces the describers share: counts in words and lists joined the English way."""

from __future__ import annotations

from collections.abc import Sequence

NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight")
"""Small counts as words; larger ones stay digits."""


def count_word(count: int) -> str:
    """3 -> "three" (digits from nine up)."""
    return NUMBER_WORDS[count] if 0 <= count < len(NUMBER_WORDS) else str(count)


def join_words(items: Sequence[str]) -> str:
    """["a"] -> "a"; ["a", "b"] -> "a and b"; ["a", "b", "c"] -> "a, b and c"."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def seat_name(seat: int) -> str:
    """A seat as a describer names it: "seat 2"."""
    return f"seat {seat}"


def cell_name(cell: Sequence[int]) -> str:
    """A grid cell as (row, column): "(2, 5)"."""
    return f"({cell[0]}, {cell[1]})"
