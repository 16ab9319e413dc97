"""Fitted ratings without their intervals, fast enough to refit before every Swiss round.

A Swiss round needs only the point estimates of :func:`goatarena.ratings.fit.fit`, not
its intervals (which need the diagonal of the inverse Hessian). :func:`fitted_elo`
maximises the same objective with the same Newton steps and stops there: same optimum,
same tolerance, no inverse.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from goatarena.ratings.fit import Game, fit_tally, tally_games
from goatarena.ratings.tally import PairTally


def fitted_elo(games: Sequence[Game], *, prior_draws: float = 1.0) -> dict[str, float]:
    """Every bot's fitted Elo, the point estimates of :func:`goatarena.ratings.fit.fit`.

    ``prior_draws`` must be positive here, so that the ratings always exist. Returns bot
    name -> Elo (mean 1500), in sorted name order; empty for no games.
    """
    return fitted_elo_of_tally(tally_games(games), prior_draws=prior_draws)


def fitted_elo_of_tally(tally: PairTally, *, prior_draws: float = 1.0) -> dict[str, float]:
    """:func:`fitted_elo` of the games counted in ``tally``."""
    if not prior_draws > 0.0 or not math.isfinite(prior_draws):
        raise ValueError(f"prior_draws must be a finite number > 0, not {prior_draws!r}")
    result = fit_tally(tally, prior_draws=prior_draws, intervals=False)
    return {name: rating.elo for name, rating in result.ratings.items()}
