"""The standings table's types: a bot's row, a seat's advantage, the whole standings."""

from __future__ import annotations

import msgspec

OVERALL = "overall"
RETIRED = "retired"
"""Why a ladder's retired version plays no more, in :attr:`Standings.out`."""


class Row(msgspec.Struct, frozen=True):
    """One bot's line in a standings table."""

    bot: str
    elo: float
    lo: float
    hi: float
    games: int
    wins: int
    avg_rank: float
    avg_score: float | None
    """The mean game score; None in the overall table of several games, whose scores
    are on different scales (hundreds in one game, a handful in another)."""
    violations: dict[str, int]
    latency_median_ms: float | None = None
    latency_max_ms: float | None = None
    disqualified: str | None = None
    swiss_points: float | None = None
    buchholz: float | None = None
    sonneborn_berger: float | None = None
    deal_lo: float | None = None
    """The low end of the deal-adjusted 95 % interval (each deal, all its seat rotations,
    one unit: :mod:`goatarena.ratings.clusters`); None when not asked for. ``lo`` and
    ``hi`` count every game as independent."""
    deal_hi: float | None = None
    """The high end of the deal-adjusted 95 % interval."""


class SeatTerm(msgspec.Struct, frozen=True):
    """A seat's fitted advantage over the average seat of its game and table size, Elo."""

    game: str
    players: int
    seat: int
    elo: float
    lo: float
    hi: float


class Standings(msgspec.Struct, frozen=True):
    """Standings of a tournament: overall and per game, best first.

    Per table (``overall`` and each game): ``seat_advantage`` lists the fitted seat
    terms; ``connected`` is False when some bots never met the others, directly or
    through common opponents, and ``groups`` then lists the separate groups (their
    ratings are not comparable); ``los`` (when asked for) maps bot a -> bot b -> the
    likelihood that a is stronger than b. ``no_games`` names entered bots without games.
    ``out`` names the bots that play no more, with why: ``retired`` (a ladder's retired
    version), the reason it was disqualified or suspended (``suspended: ...``), or both
    (``retired; suspended: ...``); with games or without.
    """

    tournament: str
    games: int
    standings: dict[str, list[Row]]
    seat_advantage: dict[str, list[SeatTerm]] = {}
    connected: dict[str, bool] = {}
    groups: dict[str, list[list[str]]] = {}
    no_games: list[str] = []
    out: dict[str, str] = {}
    los: dict[str, dict[str, dict[str, float]]] | None = None
