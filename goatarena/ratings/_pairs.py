"""From a tally's counts to the data of a fit: the cells of the chosen games, the bots
renumbered by name, per pair of bots and seats the total weight and weighted score, and
(for the exact fit) the finishing patterns of the tables of 3–6 bots grouped by their
rank structure."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from goatarena.ratings import _newton, _orders
from goatarena.ratings.tally import Cells, PairTally, Patterns


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
    patterns: Sequence[Patterns] | None = None,
    position: npt.NDArray[np.int64] | None = None,
) -> _newton.Problem:
    """Per pair of bots and seats: the total weight and the weighted score of the first,
    summed over table sizes in a fixed order (cells sorted by bots, size, seats). With
    ``patterns`` (those of the chosen games; ``position`` renumbers the tally's bots),
    the tables of :data:`~goatarena.ratings._orders.EXACT_SEATS` bots are fitted by the
    exact model from them instead of by their pairs."""
    blocks = [(0, bots)]
    start = bots
    offsets = np.full(len(seen_families) + 1, -1, dtype=np.int64)
    for key, players in families:
        offsets[seen_families.index((key, players))] = start
        blocks.append((start, players))
        start += players
    orders: list[_orders.OrderGroup] = []
    if patterns is not None and position is not None:
        exact = np.isin(cells.k, list(_orders.EXACT_SEATS))
        cells = Cells(*(np.asarray(getattr(cells, name))[~exact]
                        for name in Cells.__dataclass_fields__))  # fmt: skip
        for chosen in patterns:
            orders.extend(order_groups(chosen, position, offsets))
    base = offsets[cells.family]  # NO_FAMILY (-1) picks the last entry: -1
    a = np.where(base >= 0, base + cells.seat_i, -1)
    b = np.where(base >= 0, base + cells.seat_j, -1)
    del base  # here and below: a field's worth of cells, not to be held twice
    code = _pair_codes(cells.i, cells.j, a, b, start)
    order = _by_pair_then_size(code, cells.k)
    code, a, b = code[order], a[order], b[order]
    n, s, ties = _weighted(cells.counts[order], cells.k[order])
    i, j = cells.i[order], cells.j[order]
    del order
    if len(i):
        # one entry per (bots, seats), summed over table sizes in ascending order: the
        # cells of one entry are adjacent in the sort
        new = np.r_[True, code[1:] != code[:-1]]
        inverse = np.cumsum(new) - 1
        first = np.flatnonzero(new)
        n = _newton.sums(inverse, n, len(first))
        s = _newton.sums(inverse, s, len(first))
        ties = _newton.sums(inverse, ties, len(first))
        i, j, a, b = i[first], j[first], a[first], b[first]
    pairs = _newton.Pairs(i=i, j=j, a=a, b=b, n=n, s=s, ties=ties)
    return _newton.Problem(
        size=start, pairs=pairs, prior=prior, blocks=blocks, orders=orders,
        exact=patterns is not None,
    )  # fmt: skip


def chosen_patterns(tally: PairTally, seat_key: str | None) -> list[Patterns]:
    """The finishing patterns of the games of ``seat_key`` (all when None)."""
    found = tally.patterns()
    if seat_key is None:
        return found
    wanted = [number for number, (key, _) in enumerate(tally.families) if key == seat_key]
    chosen = []
    for patterns in found:
        mask = np.isin(patterns.family, wanted)
        chosen.append(
            Patterns(patterns.k, patterns.bots[mask], patterns.family[mask],
                     patterns.ranks[mask], patterns.count[mask])
        )  # fmt: skip
    return chosen


def order_groups(
    patterns: Patterns, position: npt.NDArray[np.int64], offsets: npt.NDArray[np.int64]
) -> list[_orders.OrderGroup]:
    """The patterns of one table size as order groups, the bots renumbered by
    ``position`` and the seats given the parameters of their family (``offsets``, -1 for
    none). Each pattern's entries are listed in finishing order (tied ones by seat
    parameter, or by bot without seat terms), so that patterns group by their ties alone
    (at most 2^(k−1) structures, in groups of at most :data:`~._orders.SLICE` patterns)
    and one game told in two seat orders is one pattern; sorted
    so that the sums of a fit do not depend on the order in which bots were first seen."""
    k = patterns.k
    if not len(patterns.count):
        return []
    bots = position[patterns.bots]
    base = offsets[patterns.family]  # NO_FAMILY (-1) picks the last entry: -1
    seats = np.where(base[:, None] >= 0, base[:, None] + np.arange(k), -1)
    tiebreak = np.where(seats >= 0, seats, bots)
    order = np.argsort(patterns.ranks * (int(tiebreak.max()) + 1) + tiebreak, axis=1)
    del tiebreak  # here and below: (patterns, k) arrays of a million games, not held twice
    bots = np.take_along_axis(bots, order, axis=1)
    seats = np.take_along_axis(seats, order, axis=1)
    ranks = np.take_along_axis(patterns.ranks, order, axis=1)
    code = np.zeros(len(bots), dtype=np.int64)
    where = np.zeros(len(bots), dtype=np.int64)  # the seat of each finishing position
    words = [np.zeros(len(bots), dtype=np.int64) for _ in range(2)]
    for f in range(k):
        code = code * 8 + ranks[:, f]
        where = where * 8 + order[:, f]
        words[f // 3] |= bots[:, f] << (18 * (f % 3))
    del ranks, order
    where = np.where(base >= 0, where, 0)
    first_word = (code << 40) | (where << 22) | (base + 1)
    del where
    sort = np.lexsort((words[1], words[0], first_word))
    keys = [first_word[sort], words[0][sort], words[1][sort]]
    del first_word, words
    new = np.r_[True, np.any([key[1:] != key[:-1] for key in keys], axis=0)]
    del keys
    unique = sort[new]
    count = np.add.reduceat(patterns.count[sort].astype(np.float64), np.flatnonzero(new))
    code, seats, bots = code[unique], seats[unique], bots[unique]
    seated = seats[:, 0] >= 0  # a group is all with seat terms or all without
    changes = (code[1:] != code[:-1]) | (seated[1:] != seated[:-1])
    starts = np.flatnonzero(np.r_[True, changes])
    # groups of at most SLICE patterns: a Newton step's temporaries stay small
    starts = np.unique(np.concatenate([starts, np.arange(0, len(code), _orders.SLICE)]))
    ends = np.r_[starts[1:], len(code)]
    groups = []
    for first, last in zip(starts, ends, strict=True):
        structure = tuple(int(code[first] >> (3 * (k - 1 - f))) & 7 for f in range(k))
        groups.append(
            _orders.OrderGroup(
                _orders.structure(structure), bots[first:last], seats[first:last], count[first:last]
            )
        )
    return groups


def _weighted(
    counts: npt.NDArray[np.int64], k: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Per cell the weight of its games, the weighted score of the first bot and the
    weighted ties (each pairwise result weighs :func:`_pair_weight` of its table size)."""
    weight = 3.0 / (k + 1.0)
    ahead, tied, behind = (counts[:, column].astype(np.float64) for column in range(3))
    return weight * (ahead + tied + behind), weight * (ahead + 0.5 * tied), weight * tied


def _by_pair_then_size(
    code: npt.NDArray[np.int64], k: npt.NDArray[np.int64]
) -> npt.NDArray[np.intp]:
    """The order of the cells by (bots and seats, table size): one sort of one integer
    key where the code leaves room for the size's four bits, else a sort by both."""
    if not len(code) or int(code.max()) < 1 << 58:
        return np.argsort(code * 16 + k, kind="stable")
    return np.lexsort((k, code))


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
