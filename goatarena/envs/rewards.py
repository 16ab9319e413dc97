"""The reward of a finished game for learning tools: zero-sum, from the ranks alone."""

from __future__ import annotations

from goatarena.games.base import Result
from goatarena.strategy.base import rank_rewards


def zero_sum_rewards(result: Result) -> list[float]:
    """Per seat, the mean over the other seats of +1 for finishing ahead of it, -1 behind,
    0 tied: the rewards sum to 0, and at two players they are the win, loss or draw."""
    return [2 * share - 1 for share in rank_rewards(result.ranks)]
