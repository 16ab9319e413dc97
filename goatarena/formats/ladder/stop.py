"""When a ladder stops by itself: games per bot, time, or the top separated.

Without a stop rule a ladder runs until it is interrupted. With one, it stops when every
active bot has ``stop_games`` games (bots still being validated count as not there yet),
after ``stop_minutes`` of the run, or when each of the top ``stop_separated`` bots of
every game is ahead of the next at 95 % (by the matchmaker's quick estimates:
``Φ(Δ / sqrt(σ_a² + σ_b²)) ≥ 0.95``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from goatarena.formats.config import LadderSettings
from goatarena.formats.ladder.state import Matchmaker

LOS_SEPARATED = 0.95
"""How sure the order of two neighbours must be for the stop rule "top k separated"."""


def stop_reason(
    settings: LadderSettings,
    matchmakers: Sequence[Matchmaker],
    *,
    elapsed_s: float,
    validating: bool,
) -> str | None:
    """Why the ladder stops now, in words, or None while it goes on."""
    if settings.stop_minutes and elapsed_s >= settings.stop_minutes * 60:
        return f"{settings.stop_minutes:g} minutes have passed"
    if settings.stop_games and not validating and everyone_has(matchmakers, settings.stop_games):
        return f"every active bot has {settings.stop_games} games"
    k = settings.stop_separated
    if k and all(top_separated(matchmaker, k) for matchmaker in matchmakers):
        return f"the top {k} are separated at 95 %"
    return None


def everyone_has(matchmakers: Sequence[Matchmaker], games: int) -> bool:
    """Whether every active bot of every game has ``games`` games (and some bot is active)."""
    active = [m for m in matchmakers if m.active]
    return bool(active) and all(m.ratings.games[name] >= games for m in active for name in m.active)


def top_separated(matchmaker: Matchmaker, k: int) -> bool:
    """Whether each of the top ``k`` is ahead of the next at 95 % (quick estimates)."""
    ranked = sorted(matchmaker.active, key=lambda name: -matchmaker.ratings.elo(name))
    if len(ranked) <= k:
        return False
    ratings = matchmaker.ratings
    for upper, lower in zip(ranked[:k], ranked[1 : k + 1], strict=True):
        spread = math.hypot(ratings.stderr(upper), ratings.stderr(lower))
        gap = ratings.elo(upper) - ratings.elo(lower)
        if not math.isfinite(spread) or gap <= 0 or _phi(gap / spread) < LOS_SEPARATED:
            return False
    return True


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))
