"""Split players into tables of given sizes at the least total cost.

The cost of a split is the sum over the pairs seated at the same table of an integer pair
cost (the Swiss pairing makes a rematch cost more than any spread of points can, so the
fewest rematches always win). Two solvers share one entry point, :func:`group_tables`:

- **exact** when the field is small (at most :data:`EXACT_LIMIT` splits): a depth-first
  enumeration that seats the first unseated player at each step, pruned by the cost so
  far (branch and bound);
- otherwise an **iterated local search**: from the seeded split, descend by giving each
  player in turn its best swap with a player at another table or its best move from a
  larger to a smaller table, until a sweep improves nothing; then kick the split (players
  caught in the costliest pairs are swapped at random) and descend again, keeping the
  best split seen. The random kicks come from a generator seeded by the caller, so the
  result is deterministic.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Sequence

EXACT_LIMIT = 20_000
"""The largest number of distinct splits the exact solver enumerates."""

KICKS_PER_PLAYER = 30
"""How many kick-and-descend rounds the local search makes per player (at least 40) ..."""

SEARCH_WORK = 4_000_000
"""... unless that would weigh more than this many swaps in all (a sweep weighs n²)."""

Matrix = Sequence[Sequence[int]]


def split_count(sizes: Sequence[int]) -> int:
    """How many distinct ways there are to split ``sum(sizes)`` players into these tables."""
    total = math.factorial(sum(sizes))
    for size in sizes:
        total //= math.factorial(size)
    for repeats in Counter(sizes).values():
        total //= math.factorial(repeats)
    return total


def split_cost(cost: Matrix, tables: Sequence[Sequence[int]]) -> int:
    """The total cost of a split: the pair costs summed over every table."""
    return sum(cost[a][b] for table in tables for i, a in enumerate(table) for b in table[i + 1 :])


def group_tables(
    cost: Matrix,
    sizes: Sequence[int],
    rng: random.Random,
    *,
    good_enough: int = 1,
    exact: bool | None = None,
    kicks: int | None = None,
) -> list[list[int]]:
    """The cheapest split found of players ``0..n-1`` into tables of ``sizes``.

    ``cost`` is a symmetric matrix of non-negative pair costs; players are given in
    standings order and the search starts from consecutive blocks of that order. Tables
    come back with their players sorted, the tables sorted by their first player.
    ``exact`` forces (True) or forbids (False) the exact solver; by default it is used
    when there are at most :data:`EXACT_LIMIT` splits. The local search stops kicking
    once a split costs less than ``good_enough`` (the Swiss pairing passes the cost of one
    rematch: a split without rematches is kept as the first descent leaves it); ``kicks``
    overrides its budget of kick-and-descend rounds.
    """
    if sum(sizes) != len(cost):
        raise ValueError(f"table sizes {list(sizes)} do not seat {len(cost)} players")
    if exact is None:
        exact = split_count(sizes) <= EXACT_LIMIT
    tables = (
        _exact(cost, sizes) if exact else _LocalSearch(cost, sizes, rng).run(good_enough, kicks)
    )
    return sorted((sorted(table) for table in tables), key=lambda table: table[0])


# --- exact -----------------------------------------------------------------------------


def _exact(cost: Matrix, sizes: Sequence[int]) -> list[list[int]]:
    """Branch and bound over all splits; the first cheapest in enumeration order wins."""
    n = len(cost)
    best_cost = split_cost(cost, _blocks(sizes))
    best: list[list[int]] = _blocks(sizes)
    open_sizes = Counter(sizes)
    tables: list[list[int]] = []
    seated = [False] * n

    def extend(so_far: int) -> None:
        nonlocal best_cost, best
        if so_far >= best_cost and tables:
            return
        first = next((p for p in range(n) if not seated[p]), None)
        if first is None:
            if so_far < best_cost:
                best_cost, best = so_far, [list(t) for t in tables]
            return
        rest = [p for p in range(first + 1, n) if not seated[p]]
        seated[first] = True
        for size in sorted(open_sizes, reverse=True):
            if not open_sizes[size]:
                continue
            open_sizes[size] -= 1
            for others in itertools.combinations(rest, size - 1):
                members = [first, *others]
                added = sum(cost[a][b] for i, a in enumerate(members) for b in members[i + 1 :])
                if so_far + added >= best_cost:
                    continue
                for p in others:
                    seated[p] = True
                tables.append(members)
                extend(so_far + added)
                tables.pop()
                for p in others:
                    seated[p] = False
            open_sizes[size] += 1
        seated[first] = False

    extend(0)
    return best


def _blocks(sizes: Sequence[int]) -> list[list[int]]:
    tables, start = [], 0
    for size in sizes:
        tables.append(list(range(start, start + size)))
        start += size
    return tables


# --- local search ----------------------------------------------------------------------


class _LocalSearch:
    """Iterated local search over splits with fixed table sizes (see the module doc)."""

    def __init__(self, cost: Matrix, sizes: Sequence[int], rng: random.Random) -> None:
        self.cost = cost
        self.n = len(cost)
        self.rng = rng
        self.tables = _blocks(sizes)
        self.where = [0] * self.n
        for t, members in enumerate(self.tables):
            for p in members:
                self.where[p] = t
        # to_table[p][t]: the summed cost of player p with every player at table t.
        self.to_table = [[sum(cost[p][q] for q in members) for members in self.tables]
                         for p in range(self.n)]  # fmt: skip
        self.total = split_cost(cost, self.tables)

    def run(self, good_enough: int, kicks: int | None = None) -> list[list[int]]:
        """Descend, then kick and descend again; the best split seen."""
        self._descend()
        best, best_total = [list(t) for t in self.tables], self.total
        if kicks is None:
            kicks = max(40, min(KICKS_PER_PLAYER * self.n, SEARCH_WORK // self.n**2))
        for _ in range(kicks):
            if best_total < good_enough or len(self.tables) < 2:
                break
            self._kick()
            self._descend()
            if self.total < best_total:
                best, best_total = [list(t) for t in self.tables], self.total
            elif self.total > best_total:
                self._restore(best, best_total)
        return best

    def _restore(self, tables: list[list[int]], total: int) -> None:
        self.tables = [list(t) for t in tables]
        for t, members in enumerate(self.tables):
            for p in members:
                self.where[p] = t
        self.to_table = [[sum(self.cost[p][q] for q in members) for members in self.tables]
                         for p in range(self.n)]  # fmt: skip
        self.total = total

    def _descend(self) -> None:
        """Sweep the players, applying each one's best improving swap or move, until a
        whole sweep improves nothing (a local optimum for both kinds of step)."""
        improved = True
        while improved:
            improved = False
            for a in range(self.n):
                change, b, tb = self._best_step(a)
                if change < 0:
                    if b is None:
                        self._move(a, tb)
                    else:
                        self._swap(a, b)
                    self.total += change
                    improved = True

    def _best_step(self, a: int) -> tuple[int, int | None, int]:
        """Player ``a``'s best step: (change in cost, partner or None for a move, table)."""
        cost, where, to_table, tables = self.cost, self.where, self.to_table, self.tables
        best: tuple[int, int | None, int] = (0, None, -1)
        ta = where[a]
        row_a = to_table[a]
        cost_a = cost[a]
        stay = row_a[ta]
        for b in range(self.n):
            tb = where[b]
            if tb == ta:
                continue
            row_b = to_table[b]
            change = row_b[ta] - stay + row_a[tb] - row_b[tb] - 2 * cost_a[b]
            if change < best[0]:
                best = (change, b, tb)
        # a move from a table one larger keeps the multiset of sizes
        size_a = len(tables[ta])
        for tb, members in enumerate(tables):
            if len(members) == size_a - 1:
                change = row_a[tb] - stay
                if change < best[0]:
                    best = (change, None, tb)
        return best

    def _kick(self) -> None:
        """Swap a few players, most of them from the costliest pairs, at random."""
        cost, tables = self.cost, self.tables
        worst = [
            (cost[a][b], a)
            for members in tables
            for i, a in enumerate(members)
            for b in members[i + 1 :]
            if cost[a][b] > 0
        ]
        worst.sort(reverse=True)
        heavy = [a for _, a in worst[: max(4, len(worst) // 4)]] or list(range(self.n))
        for _ in range(self.rng.randint(1, 3)):
            a = self.rng.choice(heavy)
            b = self.rng.randrange(self.n)
            if self.where[a] != self.where[b]:
                ta, tb = self.where[a], self.where[b]
                change = (
                    self.to_table[b][ta]
                    - self.to_table[a][ta]
                    + self.to_table[a][tb]
                    - self.to_table[b][tb]
                    - 2 * cost[a][b]
                )
                self._swap(a, b)
                self.total += change

    def _swap(self, a: int, b: int) -> None:
        ta, tb = self.where[a], self.where[b]
        self.tables[ta][self.tables[ta].index(a)] = b
        self.tables[tb][self.tables[tb].index(b)] = a
        self.where[a], self.where[b] = tb, ta
        cost = self.cost
        for p, row in enumerate(self.to_table):
            moved = cost[p][b] - cost[p][a]
            row[ta] += moved
            row[tb] -= moved

    def _move(self, a: int, tb: int) -> None:
        ta = self.where[a]
        self.tables[ta].remove(a)
        self.tables[tb].append(a)
        self.where[a] = tb
        cost = self.cost
        for p, row in enumerate(self.to_table):
            row[ta] -= cost[p][a]
            row[tb] += cost[p][a]
