"""From a tally's counts to the data of a fit: the cells of the chosen games, the bots
renumbered by name, and per pair of bots and seats the total weight and weighted score."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from goatarena.ratings import _newton
from goatarena.ratings.tally import Cells, PairTally


def chosen_cells(tally: PairTally, seat_key: str | None) -> tuple[Cells, dict[str, int]]:
    """The cells of the games of ``seat_key`` (all when None) and games per bot."""
    cells = tally.cells()
    if seat_key is None:
        return cells, tally.played()
    wanted = [number for number, (key, _) in enumerate(tally.families) if key == seat_key]
    mask = np.isin(cells.family, wanted)
    chosen = Cells(*(np.asarray(getattr(cells, name))[mask] for name in Cells.__dataclass_fields__))
    return chosen, tally.played(families=wanted)


def renumbered_cells(cells: Cells, seen: Sequence[str], names: Sequence[str]) -> Cells:
    """The cells with bots numbered by sorted name, the lower number first."""
    order = {name: index for index, name in enumerate(names)}
    position = np.array([order.get(name, -1) for name in seen], dtype=np.int64)
    i, j = position[cells.i], position[cells.j]
    swap = i > j
    counts = cells.counts.copy()
    counts[swap] = counts[swap][:, ::-1]
    return Cells(
        i=np.where(swap, j, i),
        j=np.where(swap, i, j),
        k=cells.k,
        family=cells.family,
        seat_i=np.where(swap, cells.seat_j, cells.seat_i),
        seat_j=np.where(swap, cells.seat_i, cells.seat_j),
        counts=counts,
    )


def _pair_weight(k: int) -> float:
    """The weight of one pairwise result from a table of ``k`` bots: ``3 / (k + 1)``.

    The ``k(k−1)/2`` pairs of one finishing order are not independent results, so counting
    each as a full game (weight 1) overstates the evidence and makes the intervals too
    narrow; weight ``1/(k−1)`` (each bot's game counts once) understates it. Weight
    ``3/(k+1)`` is the one for which the inverse Hessian is the true variance of the
    pairwise fit (the sandwich ``H⁻¹ J H⁻¹``) when the bots are of similar strength: a
    bot's pairwise score in one game is ``(k+1)/2 − rank`` up to a constant, whose
    covariance over a random finishing order is ``(k+1)/12 · (k·I − 11ᵀ)``, while the
    Hessian of a table with weight ``w`` is ``w/4 · (k·I − 11ᵀ)``; the two agree
    (``J = H``) exactly when ``w = 3/(k+1)``. Two-player games keep weight 1, so for
    them this is the ordinary Bradley–Terry fit. A k-player game then carries
    ``3(k−1)/(k+1)`` times the information of a two-player game per bot, close to what
    the exact Plackett–Luce model gives (1.8 vs 1.92 for k = 4).
    """
    return 3.0 / (k + 1)


def problem_of(
    cells: Cells,
    seen_families: Sequence[tuple[str, int]],
    families: Sequence[tuple[str, int]],
    bots: int,
    prior: float,
) -> _newton.Problem:
    """Per pair of bots and seats: the total weight and the weighted score of the first,
    summed over table sizes in a fixed order (cells sorted by bots, size, seats)."""
    blocks = [(0, bots)]
    start = bots
    offsets = np.full(len(seen_families) + 1, -1, dtype=np.int64)
    for key, players in families:
        offsets[seen_families.index((key, players))] = start
        blocks.append((start, players))
        start += players
    base = offsets[cells.family]  # NO_FAMILY (-1) picks the last entry: -1
    seated = base >= 0
    a = np.where(seated, base + cells.seat_i, -1)
    b = np.where(seated, base + cells.seat_j, -1)
    order = np.lexsort((b, a, cells.k, cells.j, cells.i))
    i, j, a, b, k = cells.i[order], cells.j[order], a[order], b[order], cells.k[order]
    counts = cells.counts[order].astype(np.float64)
    weight = 3.0 / (k + 1.0)
    n = weight * counts.sum(axis=1)
    s = weight * (counts[:, 0] + 0.5 * counts[:, 1])
    ties = weight * counts[:, 1]
    if len(i):
        # one entry per (bots, seats), summed over table sizes in the order of the sort
        unique, inverse = np.unique(_pair_codes(i, j, a, b, start), return_inverse=True)
        inverse = inverse.ravel()
        n = _newton.sums(inverse, n, len(unique))
        s = _newton.sums(inverse, s, len(unique))
        ties = _newton.sums(inverse, ties, len(unique))
        first = np.zeros(len(unique), dtype=np.int64)
        first[inverse[::-1]] = np.arange(len(inverse))[::-1]
        i, j, a, b = i[first], j[first], a[first], b[first]
    pairs = _newton.Pairs(i=i, j=j, a=a, b=b, n=n, s=s, ties=ties)
    return _newton.Problem(size=start, pairs=pairs, prior=prior, blocks=blocks)


def _pair_codes(
    i: npt.NDArray[np.int64],
    j: npt.NDArray[np.int64],
    a: npt.NDArray[np.int64],
    b: npt.NDArray[np.int64],
    size: int,
) -> npt.NDArray[np.int64]:
    """One integer per (i, j, a, b), ordered as the tuples are."""
    if size >= 40_000:  # (size + 1)⁴ would overflow an int64: compare rows instead
        rows = np.stack([i, j, a, b], axis=1)
        _, codes = np.unique(rows, axis=0, return_inverse=True)
        return np.asarray(codes, dtype=np.int64).ravel()
    width = size + 1
    return ((i * width + j) * width + (a + 1)) * width + (b + 1)
