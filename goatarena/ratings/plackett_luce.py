"""The exact Plackett–Luce fit: a table's whole finishing order as one observation.

The pairwise fit (:mod:`goatarena.ratings.fit`) counts a finishing order of ``k`` bots as
its ``k(k−1)/2`` pairwise results, weighted ``3/(k+1)``. The Plackett–Luce model instead
takes the order as a sequence of choices: the winner is drawn from the table with chance
``γ_i / Σ γ``, the second from the rest, and so on. Its likelihood is exact for
multiplayer tables; for two bots it is the Bradley–Terry model, so 2-seat results are the
pairwise fit's. The bots' strengths ``θ`` and the seat offsets ``α`` (one per seat of
each seat key and table size, summing to zero) enter as ``u = θ_bot + α_seat``; the
prior is the pairwise fit's (``prior_draws`` virtual draws against a dummy of rating 0).
**Ties** use Breslow's rule: every bot of a tied group is drawn from the same remaining
set (the bots at or below the group's rank).

**Streaming.** Games are reduced to patterns — (bots in seat order, seat key, ranks) —
each counted once with its multiplicity, so memory grows with the distinct patterns (at
most the tables × orders that occur, never more than the games). A Newton step costs
``O(patterns · k²)`` for the gradient and the Hessian's entries, plus the dense solve
(``n³/3`` for n parameters); the fit takes 5–10 steps.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.linalg import lapack
from scipy.special import expit, log_expit, logsumexp

from goatarena.ratings import _newton
from goatarena.ratings.fit import (
    _Z95,
    BASE_ELO,
    ELO_PER_NATURAL_LOG,
    Rating,
    RatingFit,
    SeatAdvantage,
)
from goatarena.ratings.graph import groups_of_cells

__all__ = ["PatternTally", "fit_plackett_luce"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


class PatternTally:
    """Games counted as distinct (bots in seat order, seat key, ranks) patterns."""

    def __init__(self) -> None:
        self.patterns: Counter[tuple[tuple[str, ...], str | None, tuple[int, ...]]] = Counter()
        self.played: Counter[str] = Counter()

    def add(self, players: Sequence[str], ranks: Sequence[int], seat_key: str | None) -> None:
        """Count one game: its bots in seat order, their ranks (1 best), its seat key."""
        if len(players) < 2 or len(set(players)) != len(players) or len(ranks) != len(players):
            raise ValueError(f"not a game: {list(players)!r} ranked {list(ranks)!r}")
        self.patterns[tuple(players), seat_key, tuple(int(rank) for rank in ranks)] += 1
        self.played.update(players)


@dataclass(frozen=True)
class _Block:
    """The patterns of one table size as arrays: parameter of each entry's bot and seat
    (-1: none), ranks and multiplicity."""

    bot: IntArray
    seat: IntArray
    rank: IntArray
    count: FloatArray


def fit_plackett_luce(
    games: Sequence[Mapping[str, int]] | PatternTally,
    *,
    prior_draws: float = 1.0,
    seat_keys: Sequence[str | None] | None = None,
) -> RatingFit:
    """The maximum-likelihood Plackett–Luce fit of ``games`` (bot -> rank in seat order,
    as for :func:`goatarena.ratings.fit.fit`), with the inverse-Hessian intervals."""
    tally = games if isinstance(games, PatternTally) else _tally(games, seat_keys)
    names = tuple(sorted(tally.played))
    if not names:
        return RatingFit(names=(), ratings={}, iterations=0)
    index = {name: number for number, name in enumerate(names)}
    families = sorted({(key, len(players)) for players, key, _ in tally.patterns if key})
    starts, blocks, size = {}, [(0, len(names))], len(names)
    for family in families:
        starts[family] = size
        blocks.append((size, family[1]))
        size += family[1]
    data = _blocks(tally, index, starts)
    theta, iterations = _maximise(data, size, prior_draws, blocks)
    covariance = _covariance(theta, data, size, prior_draws, blocks)
    pairs = [(index[a], index[b]) for players, _, _ in tally.patterns for a in players
             for b in players if a < b]  # fmt: skip
    first = np.array([p[0] for p in pairs], dtype=np.int64)
    second = np.array([p[1] for p in pairs], dtype=np.int64)
    groups = groups_of_cells(names, np.minimum(first, second), np.maximum(first, second))
    return _result(names, theta, iterations, covariance, blocks, families, tally, groups)


def _tally(games: Sequence[Mapping[str, int]], keys: Sequence[str | None] | None) -> PatternTally:
    if keys is not None and len(keys) != len(games):
        raise ValueError(f"{len(keys)} seat keys for {len(games)} games")
    tally = PatternTally()
    for number, game in enumerate(games):
        tally.add(list(game), list(game.values()), None if keys is None else keys[number])
    return tally


def _blocks(
    tally: PatternTally, index: Mapping[str, int], starts: Mapping[tuple[str, int], int]
) -> list[_Block]:
    by_size: dict[int, list[tuple[list[int], list[int], tuple[int, ...], int]]] = {}
    for (players, key, ranks), count in sorted(
        tally.patterns.items(), key=lambda item: (item[0][0], item[0][1] or "", item[0][2])
    ):
        k = len(players)
        start = starts.get((key, k)) if key else None
        seats = [-1] * k if start is None else [start + seat for seat in range(k)]
        by_size.setdefault(k, []).append(([index[p] for p in players], seats, ranks, count))
    return [
        _Block(
            bot=np.array([row[0] for row in rows], dtype=np.int64),
            seat=np.array([row[1] for row in rows], dtype=np.int64),
            rank=np.array([row[2] for row in rows], dtype=np.int64),
            count=np.array([row[3] for row in rows], dtype=np.float64),
        )
        for _, rows in sorted(by_size.items())
    ]


def _utilities(x: FloatArray, block: _Block) -> FloatArray:
    u = x[block.bot]
    seated = block.seat >= 0
    u[seated] += x[block.seat[seated]]
    return u


def _risk(block: _Block) -> npt.NDArray[np.bool_]:
    """``risk[p, e, f]``: entry f is still to be placed when entry e is drawn."""
    return block.rank[:, None, :] >= block.rank[:, :, None]


def _objective(x: FloatArray, data: Sequence[_Block], prior: float) -> float:
    total = 0.0
    for block in data:
        u = _utilities(x, block)
        masked = np.where(_risk(block), u[:, None, :], -np.inf)
        per = u.sum(axis=1) - logsumexp(masked, axis=2).sum(axis=1)
        total -= float(block.count @ per)
    if prior:
        total -= 0.5 * prior * float(np.sum(log_expit(x) + log_expit(-x)))
    return total


def _derivatives(
    x: FloatArray,
    data: Sequence[_Block],
    size: int,
    prior: float,
    blocks: Sequence[tuple[int, int]],
) -> tuple[FloatArray, FloatArray]:
    """The objective's gradient and Hessian (dense; the block means fixed without prior)."""
    grad = np.zeros(size)
    hess = np.zeros((size, size))
    for block in data:
        u = _utilities(x, block)
        risk = _risk(block)
        masked = np.where(risk, u[:, None, :], -np.inf)
        chance = np.exp(masked - logsumexp(masked, axis=2)[:, :, None])  # (P, e, f)
        k = u.shape[1]
        grad_u = block.count[:, None] * (chance.sum(axis=1) - 1.0)  # minus log-likelihood
        total = chance.sum(axis=1)
        hess_u = np.einsum("pef,peg->pfg", chance, chance)
        hess_u = block.count[:, None, None] * (np.einsum("pf,fg->pfg", total, np.eye(k)) - hess_u)
        ends = [block.bot]
        if np.any(block.seat >= 0):
            ends.append(block.seat)
        for end in ends:
            valid = end >= 0
            np.add.at(grad, end[valid], grad_u[valid])
        for rows in ends:
            for cols in ends:
                valid = (rows >= 0)[:, :, None] & (cols >= 0)[:, None, :]
                r = np.broadcast_to(rows[:, :, None], hess_u.shape)[valid]
                c = np.broadcast_to(cols[:, None, :], hess_u.shape)[valid]
                np.add.at(hess, (r, c), hess_u[valid])
    if prior:
        grad += prior * (expit(x) - 0.5)
        p = expit(x)
        hess[np.diag_indices(size)] += prior * p * (1.0 - p)
    else:
        for start, length in blocks:
            hess[start : start + length, start : start + length] += 1.0 / length
    return grad, hess


def _maximise(
    data: Sequence[_Block], size: int, prior: float, blocks: Sequence[tuple[int, int]]
) -> tuple[FloatArray, int]:
    """Newton's method with a backtracking line search, as the pairwise fit's."""
    x = np.zeros(size)
    value = _objective(x, data, prior)
    for iteration in range(1, _newton.MAX_ITERATIONS + 1):
        grad, hess = _derivatives(x, data, size, prior, blocks)
        factor = _newton._cholesky(hess)
        step, _ = lapack.dpotrs(factor, -grad, lower=0)
        slope = float(grad @ step)
        t = 1.0
        noise = 1e-12 * abs(value)
        while True:
            trial = x + t * step
            trial_value = _objective(trial, data, prior)
            if trial_value <= value + 1e-4 * t * slope + noise or t < 1e-10:
                break
            t /= 2.0
        x, value = trial, trial_value
        if float(np.max(np.abs(t * step))) < _newton.STEP_TOLERANCE:
            return x, iteration
    raise ValueError(
        "the ratings diverge: some seat or group of bots won or lost every game; "
        "fit with prior_draws > 0"
    )


def _covariance(
    x: FloatArray,
    data: Sequence[_Block],
    size: int,
    prior: float,
    blocks: Sequence[tuple[int, int]],
) -> _newton.Spread:
    _, hess = _derivatives(x, data, size, prior, blocks)
    upper = np.triu(_newton._inverse(_newton._cholesky(hess)))
    sigma = upper + np.triu(upper, 1).T
    problem = _newton.Problem(size=size, pairs=_no_pairs(), prior=prior, blocks=blocks)
    return _newton.centred(sigma, problem, whole_ratings_block=True)


def _no_pairs() -> _newton.Pairs:
    empty_int = np.zeros(0, dtype=np.int64)
    empty = np.zeros(0)
    return _newton.Pairs(empty_int, empty_int, empty_int, empty_int, empty, empty)


def _result(
    names: tuple[str, ...],
    x: FloatArray,
    iterations: int,
    spread: _newton.Spread,
    blocks: Sequence[tuple[int, int]],
    families: Sequence[tuple[str, int]],
    tally: PatternTally,
    groups: tuple[tuple[str, ...], ...],
) -> RatingFit:
    size = len(names)
    theta = x[:size]
    elos = BASE_ELO + ELO_PER_NATURAL_LOG * (theta - float(np.mean(theta)))
    ratings = {}
    for number, name in enumerate(names):
        elo = float(elos[number])
        stderr = ELO_PER_NATURAL_LOG * math.sqrt(max(float(spread.diagonals[0][number]), 0.0))
        ratings[name] = Rating(
            elo, elo - _Z95 * stderr, elo + _Z95 * stderr, stderr, tally.played[name]
        )
    seats = []
    for (start, length), (key, players), variance in zip(
        blocks[1:], families, spread.diagonals[1:], strict=True
    ):
        offsets = x[start : start + length]
        for seat in range(length):
            elo = ELO_PER_NATURAL_LOG * (float(offsets[seat]) - float(np.mean(offsets)))
            stderr = ELO_PER_NATURAL_LOG * math.sqrt(max(float(variance[seat]), 0.0))
            seats.append(
                SeatAdvantage(
                    key, players, seat, elo, elo - _Z95 * stderr, elo + _Z95 * stderr, stderr
                )
            )
    assert spread.ratings_block is not None
    return RatingFit(
        names=names,
        ratings=ratings,
        iterations=iterations,
        seat_advantage=tuple(seats),
        groups=groups,
        _covariance=ELO_PER_NATURAL_LOG**2 * spread.ratings_block,
        _theta=x,
    )
