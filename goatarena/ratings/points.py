"""Fitted ratings without their intervals, fast enough to refit before every Swiss round.

:func:`goatarena.ratings.fit.fit` maximises the Bradley–Terry likelihood (with its prior) by
Newton's method on the dense Hessian and inverts it for the intervals: cubic in the
number of bots, some 20 s for 256 bots in pure Python. A Swiss round needs only the
point estimates, so :func:`fitted_elo` maximises the same objective by Newton's method
with the Hessian never formed: each step is solved by conjugate gradients, whose
Hessian-vector products cost one pass over the pairs of bots that met. Same optimum,
same tolerance, linear work per iteration.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from goatarena.ratings.fit import (
    Game,
    _names,  # noqa: PLC2701 -- the same reduction of games to pairs as the full fit
    _objective,  # noqa: PLC2701
    _pairs,  # noqa: PLC2701
    _sigmoid,  # noqa: PLC2701
    _tally,  # noqa: PLC2701
    _to_elo,  # noqa: PLC2701
    damped_newton,
)

_MAX_NEWTON = 200
_CG_TOLERANCE = 1e-12
"""Conjugate gradients stop when the residual's norm falls below this share of the
gradient's (the Newton step is then exact to far below the step tolerance)."""


def fitted_elo(games: Sequence[Game], *, prior_draws: float = 1.0) -> dict[str, float]:
    """Every bot's fitted Elo, the point estimates of :func:`goatarena.ratings.fit.fit`.

    ``prior_draws`` must be positive here: the prior makes every Newton system positive
    definite, which conjugate gradients need. Returns bot name -> Elo (mean 1500), in
    sorted name order; empty for no games.
    """
    if not prior_draws > 0.0 or not math.isfinite(prior_draws):
        raise ValueError(f"prior_draws must be a finite number > 0, not {prior_draws!r}")
    names = _names(games)
    if not names:
        return {}
    pairs = [(i, j, n, s) for i, j, _, _, n, s in _pairs(_tally(games, names, None, {}))]
    theta = [0.0] * len(names)
    full = [(i, j, -1, -1, n, s) for i, j, n, s in pairs]
    theta, _ = damped_newton(
        theta,
        lambda x: _objective(x, full, prior_draws),
        lambda x: _newton_step(x, pairs, prior_draws),
        _MAX_NEWTON,
    )
    return dict(zip(names, _to_elo(theta), strict=True))


def _newton_step(
    theta: list[float], pairs: list[tuple[int, int, float, float]], prior_draws: float
) -> tuple[list[float], list[float]]:
    """The gradient at ``theta`` and the Newton step, solved by conjugate gradients."""
    grad, curvature, diagonal = _gradient(theta, pairs, prior_draws)
    return grad, _solve(curvature, diagonal, [-g for g in grad], pairs)


def _gradient(
    theta: list[float], pairs: list[tuple[int, int, float, float]], prior: float
) -> tuple[list[float], list[float], list[float]]:
    """The objective's gradient, each pair's curvature ``n·p(1−p)``, and the Hessian's
    diagonal."""
    grad = [0.0] * len(theta)
    diagonal = [0.0] * len(theta)
    curvature = []
    for i, j, n, s in pairs:
        p = _sigmoid(theta[i] - theta[j])
        g = n * p - s
        h = n * p * (1.0 - p)
        grad[i] += g
        grad[j] -= g
        diagonal[i] += h
        diagonal[j] += h
        curvature.append(h)
    for i, t in enumerate(theta):
        p = _sigmoid(t)
        grad[i] += prior * (p - 0.5)
        diagonal[i] += prior * p * (1.0 - p)
    return grad, curvature, diagonal


def _solve(
    curvature: list[float],
    diagonal: list[float],
    rhs: list[float],
    pairs: list[tuple[int, int, float, float]],
) -> list[float]:
    """Solve ``H x = rhs`` by conjugate gradients preconditioned with H's diagonal.

    ``H = diag(diagonal) − Σ_pairs h (e_i e_jᵀ + e_j e_iᵀ)``: the diagonal already holds
    every pair's and the prior's share.
    """
    size = len(rhs)
    ends = [(i, j, h) for (i, j, _, _), h in zip(pairs, curvature, strict=True)]

    def times(v: list[float]) -> list[float]:
        out = [d * x for d, x in zip(diagonal, v, strict=True)]
        for i, j, h in ends:
            out[i] -= h * v[j]
            out[j] -= h * v[i]
        return out

    x = [0.0] * size
    r = list(rhs)
    z = [ri / d for ri, d in zip(r, diagonal, strict=True)]
    p = list(z)
    rz = sum(a * b for a, b in zip(r, z, strict=True))
    limit = (_CG_TOLERANCE * math.sqrt(sum(v * v for v in rhs))) ** 2
    for _ in range(4 * size + 20):
        if sum(v * v for v in r) <= limit:
            break
        q = times(p)
        alpha = rz / sum(a * b for a, b in zip(p, q, strict=True))
        x = [a + alpha * b for a, b in zip(x, p, strict=True)]
        r = [a - alpha * b for a, b in zip(r, q, strict=True)]
        z = [ri / d for ri, d in zip(r, diagonal, strict=True)]
        rz_next = sum(a * b for a, b in zip(r, z, strict=True))
        p = [a + (rz_next / rz) * b for a, b in zip(z, p, strict=True)]
        rz = rz_next
    return x
