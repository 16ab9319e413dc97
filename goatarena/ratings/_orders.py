"""The exact Plackett–Luce part of the fit: a table of 3–6 bots as one finishing order.

The Plackett–Luce model takes a finishing order as a sequence of choices: the winner is
drawn from the whole table with chance ``e^{u_f} / Σ e^{u}``, the second from the rest,
and so on, where ``u_f = θ_bot + α_seat`` is the bot's strength plus its seat's offset.
The negative log-likelihood of one order is ``Σ_t log Σ_{f ∈ R_t} e^{u_f} − Σ_f u_f``,
``R_t`` the bots not yet placed at step ``t`` (the *risk sets*).

**Ties: averaged orders.** A tie says that the order of the tied bots was not observed;
its log-likelihood is the mean of the log-likelihoods of the orders it allows, each
weighed alike. At two bots that is exactly the pairwise fit's half point
(``½ log p + ½ log(1−p)``), so the tie means the same at every table size. In a uniformly
random order of a tied group ``G`` (above the bots ``B`` ranked below it), the bots still
to be placed form each subset ``R ⊆ G`` of a size ``s`` with chance ``1/C(|G|, s)``, so
the averaged likelihood is again a sum over weighted risk sets: ``R ∪ B`` with weight
``1/C(|G|, |R|)`` for every non-empty ``R`` (a tie of six bots: 63 sets). Breslow's rule
(every tied bot drawn from the whole group) was the alternative; unlike the average it
does not reduce to the half point at two seats.

A finishing pattern's *structure* is its ranks in seat order; patterns of one structure
share the risk sets, so a group of them is evaluated with a few matrix products:
``denom = E Mᵀ`` (``E = e^{u}``, ``M`` the sets' masks), the gradient ``E ∘ ((w/denom) M)
− 1`` and the Hessian ``diag(E ∘ ((w/denom) M)) − (E ⊗ E) ∘ ((w/denom²) (M ⊗ M))``.

**Tie-aware intervals.** A tie's averaged score has less spread than the curvature says,
as a pairwise half point does: if the hidden order of a tied group is uniformly random,
the variance of the averaged score is the curvature minus the variance of the score over
the orders the tie allows. :func:`tie_spread` gives that variance per pattern (summed
over its tied groups, which are independent), the ``T`` of the sandwich
``H⁻¹ (H − T) H⁻¹`` of :func:`goatarena.ratings._newton.spread`; at two bots it is the
pairwise fit's ``τ/4``.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

EXACT_SEATS = range(3, 7)
"""Table sizes fitted by the exact model; two-seat tables (where the exact model is the
pairwise one) and tables of more than six stay pairwise."""


@dataclass(frozen=True)
class Structure:
    """The risk sets of one rank pattern: ``masks`` (sets × seats), their ``weights``,
    ``products`` (sets × seats², ``masks[s, f]·masks[s, g]``) and, per tied group, the
    sets each order of the group passes through (``chains``, orders × group size)."""

    masks: FloatArray
    weights: FloatArray
    products: FloatArray
    chains: tuple[IntArray, ...]


def competition_ranks(ranks: Sequence[int]) -> tuple[int, ...]:
    """The ranks as 1 + the number of bots strictly ahead (only the order matters)."""
    return tuple(1 + sum(other < rank for other in ranks) for rank in ranks)


@functools.cache
def structure(ranks: tuple[int, ...]) -> Structure:
    """The :class:`Structure` of competition ranks ``ranks`` (in seat order)."""
    k = len(ranks)
    masks: list[list[float]] = []
    weights: list[float] = []
    chains = []
    for rank in sorted(set(ranks)):
        group = [f for f in range(k) if ranks[f] == rank]
        below = [f for f in range(k) if ranks[f] > rank]
        number: dict[tuple[int, ...], int] = {}
        for size in range(1, len(group) + 1):
            for subset in itertools.combinations(group, size):
                number[subset] = len(masks)
                masks.append([1.0 if f in subset or f in below else 0.0 for f in range(k)])
                weights.append(1.0 / math.comb(len(group), size))
        if len(group) > 1:
            orders = itertools.permutations(group)
            chains.append(
                np.array(
                    [[number[tuple(sorted(order[t:]))] for t in range(len(group))]
                     for order in orders],
                    dtype=np.int64,
                )
            )  # fmt: skip
    mask = np.array(masks)
    products = (mask[:, :, None] * mask[:, None, :]).reshape(len(masks), k * k)
    return Structure(mask, np.array(weights), products, tuple(chains))


@dataclass(frozen=True)
class OrderGroup:
    """The patterns of one structure, all with seat terms or all without: per pattern
    the parameter of each seat's bot (``bot``, patterns × seats), of its seat offset
    (``seat``, -1: none) and how many games finished so (``count``)."""

    structure: Structure
    bot: IntArray
    seat: IntArray
    count: FloatArray

    @property
    def seated(self) -> bool:
        """Whether the patterns have seat terms."""
        return bool(len(self.seat)) and bool(self.seat[0, 0] >= 0)

    def ends(self) -> IntArray:
        """The parameters each utility is the sum of (patterns × seats, or × 2·seats
        with the seat offsets after the bots)."""
        return np.concatenate([self.bot, self.seat], axis=1) if self.seated else self.bot


def utilities(x: FloatArray, group: OrderGroup) -> FloatArray:
    """``u = θ_bot + α_seat`` per pattern and seat."""
    return x[group.bot] + x[group.seat] if group.seated else x[group.bot]


def _exponentials(u: FloatArray) -> tuple[FloatArray, FloatArray]:
    shift = u.max(axis=1)
    return np.exp(u - shift[:, None]), shift


def objective(x: FloatArray, orders: Sequence[OrderGroup]) -> float:
    """The negative log-likelihood of every pattern (times its count)."""
    total = 0.0
    for group in orders:
        u = utilities(x, group)
        e, shift = _exponentials(u)
        logs = np.log(e @ group.structure.masks.T) + shift[:, None]
        per = logs @ group.structure.weights - u.sum(axis=1)
        total += float(group.count @ per)
    return total


def derivatives(x: FloatArray, group: OrderGroup) -> tuple[FloatArray, FloatArray]:
    """The gradient (patterns × seats) and Hessian (patterns × seats × seats) of each
    pattern's negative log-likelihood in its utilities, times the pattern's count."""
    s = group.structure
    k = s.masks.shape[1]
    e, _ = _exponentials(utilities(x, group))
    inverse = s.weights / (e @ s.masks.T)
    chance = e * (inverse @ s.masks)
    grad = chance - 1.0
    hess = -(e[:, :, None] * e[:, None, :]) * ((inverse**2 / s.weights) @ s.products).reshape(
        -1, k, k
    )
    hess[:, np.arange(k), np.arange(k)] += chance
    count = group.count
    return grad * count[:, None], hess * count[:, None, None]


def tie_spread(x: FloatArray, group: OrderGroup) -> FloatArray | None:
    """The variance of each pattern's score over the orders its ties allow (patterns ×
    seats × seats, times the count); None for a structure without ties."""
    s = group.structure
    if not s.chains:
        return None
    e, _ = _exponentials(utilities(x, group))
    chance = e[:, None, :] * s.masks[None, :, :] / (e @ s.masks.T)[:, :, None]  # (P, S, k)
    k = s.masks.shape[1]
    spread = np.zeros((len(e), k, k))
    for chain in s.chains:
        scores = chance[:, chain, :].sum(axis=2)  # (P, orders, k)
        mean = scores.mean(axis=1)
        spread += np.einsum("pof,pog->pfg", scores, scores) / chain.shape[0]
        spread -= mean[:, :, None] * mean[:, None, :]
    return spread * group.count[:, None, None]


def scatter_gradient(grad: FloatArray, group: OrderGroup, size: int) -> FloatArray:
    """A pattern gradient (patterns × seats) summed into the parameters."""
    out = np.bincount(group.bot.ravel(), grad.ravel(), size)
    if group.seated:
        out += np.bincount(group.seat.ravel(), grad.ravel(), size)
    return np.asarray(out, dtype=np.float64)


def _spread_out(group: OrderGroup, matrices: FloatArray) -> tuple[IntArray, FloatArray]:
    """The ends of every utility and the matrices over them: ``u_f`` is ``θ_bot +
    α_seat``, so an entry (f, g) lands on (bot or seat) × (bot or seat)."""
    if group.seated:
        return group.ends(), np.tile(matrices, (1, 2, 2))
    return group.bot, matrices


def entries(group: OrderGroup, matrices: FloatArray) -> tuple[IntArray, IntArray, FloatArray]:
    """Per-pattern matrices (patterns × seats × seats, in utilities) as parameter-matrix
    entries (row, column, value), duplicates to be summed."""
    ends, values = _spread_out(group, matrices)
    shape = values.shape
    rows = np.broadcast_to(ends[:, :, None], shape).ravel()
    cols = np.broadcast_to(ends[:, None, :], shape).ravel()
    return rows, cols, values.ravel()


SLICE = 100_000
"""Patterns whose entries are made at a time when they are added to a dense matrix."""


def add_dense(hess: FloatArray, group: OrderGroup, matrices: FloatArray) -> None:
    """Add per-pattern matrices into a dense parameter matrix, :data:`SLICE` patterns
    at a time (memory for their entries, not every pattern's at once)."""
    size = hess.shape[0]
    flat = hess.reshape(-1)
    across = np.zeros(size * size) if group.seated else None  # the (bot, seat) block
    for first in range(0, len(group.count), SLICE):
        part = slice(first, first + SLICE)
        values = matrices[part].ravel()
        bot, seat = group.bot[part], group.seat[part]
        _accumulate(flat, (bot[:, :, None] * size + bot[:, None, :]).ravel(), values)
        if across is not None:
            _accumulate(flat, (seat[:, :, None] * size + seat[:, None, :]).ravel(), values)
            _accumulate(across, (bot[:, :, None] * size + seat[:, None, :]).ravel(), values)
    if across is not None:
        block = across.reshape(size, size)
        hess += block
        hess += block.T  # the (seat, bot) block, by symmetry


def _accumulate(flat: FloatArray, index: IntArray, values: FloatArray) -> None:
    """``flat[index] += values``, duplicates summed: a bincount over the whole matrix
    where the entries are many, ``np.add.at`` where they are few."""
    if len(flat) <= 4 * len(index):
        flat += np.bincount(index, values, len(flat))
    else:
        np.add.at(flat, index, values)


def game_terms(u: Sequence[float], ranks: Sequence[int]) -> tuple[FloatArray, FloatArray]:
    """The gradient and Hessian in the utilities ``u`` of one game's negative
    log-likelihood (ranks in seat order): what a deal's score needs. The seats are taken
    in finishing order, as a fit's patterns are (few structures, each made once)."""
    order = sorted(range(len(u)), key=lambda f: ranks[f])
    s = structure(competition_ranks([ranks[f] for f in order]))
    k = len(order)
    sorted_u = np.array([u[f] for f in order], dtype=np.float64)
    e = np.exp(sorted_u - sorted_u.max())
    inverse = s.weights / (s.masks @ e)
    chance = e * (inverse @ s.masks)
    hess = -np.outer(e, e) * ((inverse**2 / s.weights) @ s.products).reshape(k, k)
    hess[np.diag_indices(k)] += chance
    back = np.argsort(order)
    return (chance - 1.0)[back], hess[np.ix_(back, back)]
