"""The numerics of the rating fit: the objective, Newton's method and the intervals.

The parameters are the bots' ``θ`` followed by the seat offsets; the data are pairs
(``i``, ``j``, seat parameter ``a``, ``b`` or -1, total weight ``n``, weighted score
``s`` of i). Everything is vectorised over the pairs with NumPy; the sigmoid and its
logarithm are ``scipy.special.expit``/``log_expit``.

Two ways to solve a Newton system, chosen by size:

- up to :data:`DENSE_LIMIT` parameters, the dense Hessian and LAPACK's Cholesky factor
  (a 1,000-bot system takes milliseconds);
- beyond, the sparse Hessian (a bot meets only its opponents) and conjugate gradients
  preconditioned by its diagonal: a step costs a few passes over the pairs.

The intervals need the diagonal of the inverse Hessian (and, for the centring, its row
means, which are one solve per block): LAPACK's ``potrf`` and ``potri`` on the dense
Hessian, ``n³/3`` flops each, in place — about 8 bytes × n² of memory (800 MB for
10,000 bots), the one step that is not linear in the pairs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import numpy.typing as npt
import scipy.sparse
import scipy.sparse.linalg
from scipy.linalg import lapack
from scipy.special import expit, log_expit

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
Int32Array = npt.NDArray[np.int32]

DENSE_LIMIT = 3_000
"""Up to this many parameters, Newton steps are solved with the dense Cholesky factor."""
MAX_ITERATIONS = 200
STEP_TOLERANCE = 1e-10
SANDWICH_COLUMNS = 512
"""Columns of ``T Σ`` made at a time for the tie-aware intervals (memory 8 bytes × n × this)."""
CG_TOLERANCE = 1e-12
"""Conjugate gradients stop when the residual's norm falls below this share of the
gradient's (the Newton step is then exact to far below the step tolerance)."""
UNDETERMINED = (
    "the games do not determine the ratings (a seat or a bot's rating cannot "
    "be told apart from the others'); fit with prior_draws > 0"
)


@dataclass(frozen=True)
class Pairs:
    """The data of a fit, one entry per (bot pair, seat pair); see the module docstring."""

    i: IntArray
    j: IntArray
    a: IntArray
    b: IntArray
    n: FloatArray
    s: FloatArray
    ties: FloatArray | None = None
    """The weight of the tied results among ``n`` (None: no ties)."""

    @cached_property
    def seated(self) -> npt.NDArray[np.bool_]:
        """Which pairs have seat terms."""
        return self.a >= 0

    @cached_property
    def layout(self) -> tuple[Int32Array, Int32Array, Int32Array, npt.NDArray[np.int8]]:
        """Where each pair's curvature goes in the Hessian: (row, column, pair, sign) per
        entry. A pair adds ``h·v vᵀ`` with ``v = e_i − e_j (+ e_a − e_b)``; the same at
        every Newton step, so made once."""
        seated = self.seated
        rows, cols, pair, sign = [], [], [], []
        numbers = np.arange(len(self.i), dtype=np.int32)
        for mask, ends in (
            (~seated, ((self.i, 1), (self.j, -1))),
            (seated, ((self.i, 1), (self.j, -1), (self.a, 1), (self.b, -1))),
        ):
            for r, sign_r in ends:
                for c, sign_c in ends:
                    rows.append(r[mask].astype(np.int32))
                    cols.append(c[mask].astype(np.int32))
                    pair.append(numbers[mask])
                    sign.append(np.full(int(np.count_nonzero(mask)), sign_r * sign_c, np.int8))
        # 32-bit numbers and 8-bit signs: the layout of a 10,000-bot field has 12 million
        # entries, which it would otherwise take half a gigabyte to hold.
        return (
            np.concatenate(rows),
            np.concatenate(cols),
            np.concatenate(pair),
            np.concatenate(sign),
        )


@dataclass(frozen=True)
class Problem:
    """What is maximised: ``size`` parameters, the pairs, the prior and the blocks (the
    ratings; the seat offsets of one key and table size) whose mean the likelihood does
    not see."""

    size: int
    pairs: Pairs
    prior: float
    blocks: Sequence[tuple[int, int]]


def sums(index: npt.NDArray[np.integer], weights: FloatArray, size: int) -> FloatArray:
    """``out[r] = Σ weights[index == r]`` for r < size (``np.bincount``, typed)."""
    return np.asarray(np.bincount(index, weights, size), dtype=np.float64)


def difference(x: FloatArray, pairs: Pairs) -> FloatArray:
    """``θ_i − θ_j`` plus the seat offsets ``α_a − α_b`` where the pair has them."""
    d = x[pairs.i] - x[pairs.j]
    seated = pairs.seated
    d[seated] += x[pairs.a[seated]] - x[pairs.b[seated]]
    return d


def objective(x: FloatArray, problem: Problem) -> float:
    """The negative log-likelihood plus the negative log prior."""
    pairs = problem.pairs
    d = difference(x, pairs)
    total = -float(np.sum(pairs.s * log_expit(d) + (pairs.n - pairs.s) * log_expit(-d)))
    if problem.prior:
        total -= 0.5 * problem.prior * float(np.sum(log_expit(x) + log_expit(-x)))
    return total


def gradient(x: FloatArray, problem: Problem) -> tuple[FloatArray, FloatArray]:
    """The objective's gradient at ``x`` and each pair's curvature ``n·p(1−p)``."""
    pairs, size = problem.pairs, problem.size
    p = expit(difference(x, pairs))
    g = pairs.n * p - pairs.s
    grad = sums(pairs.i, g, size) - sums(pairs.j, g, size)
    seated = pairs.seated
    grad += sums(pairs.a[seated], g[seated], size)
    grad -= sums(pairs.b[seated], g[seated], size)
    if problem.prior:
        grad += problem.prior * (expit(x) - 0.5)
    return grad, pairs.n * p * (1.0 - p)


def _entries(problem: Problem, curvature: FloatArray) -> tuple[Int32Array, Int32Array, FloatArray]:
    """The Hessian as (row, column, value) entries, duplicates to be summed."""
    rows, cols, pair, sign = problem.pairs.layout
    return rows, cols, sign * curvature[pair]


def _prior_diagonal(x: FloatArray, prior: float) -> FloatArray:
    p = expit(x)
    return prior * p * (1.0 - p)


def dense_hessian(x: FloatArray, problem: Problem, curvature: FloatArray) -> FloatArray:
    """The Hessian as a dense matrix; without the prior ``11ᵀ/m`` is added to each block,
    which fixes the block's mean (the direction the likelihood does not see)."""
    size = problem.size
    hess = _pair_terms(problem, curvature)
    if problem.prior:
        hess[np.diag_indices(size)] += _prior_diagonal(x, problem.prior)
    else:
        for start, length in problem.blocks:
            hess[start : start + length, start : start + length] += 1.0 / length
    return hess


def _pair_terms(problem: Problem, curvature: FloatArray) -> FloatArray:
    """The pairs' part of the dense Hessian, ``Σ h·v vᵀ`` with ``v = e_i − e_j (+ e_a −
    e_b)``, summed one (row end, column end) combination at a time: memory for the matrix
    and one pass over the pairs, never the 16 entries of every pair at once."""
    size = problem.size
    pairs = problem.pairs
    flat = np.zeros(size * size)
    seated = pairs.seated
    for mask, ends in (
        (~seated, ((pairs.i, 1.0), (pairs.j, -1.0))),
        (seated, ((pairs.i, 1.0), (pairs.j, -1.0), (pairs.a, 1.0), (pairs.b, -1.0))),
    ):
        if not mask.any():
            continue
        h = curvature[mask]
        chosen = [(end[mask], sign) for end, sign in ends]
        for r, (rows, sign_r) in enumerate(chosen):
            for cols, sign_c in chosen[r:]:  # the upper combinations; the rest by symmetry
                index = rows * size + cols
                if size * size <= 4 * len(index):
                    flat += sums(index, sign_r * sign_c * h, size * size)
                else:
                    np.add.at(flat, index, sign_r * sign_c * h)
    hess = flat.reshape(size, size)
    # each off-diagonal combination (r, c) was added once; its mirror (c, r) is its transpose
    diagonal = np.diag(hess).copy()
    hess += hess.T
    hess[np.diag_indices(size)] = diagonal
    return hess


def sparse_hessian(
    x: FloatArray, problem: Problem, curvature: FloatArray
) -> scipy.sparse.csr_array:
    """The Hessian as a sparse matrix (the prior must be positive)."""
    size = problem.size
    rows, cols, values = _entries(problem, curvature)
    diagonal = np.arange(size)
    return scipy.sparse.csr_array(
        (
            np.concatenate([values, _prior_diagonal(x, problem.prior)]),
            (np.concatenate([rows, diagonal]), np.concatenate([cols, diagonal])),
        ),
        shape=(size, size),
    )


def _is_dense(problem: Problem) -> bool:
    return problem.size <= DENSE_LIMIT or not problem.prior


def _cholesky(hess: FloatArray) -> FloatArray:
    """The upper Cholesky factor, overwriting ``hess``; :class:`ValueError` if the
    matrix is not (numerically) positive definite."""
    largest = float(np.max(np.diag(hess)))
    factor, info = lapack.dpotrf(hess.T, lower=0, clean=1, overwrite_a=1)
    if info != 0 or float(np.min(np.diag(factor))) ** 2 <= 1e-12 * largest:
        raise ValueError(UNDETERMINED)
    return np.asarray(factor)


def newton_step(x: FloatArray, problem: Problem) -> tuple[FloatArray, FloatArray]:
    """The gradient at ``x`` and the Newton step from it."""
    grad, curvature = gradient(x, problem)
    if _is_dense(problem):
        factor = _cholesky(dense_hessian(x, problem, curvature))
        step, info = lapack.dpotrs(factor, -grad, lower=0)
        return grad, np.asarray(step)
    hess = sparse_hessian(x, problem, curvature)
    diagonal = hess.diagonal()
    precondition = scipy.sparse.linalg.LinearOperator(
        hess.shape, matvec=lambda v: v / diagonal, dtype=np.float64
    )
    step, _ = scipy.sparse.linalg.cg(
        hess, -grad, rtol=CG_TOLERANCE, atol=0.0, M=precondition, maxiter=4 * problem.size + 20
    )
    return grad, step


def maximise(problem: Problem) -> tuple[FloatArray, int | None]:
    """Newton's method with a backtracking (Armijo) line search from zero; the
    parameters and the number of steps (None: the steps never fell below the tolerance)."""
    theta = np.zeros(problem.size)
    if problem.size == 0:
        return theta, 0
    value = objective(theta, problem)
    for iteration in range(1, MAX_ITERATIONS + 1):
        grad, step = newton_step(theta, problem)
        slope = float(grad @ step)
        t = 1.0
        # Near the optimum a step changes the objective by less than its rounding error:
        # such a change is no reason to shorten the step (which would stop the fit early).
        noise = 1e-12 * abs(value)
        while True:
            trial = theta + t * step
            trial_value = objective(trial, problem)
            if trial_value <= value + 1e-4 * t * slope + noise or t < 1e-10:
                break
            t /= 2.0
        theta, value = trial, trial_value
        if float(np.max(np.abs(t * step))) < STEP_TOLERANCE:
            return theta, iteration
    return theta, None


@dataclass(frozen=True)
class Spread:
    """What the intervals need of the inverse Hessian ``Σ``: per block, the diagonal of
    the centred ``P Σ P`` (``P = I − 11ᵀ/m``) and, when asked, its whole ratings block."""

    diagonals: list[FloatArray]
    ratings_block: FloatArray | None


def spread(theta: FloatArray, problem: Problem, *, whole_ratings_block: bool) -> Spread:
    """The centred variances of every block at the optimum ``theta`` (natural-log units).

    Without the prior, ``Σ = (H + 11ᵀ/m)⁻¹`` and ``P Σ P`` is the pseudo-inverse of H on
    the block, the covariance under the sum-to-zero constraint. The centring needs only
    ``Σ·1_block`` (one solve with the factor per block) besides ``Σ``'s diagonal.

    With ties the covariance is the sandwich ``Σ B Σ``: the variance of one result of a
    pair whose mean score is ``p`` and whose share of ties is ``τ`` is ``p(1−p) − τ/4``,
    not the ``p(1−p)`` of the curvature, so ``B = H − T`` with ``T = Σ n·τ/4 · v vᵀ``
    over the pairs, ``τ`` their observed tie share, and ``Σ B Σ = Σ − Σ T Σ`` (only
    when some pair tied; see :func:`_tied_spread` for its cost).
    """
    _, curvature = gradient(theta, problem)
    factor = _cholesky(dense_hessian(theta, problem, curvature))
    ties = problem.pairs.ties
    if ties is not None and np.any(ties > 0.0):
        return _tied_spread(factor, problem, ties / 4.0, whole_ratings_block)
    sums = []
    for start, length in problem.blocks:
        indicator = np.zeros(problem.size)
        indicator[start : start + length] = 1.0
        solved, _ = lapack.dpotrs(factor, indicator, lower=0)
        sums.append(np.asarray(solved)[start : start + length])
    inverse = _inverse(factor)
    diagonal = np.diag(inverse)
    diagonals = []
    for (start, length), row_sums in zip(problem.blocks, sums, strict=True):
        row_means = row_sums / length
        grand_mean = float(np.sum(row_means)) / length
        diagonals.append(diagonal[start : start + length] - 2.0 * row_means + grand_mean)
    block = None
    if whole_ratings_block and problem.blocks:
        _, length = problem.blocks[0]
        upper = np.triu(inverse[:length, :length])
        sigma = upper + np.triu(upper, 1).T
        row_means = sums[0] / length
        grand_mean = float(np.sum(row_means)) / length
        block = sigma - row_means[:, None] - row_means[None, :] + grand_mean
    return Spread(diagonals, block)


def _inverse(factor: FloatArray) -> FloatArray:
    """The inverse from the upper Cholesky factor (its upper triangle; LAPACK's potri)."""
    inverse, info = lapack.dpotri(factor, lower=0, overwrite_c=1)
    if info != 0:
        raise ValueError(UNDETERMINED)
    return np.asarray(inverse)


def centred(covariance: FloatArray, problem: Problem, whole_ratings_block: bool) -> Spread:
    """The :class:`Spread` of a whole covariance, each block centred on its mean."""
    diagonals = []
    block = None
    for number, (start, length) in enumerate(problem.blocks):
        part = covariance[start : start + length, start : start + length]
        row_means = part.sum(axis=1) / length
        grand_mean = float(np.sum(row_means)) / length
        diagonals.append(np.diag(part) - 2.0 * row_means + grand_mean)
        if number == 0 and whole_ratings_block:
            block = part - row_means[:, None] - row_means[None, :] + grand_mean
    return Spread(diagonals, block)


def _tied_spread(
    factor: FloatArray, problem: Problem, meat: FloatArray, whole_ratings_block: bool
) -> Spread:
    """The centred spread of ``Σ − Σ T Σ`` without forming the product: ``T`` is sparse
    (the pairs' entries), so ``T Σ`` is made a block of columns at a time and only the
    diagonal, the block row sums and (when asked) the ratings block are kept —
    ``O(entries · n)`` flops and ``n²`` memory, not ``2n³`` and ``3n²``."""
    size = problem.size
    upper = _inverse(factor)
    sigma = np.triu(upper)
    sigma += np.triu(sigma, 1).T
    tied: FloatArray | scipy.sparse.csr_array
    if _is_dense(problem):  # T as the Hessian is made: n² memory, never 16 entries a pair
        tied = _pair_terms(problem, meat)
    else:
        rows, cols, values = _entries(problem, meat)
        tied = scipy.sparse.csr_array((values, (rows, cols)), shape=(size, size))
    diagonal = np.diag(sigma).copy()
    _, length = problem.blocks[0] if problem.blocks else (0, 0)
    block = sigma[:length, :length].copy() if whole_ratings_block else None
    for first in range(0, size, SANDWICH_COLUMNS):
        last = min(size, first + SANDWICH_COLUMNS)
        product = tied @ sigma[:, first:last]  # (T Σ)[:, first:last]
        diagonal[first:last] -= np.einsum("kr,kr->r", sigma[:, first:last], product)
        if block is not None and first < length:
            end = min(last, length)
            block[:, first:end] -= sigma[:length, :] @ product[:, : end - first]
    diagonals = []
    ratings_block = None
    for number, (start, length) in enumerate(problem.blocks):
        indicator = np.zeros(size)
        indicator[start : start + length] = 1.0
        column = sigma @ indicator
        column -= sigma @ (tied @ column)  # (Σ − Σ T Σ)·1_block
        row_means = column[start : start + length] / length
        grand_mean = float(np.sum(row_means)) / length
        diagonals.append(diagonal[start : start + length] - 2.0 * row_means + grand_mean)
        if number == 0 and block is not None:
            ratings_block = block - row_means[:, None] - row_means[None, :] + grand_mean
    return Spread(diagonals, ratings_block)
