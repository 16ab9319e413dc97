"""Game knowledge for the bundled bots: samplers, evaluations, greedy choice and search.

:func:`find_strategy` gives a game's :class:`~goatarena.strategy.base.Strategy`;
:func:`~goatarena.strategy.base.greedy_choice` and :func:`~goatarena.strategy.mcts.search`
use it. Pure code: no I/O; randomness and the clock are passed in.
"""

from __future__ import annotations

from goatarena.errors import UnknownGameError
from goatarena.strategy import goat_lords, goat_n_goat, herr_der_ziegen, mountain_goats
from goatarena.strategy.base import Strategy, greedy_choice

STRATEGIES: dict[str, Strategy] = {
    strategy.game: strategy
    for strategy in (
        goat_lords.STRATEGY,
        goat_n_goat.STRATEGY,
        herr_der_ziegen.STRATEGY,
        mountain_goats.STRATEGY,
    )
}
"""The strategy of every game the bundled bots play, by game name."""


def find_strategy(game: str) -> Strategy:
    """The strategy for ``game``; an :class:`UnknownGameError` names the games covered."""
    try:
        return STRATEGIES[game]
    except KeyError:
        known = ", ".join(STRATEGIES)
        raise UnknownGameError(f"no strategy for {game!r} (covered: {known})") from None


__all__ = ["STRATEGIES", "Strategy", "find_strategy", "greedy_choice"]
