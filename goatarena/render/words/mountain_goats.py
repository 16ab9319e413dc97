"""Mountain Goats moves in words: which goats climb, with the dice grouped for each.

``{"move": [7, 10], "groups": [[2, 5], [5, 5]]}`` reads "moves goats 7 and 10 (2+5,
5+5)"; a summit reached or held is said with the tokens it takes.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from goatarena.games.base import Action
from goatarena.render.words.common import count_word, join_words

TIMES = {1: "", 2: " twice", 3: " three times", 4: " four times"}
"""How often one goat moves, as words after its number."""


def describe(view: dict[str, Any], actor: int, action: Action) -> str:
    """The move of ``actor`` in words, from the table ``view`` before it."""
    moves: list[int] = list(action["move"])
    groups: list[list[int]] = [list(group) for group in action["groups"]]
    dice = _dice_words(moves, groups)
    if not moves:
        return f"moves no goat ({dice})"
    counts = Counter(moves)
    goats = [f"{mountain}{TIMES[counts[mountain]]}" for mountain in sorted(counts)]
    noun = "goat" if len(counts) == 1 else "goats"
    words = f"moves {noun} {join_words(goats)} ({dice})"
    tokens = _tokens_taken(view, actor, moves)
    if tokens:
        taken = [f"{count_word(n)} {m}-point token{'s' if n > 1 else ''}" for m, n in tokens]
        words += f", takes {join_words(taken)}"
    return words


def _dice_words(moves: list[int], groups: list[list[int]]) -> str:
    """The groups that climb, in the order of the mountains moved, then the unused dice."""
    remaining = list(groups)
    climbing = []
    for mountain in moves:
        group = next((g for g in remaining if sum(g) == mountain), None)
        if group is not None:
            remaining.remove(group)
            climbing.append("+".join(map(str, group)))
    unused = sorted(die for group in remaining for die in group)
    parts = list(climbing)
    if unused:
        parts.append(("unused " if climbing else "") + " ".join(map(str, unused)))
    return ", ".join(parts)


def _tokens_taken(view: dict[str, Any], actor: int, moves: list[int]) -> list[tuple[int, int]]:
    """(mountain, tokens) the move takes: a goat stepping onto or standing on a summit
    takes a token while the mountain has any left."""
    mountains: list[int] = view["mountains"]
    steps = list(view["steps"][actor])
    supply = list(view["supply"])
    taken: Counter[int] = Counter()
    for mountain in moves:
        index = mountains.index(mountain)
        height = view["heights"][index]
        if steps[index] < height:
            steps[index] += 1
        if steps[index] >= height and supply[index] > 0:
            supply[index] -= 1
            taken[mountain] += 1
    return sorted(taken.items())
