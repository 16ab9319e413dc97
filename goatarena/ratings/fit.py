"""Ratings from results: one maximum-likelihood fit over all games, shown on the Elo scale.

Bots do not change strength during a tournament, so standings are not accumulated game by
game (a running Elo depends on the order of the games) but fitted once, by maximum
likelihood, over every game at the same time, as BayesElo and Ordo do. Bot ``i`` has a
strength ``γ_i = exp(θ_i)`` and ``P(i finishes ahead of j) = γ_i / (γ_i + γ_j)``; the Elo
shown is ``1500 + 400·log10(γ_i)``, shifted so that the mean over the bots is 1500.

A game is a mapping from bot name to finishing rank (1 is best, equal ranks are a tie).
**Two-bot tables** are Bradley–Terry results, a tie being half a point each.
**Multiplayer tables** of 3–6 bots are fitted by the exact Plackett–Luce model (the
default): the finishing order is a sequence of choices, the winner drawn from the whole
table with chance ``γ_i / Σ γ``, the second from the rest, and so on; a tie is the mean
of the log-likelihoods of the orders it allows, which at two bots is the half point
(:mod:`goatarena.ratings._orders`). With ``exact=False``, and always for tables of more
than six, a finishing order of ``k`` bots counts as its ``k(k−1)/2`` pairwise results,
each weighing ``3/(k+1)`` so that the correlated pairs of one table are not counted as
independent games (the exact fit needs 5–10 % fewer games for the same precision at 4–6
seats, docs/ratings.md). A weak prior — ``prior_draws`` virtual draws of every bot
against a dummy of average strength — keeps a perfect or a zero score finite.
The 95 % intervals come from the inverse Hessian of the negative log-likelihood, centred
on the mean, so ``Var(Elo_i)`` and ``Cov(Elo_i, Elo_j)`` refer to the mean-centred ratings
that are shown. **Ties** make a pair's score less variable than its curvature says (a result
of mean ``p`` that is a tie with chance ``τ`` has variance ``p(1−p) − τ/4``), so where
results were tied the covariance is the sandwich ``H⁻¹ B H⁻¹`` with ``B`` from each
pair's observed share of ties, and for the exact model from the spread of each tied
finish's score over the orders it allows (:func:`goatarena.ratings._newton.spread`);
without ties it is ``H⁻¹`` itself. Deal-adjusted intervals, which count the rotations
of one deal as one unit, are :mod:`goatarena.ratings.clusters`. (A percentile bootstrap
over whole games was tried and dropped: it covered the truth only 87–92 % of the time
where these intervals cover 95 %.)

**Seats.** Given a seat key per game (the game's name), the fit also estimates, jointly
with the ratings, one offset per seat for each key and table size:
``P(i in seat s ahead of j in seat t) = σ(θ_i + α_s − θ_j − α_t)``, the offsets of one
key and size summing to zero (in the exact model a bot's strength at the table is
``θ_i + α_s``); :class:`SeatAdvantage` reports them in Elo (seat 0's
advantage over the average seat, and so on). **Groups**: bots that never met, directly
or through common opponents, fall into separate groups (:attr:`RatingFit.groups`); the
prior puts them on one scale, but their ratings say nothing about each other.

Everything here is pure: no I/O, the same answer for the same games in any
order (games are first reduced to integer counts, :class:`~goatarena.ratings.tally.PairTally`,
which do not depend on order; :func:`fit_tally` fits such a tally directly, so a reader
of a million games keeps only the counts). The numerics are in
:mod:`goatarena.ratings._newton` (NumPy and SciPy).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

from goatarena.ratings import _newton
from goatarena.ratings._orders import EXACT_SEATS
from goatarena.ratings._pairs import chosen_cells, chosen_patterns, problem_of, renumbered_cells
from goatarena.ratings._threads import one_blas_thread
from goatarena.ratings.graph import check_finite_cells, groups_of_cells
from goatarena.ratings.pair_stats import PairStats, pair_score, points_from_ranks
from goatarena.ratings.tally import NO_FAMILY, Cells, PairTally

__all__ = [
    "BASE_ELO",
    "ELO_PER_NATURAL_LOG",
    "Game",
    "PairStats",
    "Rating",
    "RatingFit",
    "SeatAdvantage",
    "fit",
    "fit_ratings",
    "fit_tally",
    "likelihood_of_superiority",
    "pair_score",
    "points_from_ranks",
    "tally_games",
]

Game = Mapping[str, int]
"""One game: bot name -> finishing rank (1 is best; equal ranks are a tie)."""

BASE_ELO = 1500.0
"""The mean of the fitted Elo ratings."""

ELO_PER_NATURAL_LOG = 400.0 / math.log(10.0)
"""Elo points per unit of ``θ = ln γ`` (about 173.7)."""

_Z95 = NormalDist().inv_cdf(0.975)
_NORMAL = NormalDist()
KEEP_COVARIANCE = 3_000
"""Fits of up to this many bots keep the whole covariance of the ratings; larger ones
compute it when it is first asked for (``cov``, ``los``): n² numbers."""


@dataclass(frozen=True)
class Rating:
    """One bot's fitted rating on the Elo scale, with its 95 % interval.

    ``elo`` is the point estimate, ``lo`` and ``hi`` the bounds of the 95 % interval,
    ``stderr`` the standard error of ``elo`` (Elo points) and ``games`` the number of
    games the bot played.
    """

    elo: float
    lo: float
    hi: float
    stderr: float
    games: int


@dataclass(frozen=True)
class SeatAdvantage:
    """The fitted advantage of one seat over the average seat, in Elo, with its interval.

    ``key`` names the game (the seat key), ``players`` the table size and ``seat`` the
    seat (0 moves first); the offsets of one key and table size sum to zero, so at two
    players seat 0's advantage over seat 1 is twice ``elo``.
    """

    key: str
    players: int
    seat: int
    elo: float
    lo: float
    hi: float
    stderr: float


@dataclass(frozen=True, eq=False)
class RatingFit:
    """The whole fit: every bot's :class:`Rating` plus the covariance of the ratings.

    ``names`` are sorted; ``covariance[i, j]`` is ``Cov(Elo_i, Elo_j)`` in Elo points
    squared for ``names[i]`` and ``names[j]`` (of the mean-centred ratings, so every row
    sums to zero), a NumPy array. ``iterations`` is the number of Newton steps the fit
    took. ``seat_advantage`` holds the fitted seat offsets (empty without seat keys);
    ``groups`` the sets of bots connected by games, largest first (one group when all are
    connected).
    """

    names: tuple[str, ...]
    ratings: dict[str, Rating]
    iterations: int
    seat_advantage: tuple[SeatAdvantage, ...] = ()
    groups: tuple[tuple[str, ...], ...] = ()
    _covariance: npt.NDArray[np.float64] | None = field(default=None, repr=False)
    _problem: _newton.Problem | None = field(default=None, repr=False)
    _theta: npt.NDArray[np.float64] | None = field(default=None, repr=False)
    _families: tuple[tuple[str, int], ...] = field(default=(), repr=False)

    @cached_property
    def covariance(self) -> npt.NDArray[np.float64]:
        """The covariance of the Elo ratings (computed now if the fit did not keep it)."""
        if self._covariance is not None:
            return self._covariance
        if self._problem is None or self._theta is None:
            return np.zeros((len(self.names), len(self.names)))
        spread = _newton.spread(self._theta, self._problem, whole_ratings_block=True)
        assert spread.ratings_block is not None
        return ELO_PER_NATURAL_LOG**2 * spread.ratings_block

    @cached_property
    def _indices(self) -> dict[str, int]:
        return {name: index for index, name in enumerate(self.names)}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RatingFit):
            return NotImplemented
        return (self.names, self.ratings, self.iterations, self.seat_advantage, self.groups) == (
            other.names,
            other.ratings,
            other.iterations,
            other.seat_advantage,
            other.groups,
        ) and np.array_equal(self.covariance, other.covariance)

    __hash__ = object.__hash__

    def cov(self, a: str, b: str) -> float:
        """The covariance of the Elo ratings of bots ``a`` and ``b`` (Elo points squared)."""
        return float(self.covariance[self._index(a), self._index(b)])

    def los(self, a: str, b: str) -> float:
        """Likelihood of superiority: the probability that ``a`` is stronger than ``b``.

        ``Φ(Δ / sqrt(Var_a + Var_b − 2·Cov_ab))`` with ``Δ = Elo_a − Elo_b``; 0.5 when the
        difference has no variance (``a`` is ``b``).
        """
        delta = self.ratings[a].elo - self.ratings[b].elo
        variance = self.cov(a, a) + self.cov(b, b) - 2.0 * self.cov(a, b)
        if variance <= 0.0:
            return 0.5 if delta == 0.0 else float(delta > 0.0)
        return _NORMAL.cdf(delta / math.sqrt(variance))

    def _index(self, name: str) -> int:
        try:
            return self._indices[name]
        except KeyError:
            raise KeyError(name) from None


# --- the fit ---------------------------------------------------------------------------


def fit_ratings(
    games: Sequence[Game] | PairTally, *, prior_draws: float = 1.0
) -> dict[str, Rating]:
    """Fit every bot's rating from all ``games`` (or a tally of them) at once; see
    :func:`fit`.

    Returns bot name -> :class:`Rating`, in sorted name order.
    """
    if isinstance(games, PairTally):
        return dict(fit_tally(games, prior_draws=prior_draws).ratings)
    return dict(fit(games, prior_draws=prior_draws).ratings)


def fit(
    games: Sequence[Game],
    *,
    prior_draws: float = 1.0,
    seat_keys: Sequence[str | None] | None = None,
    tie_aware: bool = True,
    exact: bool = True,
) -> RatingFit:
    """One maximum-likelihood fit over all ``games``, with covariance.

    Each game maps bot name -> finishing rank for the 2 or more bots at that table; a
    table of 3–6 is one Plackett–Luce finishing order (with ``exact``, the default), any
    other its ``k(k−1)/2`` pairwise results, each weighing ``3/(k+1)`` (1 for two bots),
    the weight that keeps the Hessian intervals honest for multiplayer tables (see
    ``_pair_weight``).
    ``prior_draws`` virtual draws of every bot (and every seat offset) against a dummy of
    rating 0 (in ``ln γ`` units, the pool average) keep perfect and zero scores finite;
    with 0 the fit is the plain maximum-likelihood estimate, which exists only if the
    games connect all bots and no group of bots scored every point against the rest —
    otherwise :class:`ValueError` says which. ``seat_keys[g]``, when given, names the
    seat-advantage terms game ``g`` contributes to (None: none); the game's bots are
    then taken in seat order, as the mapping lists them. ``tie_aware`` (the default)
    narrows the intervals where results were tied (see "Ties" above); without it they
    are the curvature's alone, as if no result had been tied. ``exact`` (the default)
    fits the tables of 3–6 bots by the exact Plackett–Luce model (see "Multiplayer
    tables" above); without it they are fitted pairwise too.
    Raises :class:`ValueError` for a game with fewer than two bots or a non-integer rank.
    """
    _check_prior(prior_draws)
    if seat_keys is not None and len(seat_keys) != len(games):
        raise ValueError(f"{len(seat_keys)} seat keys for {len(games)} games")
    return fit_tally(
        tally_games(games, seat_keys), prior_draws=prior_draws, tie_aware=tie_aware, exact=exact
    )


def tally_games(games: Sequence[Game], seat_keys: Sequence[str | None] | None = None) -> PairTally:
    """The :class:`PairTally` of ``games`` (with the seat key of each, if given)."""
    tally = PairTally()
    for index, game in enumerate(games):
        key = None if seat_keys is None else seat_keys[index]
        tally.add(list(game), list(game.values()), key)
    return tally


def fit_tally(
    tally: PairTally,
    *,
    prior_draws: float = 1.0,
    seat_key: str | None = None,
    intervals: bool = True,
    tie_aware: bool = True,
    exact: bool = True,
    start: RatingFit | None = None,
) -> RatingFit:
    """The fit of :func:`fit` over the games of a tally (only those of ``seat_key``, when
    given; ``tie_aware`` and ``exact`` as there). Without ``intervals`` only the point estimates are
    computed (every interval is the point itself): what a Swiss round's pairing needs.
    ``start``, an earlier fit of the same bots and seat terms (of fewer of the games: a
    rating history's previous point), is where Newton's steps start: close to the
    optimum, they are fewer (another fit's start is ignored)."""
    _check_prior(prior_draws)
    if exact and not tally.keeps_patterns:
        raise ValueError("the exact fit needs a tally that keeps the patterns of its games")
    cells, played = chosen_cells(tally, seat_key)
    names = tuple(sorted(name for name, count in played.items() if count))
    if not names:
        return RatingFit(names=(), ratings={}, iterations=0)
    renumbered = renumbered_cells(cells, tally.names, names)
    del cells  # a field's worth of cells: the renumbered copy is all that is needed now
    groups = groups_of_cells(names, renumbered.i, renumbered.j)
    if not prior_draws:
        check_finite_cells(names, renumbered, groups)
    families = sorted({tally.families[f] for f in np.unique(renumbered.family) if f != NO_FAMILY})
    with one_blas_thread():
        theta = _start_of(start, names, families)
        patterns, position = None, None
        if theta is None and exact and np.isin(renumbered.k, list(EXACT_SEATS)).any():
            # before the exact problem is built: the two problems are never held at once
            theta = _warm_start(renumbered, tally.families, families, len(names), prior_draws)
        if exact:
            patterns = chosen_patterns(tally, seat_key)
            order = {name: index for index, name in enumerate(names)}
            position = np.array([order.get(name, -1) for name in tally.names], dtype=np.int64)
        problem = problem_of(
            renumbered, tally.families, families, len(names), prior_draws, patterns, position
        )
        del renumbered, patterns
        if not tie_aware:
            problem = dataclasses.replace(
                problem, pairs=dataclasses.replace(problem.pairs, ties=None), order_ties=False
            )
        theta, iterations = _newton.maximise(problem, theta)
    if iterations is None:
        raise ValueError(
            "the ratings diverge: some seat or group of bots won or lost every point; "
            "fit with prior_draws > 0"
        )
    with one_blas_thread():
        return _result(names, theta, iterations, problem, played, families, groups, intervals)


def _start_of(
    start: RatingFit | None, names: tuple[str, ...], families: Sequence[tuple[str, int]]
) -> npt.NDArray[np.float64] | None:
    """The parameters of ``start`` if it fitted the same bots and seat terms, else None."""
    if start is None or start._theta is None:
        return None
    if start.names != names or start._families != tuple(families):
        return None
    return start._theta


def _warm_start(
    cells: Cells,
    seen_families: Sequence[tuple[str, int]],
    families: Sequence[tuple[str, int]],
    bots: int,
    prior_draws: float,
) -> npt.NDArray[np.float64] | None:
    """Where the exact fit's Newton steps start: the pairwise fit of the same games,
    whose optimum is close to the exact one, so that the steps over the patterns (each
    a pass over all of them) are few. None (start from zero) when it diverges."""
    pairwise = problem_of(cells, seen_families, families, bots, prior_draws)
    theta, iterations = _newton.maximise(pairwise)
    return theta if iterations is not None else None


def likelihood_of_superiority(result: RatingFit, a: str, b: str) -> float:
    """The probability that bot ``a`` is stronger than bot ``b``: ``result.los(a, b)``."""
    return result.los(a, b)


def _check_prior(prior_draws: float) -> None:
    if prior_draws < 0.0 or not math.isfinite(prior_draws):
        raise ValueError(f"prior_draws must be a finite number >= 0, not {prior_draws!r}")


# --- internals: the result -------------------------------------------------------------


def _result(
    names: tuple[str, ...],
    theta: npt.NDArray[np.float64],
    iterations: int,
    problem: _newton.Problem,
    played: Mapping[str, int],
    families: Sequence[tuple[str, int]],
    groups: tuple[tuple[str, ...], ...],
    intervals: bool,
) -> RatingFit:
    size = len(names)
    keep = intervals and size <= KEEP_COVARIANCE
    if intervals:
        spread = _newton.spread(theta, problem, whole_ratings_block=keep)
        variances = [ELO_PER_NATURAL_LOG**2 * block for block in spread.diagonals]
    else:
        variances = [np.zeros(length) for _, length in problem.blocks]
    elos = _to_elo(theta[:size])
    ratings = {}
    for index, name in enumerate(names):
        elo = float(elos[index])
        stderr = math.sqrt(max(float(variances[0][index]), 0.0))
        ratings[name] = Rating(elo, elo - _Z95 * stderr, elo + _Z95 * stderr, stderr, played[name])
    seats = []
    for (start, length), (key, players), variance in zip(
        problem.blocks[1:], families, variances[1:], strict=True
    ):
        offsets = theta[start : start + length]
        mean = float(np.sum(offsets)) / length
        for seat in range(length):
            elo = ELO_PER_NATURAL_LOG * (float(offsets[seat]) - mean)
            stderr = math.sqrt(max(float(variance[seat]), 0.0))
            seats.append(
                SeatAdvantage(key, players, seat, elo, elo - _Z95 * stderr, elo + _Z95 * stderr,
                              stderr)
            )  # fmt: skip
    covariance = None
    if keep and spread.ratings_block is not None:
        covariance = ELO_PER_NATURAL_LOG**2 * spread.ratings_block
    return RatingFit(
        names=names,
        ratings=ratings,
        iterations=iterations,
        seat_advantage=tuple(seats),
        groups=groups,
        _covariance=covariance,
        _problem=problem if intervals else None,
        _theta=theta,
        _families=tuple(families),
    )


def _to_elo(theta: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    return BASE_ELO + ELO_PER_NATURAL_LOG * (theta - float(np.sum(theta)) / len(theta))
