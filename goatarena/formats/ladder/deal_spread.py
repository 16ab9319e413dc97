"""How much a ladder's deals say per game: the quick estimate's deal adjustment.

A ladder plays every table as one deal in all its seat rotations, so the games of a deal
share its luck. :class:`~goatarena.formats.ladder.estimate.QuickRatings` counts every
game as independent; its standard error is ``1/sqrt(I)``, ``I`` a bot's information. The
deal-adjusted one is the sandwich over deals of the bot's own score, ``sqrt(B)/I``, with
``B = Σ_d u_d²`` and ``u_d`` the deal's score for the bot (the sum over the deal's games
and the bot's pairs of ``w·(y − p)``). Where the games are independent ``B`` is about
``I`` and the two agree; where a deal's luck cancels over its rotations ``B`` is smaller.

The ratings move as the games come in, so each game is scored as it comes, at the
estimates before it is counted (residuals at estimates that already count a game are
shrunk by its pull on them: measured, that made the adjustment 5–9 % too narrow without
any luck), and the adjustment is kept as a ratio: the *design effect*
``(B + c) / (M + c)``, ``M`` the sum of the same deals' information at those estimates
and ``c`` (:data:`SHRINK`) a pseudo-count that pulls a bot with few deals towards 1. The
deal-adjusted standard error is the quick one times the ratio's square root. At three or
more seats the ratio also corrects the pairwise counting of a table, whose information
overstates a strong bot's spread a little (measured without any luck: 0.95 at four seats,
0.92 at six, over eight bots −210 … +210 Elo), as the full fit's sandwich does. Memory: two
numbers per bot and two per bot of every deal still being played.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from goatarena.formats.ladder.estimate import QuickRatings, pair_weight
from goatarena.ratings.fit import ELO_PER_NATURAL_LOG

SHRINK = 1.0
"""Pseudo-information added to both sides of the design effect (about two deals of two
even bots): a bot's first deals move its ratio only partly."""


class DealSpread:
    """The design effect of each bot's deals (see the module docstring)."""

    def __init__(self) -> None:
        self._open: dict[str, _OpenDeal] = {}
        self._spread: dict[str, float] = {}
        self._information: dict[str, float] = {}
        self.deals: dict[str, int] = {}
        """Complete deals each bot played."""

    def add(self, deal: str, ranks: Mapping[str, int], ratings: QuickRatings) -> None:
        """Count one game (bot -> rank) of the deal named ``deal``, scored at ``ratings``
        *before* they count it (so its residuals are not shrunk by its own pull on the
        estimates); the deal is folded in once it has a game per seat."""
        open_deal = self._open.setdefault(deal, _OpenDeal())
        open_deal.add(ranks, ratings)
        if open_deal.games >= len(ranks):
            del self._open[deal]
            for name, value in open_deal.score.items():
                self._spread[name] = self._spread.get(name, 0.0) + value * value
                information = self._information.get(name, 0.0)
                self._information[name] = information + open_deal.information[name]
                self.deals[name] = self.deals.get(name, 0) + 1

    def design_effect(self, name: str) -> float | None:
        """``(B + c)/(M + c)`` of the bot's complete deals; None before the first."""
        if not self.deals.get(name):
            return None
        return (self._spread[name] + SHRINK) / (self._information[name] + SHRINK)

    def stderr(self, name: str, ratings: QuickRatings) -> float | None:
        """The deal-adjusted standard error of the bot's quick estimate (Elo points);
        None before its first complete deal."""
        effect = self.design_effect(name)
        return None if effect is None else ratings.stderr(name) * math.sqrt(effect)


class _OpenDeal:
    """A deal still being played: its games so far, per bot its score and information."""

    def __init__(self) -> None:
        self.games = 0
        self.score: dict[str, float] = {}
        self.information: dict[str, float] = {}

    def add(self, ranks: Mapping[str, int], ratings: QuickRatings) -> None:
        self.games += 1
        names = list(ranks)
        weight = pair_weight(len(names))
        for index, a in enumerate(names):
            for b in names[index + 1 :]:
                y = 1.0 if ranks[a] < ranks[b] else 0.5 if ranks[a] == ranks[b] else 0.0
                difference = (_elo(ratings, a) - _elo(ratings, b)) / ELO_PER_NATURAL_LOG
                p = 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, difference))))
                residual = weight * (y - p)
                self.score[a] = self.score.get(a, 0.0) + residual
                self.score[b] = self.score.get(b, 0.0) - residual
                for name in (a, b):
                    self.information[name] = self.information.get(name, 0.0) + weight * p * (1 - p)


def _elo(ratings: QuickRatings, name: str) -> float:
    """The bot's estimate; 0 (the prior's) before its first game is counted."""
    return ratings.elo(name) if name in ratings.games else 0.0
