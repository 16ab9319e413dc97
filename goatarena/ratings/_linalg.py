"""Small dense linear algebra on lists: Cholesky factor, solve, inverse (for the rating fit)."""

from __future__ import annotations

import math


def cholesky(matrix: list[list[float]]) -> list[list[float]]:
    """The lower factor ``L`` of a symmetric positive definite matrix, ``A = L·Lᵀ``."""
    size = len(matrix)
    floor = 1e-12 * max(matrix[i][i] for i in range(size))
    lower = [[0.0] * size for _ in range(size)]
    for j in range(size):
        row_j = lower[j]
        pivot = matrix[j][j] - sum(x * x for x in row_j[:j])
        if pivot <= floor:
            raise ValueError(
                "the games do not determine the ratings (a seat or a bot's rating cannot "
                "be told apart from the others'); fit with prior_draws > 0"
            )
        diagonal = math.sqrt(pivot)
        row_j[j] = diagonal
        for i in range(j + 1, size):
            row_i = lower[i]
            row_i[j] = (
                matrix[i][j] - sum(a * b for a, b in zip(row_i[:j], row_j[:j], strict=True))
            ) / diagonal
    return lower


def solve(lower: list[list[float]], rhs: list[float]) -> list[float]:
    """Solve ``L·Lᵀ·x = rhs`` by forward and back substitution."""
    size = len(lower)
    y = [0.0] * size
    for i in range(size):
        y[i] = (rhs[i] - sum(lower[i][k] * y[k] for k in range(i))) / lower[i][i]
    x = [0.0] * size
    for i in reversed(range(size)):
        x[i] = (y[i] - sum(lower[k][i] * x[k] for k in range(i + 1, size))) / lower[i][i]
    return x


def inverse(matrix: list[list[float]]) -> list[list[float]]:
    """The inverse of a symmetric positive definite matrix, column by column."""
    lower = cholesky(matrix)
    size = len(matrix)
    columns = [solve(lower, [1.0 if r == c else 0.0 for r in range(size)]) for c in range(size)]
    return [[columns[c][r] for c in range(size)] for r in range(size)]
