"""Who plays whom: round-robin tables, seat rotations and Swiss pairings.

Pure functions of the standings (no I/O, no randomness), following the Pairing section of
design/ratings.md:

- **Round-robin**: every k-subset of the bots is a table; each table plays its games with
  the seats rotated (:func:`seat_rotations`), so that every bot sits in every seat once.
- **Swiss, two players** (:func:`swiss_round` with ``table_size == 2``): the players are
  sorted by points, then rating, and paired by a minimum-cost perfect matching (Edmonds'
  blossom algorithm, exact for any number of players). The cost of a pair is, in strict
  order of importance: how often the two already met (squared), so that a rematch only
  happens when no pairing without one exists; the squared difference of their points, so
  that equal scores meet; the squared distance of their places in the standings, so that
  within a score group neighbours meet (1–2, 3–4, Monrad style). With an odd number of
  players the lowest-ranked player with the fewest byes sits out (the runner scores a bye
  as a win).
- **Swiss, 3–6 players**: the players are sorted the same way and seeded into tables in
  consecutive blocks (:func:`swiss_table_sizes`: ``ceil(N / k)`` tables, sizes as even as
  possible, the larger tables at the top). Then pairs of players in different tables are
  swapped, best swap first, while the total cost falls; the cost of a table is the sum
  over its pairs of ``1000 · meetings² + (Δpoints)²``. Rematches are a penalty, not a
  rule. Byes are only needed when the game needs more players per table than the split
  gives (``min_table_size``); they go to the lowest-ranked players with the fewest byes.
- **Seats**: within every Swiss table the seats are assigned to minimise the sum over the
  players of how often each has already sat in the seat it gets (all permutations are
  tried; ties go to the assignment that keeps the standings order).
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

MAX_TABLE_SIZE = 6
"""The largest table a Swiss round seats (the seat search tries all k! assignments)."""

REMATCH_WEIGHT = 1000
"""Cost of one pair at a multiplayer Swiss table per squared number of earlier meetings."""

_POINT_SCALE = 3600
"""Squared point differences are scaled by this and rounded, so that all costs are exact
integers (3600 is divisible by the squares of 2, 3, 4, 5 and 6, the denominators of
points shared on ties at tables of up to six)."""


@dataclass(frozen=True)
class SwissPlayer:
    """One player's standing as a Swiss round sees it.

    ``opponents`` maps another player's name to how many games the two have played at
    the same table; ``seats[s]`` is how many games this player played in seat ``s``
    (missing entries count as zero); ``byes`` is how many byes it has had.
    """

    name: str
    points: float = 0.0
    rating: float = 0.0
    opponents: Mapping[str, int] = field(default_factory=dict)
    seats: Sequence[int] = ()
    byes: int = 0

    def seat_count(self, seat: int) -> int:
        """How many games this player has played in ``seat``."""
        return self.seats[seat] if seat < len(self.seats) else 0


@dataclass(frozen=True)
class SwissRound:
    """The games of one Swiss round.

    ``tables`` lists the tables from the top of the standings down, each a tuple of
    names in seat order (seat 0 first); ``byes`` names the players who sit out this round.
    """

    tables: list[tuple[str, ...]]
    byes: list[str]


# ----------------------------------------------------------------------------------------
# Round-robin


def round_robin_tables(bots: Sequence[str], table_size: int) -> list[tuple[str, ...]]:
    """Every ``table_size``-subset of ``bots``, in the lexicographic order of their positions.

    There are C(len(bots), table_size) tables; each keeps the order of ``bots``. Raises
    ValueError for repeated names or a table size below 2 or above the number of bots.
    """
    _check_names(bots)
    if table_size < 2:
        raise ValueError(f"a table needs at least 2 seats, not {table_size}")
    if table_size > len(bots):
        raise ValueError(f"{len(bots)} bots cannot fill a table of {table_size}")
    return list(itertools.combinations(bots, table_size))


def seat_rotations(table: Sequence[str]) -> list[tuple[str, ...]]:
    """The k cyclic rotations of a table's seats, the unrotated table first.

    Rotation ``i`` puts ``table[i]`` in seat 0, so over the k rotations every bot sits in
    every seat exactly once (and keeps its neighbours).
    """
    seats = tuple(table)
    return [seats[i:] + seats[:i] for i in range(len(seats))]


# ----------------------------------------------------------------------------------------
# Swiss


def default_swiss_rounds(bots: int, table_size: int) -> int:
    """The default number of Swiss rounds: ``ceil(log_k N) + 2``, with k the table size.

    Computed with integers (the smallest r with k**r >= N), so that exact powers give the
    exact logarithm.
    """
    if table_size < 2:
        raise ValueError(f"a table needs at least 2 seats, not {table_size}")
    if bots < 1:
        raise ValueError(f"a tournament needs at least one bot, not {bots}")
    rounds, reach = 0, 1
    while reach < bots:
        reach *= table_size
        rounds += 1
    return rounds + 2


def swiss_table_sizes(players: int, table_size: int, min_table_size: int = 2) -> list[int]:
    """The table sizes of a Swiss round for ``players`` players, top table first.

    The rule: ``ceil(N / k)`` tables with sizes as even as possible, the larger tables at
    the top (N=10, k=4 gives 4, 3, 3; N=9 gives 3, 3, 3). When that would seat fewer than
    ``min_table_size`` at a table, the fewest players possible sit out (byes) so that the
    rest can be split this way; the sizes returned then sum to less than ``players``.
    Raises ValueError when not even one table can be seated.
    """
    _check_sizes(table_size, min_table_size)
    if players < min_table_size:
        raise ValueError(f"{players} players cannot fill a table of at least {min_table_size}")
    for seated in range(players, min_table_size - 1, -1):
        tables = -(-seated // table_size)
        if seated // tables >= min_table_size:
            small, extra = divmod(seated, tables)
            return [small + 1] * extra + [small] * (tables - extra)
    raise AssertionError("unreachable: min_table_size players always fit one table")


def swiss_round(
    players: Sequence[SwissPlayer], table_size: int, min_table_size: int = 2
) -> SwissRound:
    """Pair one Swiss round: the tables (in seat order) and the byes.

    ``table_size`` is the number of seats the game is played with (2 to 6);
    ``min_table_size`` is the smallest table the game can still be played at. Deterministic:
    the same standings always give the same round. See the module docstring for the rules.
    """
    _check_names([p.name for p in players])
    _check_sizes(table_size, min_table_size)
    if table_size > MAX_TABLE_SIZE:
        raise ValueError(f"Swiss tables seat at most {MAX_TABLE_SIZE}, not {table_size}")
    ranked = sorted(players, key=lambda p: (-p.points, -p.rating, p.name))
    sizes = swiss_table_sizes(len(ranked), table_size, min_table_size)
    byes = _pick_byes(ranked, len(ranked) - sum(sizes))
    bye_names = {p.name for p in byes}
    seated = [p for p in ranked if p.name not in bye_names]
    groups = _pair_two_player(seated) if table_size == 2 else _group_tables(seated, sizes)
    return SwissRound(
        tables=[_assign_seats(group) for group in groups],
        byes=[p.name for p in byes],
    )


# ----------------------------------------------------------------------------------------
# Helpers


def _check_names(names: Sequence[str]) -> None:
    if len(set(names)) != len(names):
        raise ValueError("bot names must be distinct")


def _check_sizes(table_size: int, min_table_size: int) -> None:
    if min_table_size < 2:
        raise ValueError(f"a table needs at least 2 seats, not {min_table_size}")
    if table_size < min_table_size:
        raise ValueError(f"table size {table_size} is below the minimum {min_table_size}")


def _meetings(a: SwissPlayer, b: SwissPlayer) -> int:
    return max(a.opponents.get(b.name, 0), b.opponents.get(a.name, 0))


def _point_cost(a: SwissPlayer, b: SwissPlayer) -> int:
    return round(_POINT_SCALE * (a.points - b.points) ** 2)


def _pick_byes(ranked: list[SwissPlayer], count: int) -> list[SwissPlayer]:
    """The ``count`` players who sit out: fewest byes first, lowest-ranked first among equals."""
    order = sorted(range(len(ranked)), key=lambda i: (ranked[i].byes, -i))
    return [ranked[i] for i in sorted(order[:count])]


def _pair_two_player(ranked: list[SwissPlayer]) -> list[list[SwissPlayer]]:
    """Pairs of an even number of players (in standings order) by a minimum-cost matching.

    The three cost terms are combined into one integer with weights large enough that the
    order of importance is strict: no gain in a lower term can pay for a loss in a higher
    one over a whole round.
    """
    n = len(ranked)
    half = n // 2
    points = [[_point_cost(a, b) for b in ranked] for a in ranked]
    meets = [[_meetings(a, b) ** 2 for b in ranked] for a in ranked]
    place_weight = half * (n - 1) ** 2 + 1
    base = [[points[i][j] * place_weight + (i - j) ** 2 for j in range(n)] for i in range(n)]
    rematch_weight = half * max((max(row) for row in base), default=0) + 1
    cost = [[meets[i][j] * rematch_weight + base[i][j] for j in range(n)] for i in range(n)]
    mate = _min_cost_perfect_matching(cost)
    return [[ranked[i], ranked[mate[i]]] for i in range(n) if i < mate[i]]


def _group_tables(ranked: list[SwissPlayer], sizes: list[int]) -> list[list[SwissPlayer]]:
    """Seed tables in blocks by standing, then swap players while the total cost falls.

    Each pass takes the single best swap of two players at different tables (the first
    found on equal gains), so the result is deterministic.
    """
    n = len(ranked)
    unit = REMATCH_WEIGHT * _POINT_SCALE
    cost = [
        [unit * _meetings(a, b) ** 2 + _point_cost(a, b) if a is not b else 0 for b in ranked]
        for a in ranked
    ]
    tables: list[list[int]] = []
    start = 0
    for size in sizes:
        tables.append(list(range(start, start + size)))
        start += size
    where = [0] * n
    for t, members in enumerate(tables):
        for p in members:
            where[p] = t
    # to_table[p][t]: the summed cost of player p with every player at table t.
    to_table = [[sum(cost[p][q] for q in members) for members in tables] for p in range(n)]
    while True:
        best_gain, best_swap = 0, None
        for a in range(n):
            ta = where[a]
            row_a = to_table[a]
            for b in range(a + 1, n):
                tb = where[b]
                if tb == ta:
                    continue
                row_b = to_table[b]
                change = row_b[ta] - row_a[ta] + row_a[tb] - row_b[tb] - cost[a][b] - cost[b][a]
                if change < best_gain:
                    best_gain, best_swap = change, (a, b)
        if best_swap is None:
            break
        a, b = best_swap
        ta, tb = where[a], where[b]
        tables[ta][tables[ta].index(a)] = b
        tables[tb][tables[tb].index(b)] = a
        where[a], where[b] = tb, ta
        for p in range(n):
            moved = cost[p][b] - cost[p][a]
            to_table[p][ta] += moved
            to_table[p][tb] -= moved
    ordered = sorted((sorted(members) for members in tables), key=lambda m: m[0])
    return [[ranked[p] for p in members] for members in ordered]


def _assign_seats(group: list[SwissPlayer]) -> tuple[str, ...]:
    """Seat a table (players in standings order) so that earlier seat counts add up least.

    All k! assignments are tried in lexicographic order and the first minimum is kept, so
    on ties the higher-ranked player gets the lower seat.
    """
    k = len(group)
    counts = [[p.seat_count(s) for s in range(k)] for p in group]
    best: tuple[int, ...] = tuple(range(k))
    best_cost = sum(counts[i][i] for i in range(k))
    for perm in itertools.permutations(range(k)):
        total = sum(counts[i][perm[i]] for i in range(k))
        if total < best_cost:
            best, best_cost = perm, total
    seating = [""] * k
    for i, seat in enumerate(best):
        seating[seat] = group[i].name
    return tuple(seating)


# ----------------------------------------------------------------------------------------
# Minimum-cost perfect matching


def _min_cost_perfect_matching(cost: Sequence[Sequence[int]]) -> list[int]:
    """A perfect matching of least total cost on the complete graph with these edge costs.

    ``cost`` is a symmetric n×n matrix of non-negative integers, n even; returns ``mate``
    with ``mate[i]`` the partner of ``i``. Turned into a maximum-weight matching by
    ``weight = C − cost`` with C so large that every perfect matching outweighs every
    smaller one.
    """
    n = len(cost)
    if n % 2:
        raise ValueError("a perfect matching needs an even number of vertices")
    if n == 0:
        return []
    top_cost = max(max(row) for row in cost)
    big = (n // 2) * top_cost + 1 + top_cost
    weight = [[big - cost[i][j] if i != j else 0 for j in range(n)] for i in range(n)]
    mate = _BlossomMatcher(weight).solve()
    if any(m < 0 for m in mate):
        raise AssertionError("the matching on a complete graph came out imperfect")
    return mate


_Edge = tuple[int, int, int]


class _BlossomMatcher:
    """Maximum-weight matching on a dense graph: Edmonds' blossom algorithm, O(n³).

    The primal-dual method after Galil ("Efficient algorithms for finding maximum matching
    in graphs", 1986), on an adjacency matrix. Vertices are 1..n, blossoms n+1..2n; slot 0
    means "none". ``edge[x][y]`` is the original edge (u in x, v in y, weight) that best
    joins the (vertex or blossom) x to y. Duals are kept doubled (the slack of an edge is
    ``dual[u] + dual[v] − 2·w``) so that integer weights keep all arithmetic exact.
    """

    def __init__(self, weight: Sequence[Sequence[int]]) -> None:
        n = len(weight)
        size = 2 * n + 1
        self.n = n
        self.edge: list[list[_Edge]] = [[(u, v, 0) for v in range(size)] for u in range(size)]
        top_weight = 0
        for u in range(1, n + 1):
            row = self.edge[u]
            for v in range(1, n + 1):
                w = weight[u - 1][v - 1] if u != v else 0
                row[v] = (u, v, w)
                top_weight = max(top_weight, w)
        self.dual = [0] * size
        for u in range(1, n + 1):
            self.dual[u] = top_weight
        self.mate = [0] * size
        self.slack = [0] * size
        self.top = list(range(n + 1)) + [0] * n
        self.parent = [0] * size
        # entry[b][v]: the child of blossom b that contains vertex v (0 if none).
        self.entry = [[0] * (n + 1) for _ in range(size)]
        for u in range(1, n + 1):
            self.entry[u][u] = u
        # label: -1 free, 0 outer (S, even), 1 inner (T, odd).
        self.label = [-1] * size
        self.stamp = [0] * size
        self.clock = 0
        self.children: list[list[int]] = [[] for _ in range(size)]
        self.used = n
        self.queue: deque[int] = deque()

    def solve(self) -> list[int]:
        """Run the stages until no augmenting path is left; ``mate`` as 0-based indices."""
        while self._stage():
            pass
        return [self.mate[u] - 1 for u in range(1, self.n + 1)]

    def _slack(self, e: _Edge) -> int:
        return self.dual[e[0]] + self.dual[e[1]] - 2 * e[2]

    def _update_slack(self, u: int, x: int) -> None:
        s = self.slack[x]
        if not s or self._slack(self.edge[u][x]) < self._slack(self.edge[s][x]):
            self.slack[x] = u

    def _set_slack(self, x: int) -> None:
        self.slack[x] = 0
        top, label, edge = self.top, self.label, self.edge
        for u in range(1, self.n + 1):
            if edge[u][x][2] > 0 and top[u] != x and label[top[u]] == 0:
                self._update_slack(u, x)

    def _push(self, x: int) -> None:
        if x <= self.n:
            self.queue.append(x)
        else:
            for child in self.children[x]:
                self._push(child)

    def _set_top(self, x: int, b: int) -> None:
        self.top[x] = b
        if x > self.n:
            for child in self.children[x]:
                self._set_top(child, b)

    def _entry_position(self, b: int, child: int) -> int:
        """Position of ``child`` on b's cycle, reversing the cycle to make it even."""
        cycle = self.children[b]
        pos = cycle.index(child)
        if pos % 2:
            cycle[1:] = cycle[:0:-1]
            return len(cycle) - pos
        return pos

    def _set_mate(self, u: int, v: int) -> None:
        e = self.edge[u][v]
        self.mate[u] = e[1]
        if u <= self.n:
            return
        inner = self.entry[u][e[0]]
        pos = self._entry_position(u, inner)
        cycle = self.children[u]
        for i in range(pos):
            self._set_mate(cycle[i], cycle[i ^ 1])
        self._set_mate(inner, v)
        self.children[u] = cycle[pos:] + cycle[:pos]

    def _augment(self, u: int, v: int) -> None:
        while True:
            outer = self.top[self.mate[u]]
            self._set_mate(u, v)
            if not outer:
                return
            self._set_mate(outer, self.top[self.parent[outer]])
            u, v = self.top[self.parent[outer]], outer

    def _common_base(self, u: int, v: int) -> int:
        self.clock += 1
        while u or v:
            if u:
                if self.stamp[u] == self.clock:
                    return u
                self.stamp[u] = self.clock
                u = self.top[self.mate[u]]
                if u:
                    u = self.top[self.parent[u]]
            u, v = v, u
        return 0

    def _add_blossom(self, u: int, base: int, v: int) -> None:
        n, top, edge = self.n, self.top, self.edge
        b = n + 1
        while b <= self.used and top[b]:
            b += 1
        if b > self.used:
            self.used += 1
        self.dual[b] = 0
        self.label[b] = 0
        self.mate[b] = self.mate[base]
        cycle = [base]
        for start in (u, v):
            x = start
            while x != base:
                y = top[self.mate[x]]
                cycle.append(x)
                cycle.append(y)
                self._push(y)
                x = top[self.parent[y]]
            if start == u:
                cycle[1:] = cycle[:0:-1]
        self.children[b] = cycle
        self._set_top(b, b)
        row_b = edge[b]
        for x in range(1, self.used + 1):
            row_b[x] = (0, 0, 0)
            edge[x][b] = (0, 0, 0)
        entry_b = self.entry[b]
        for x in range(1, n + 1):
            entry_b[x] = 0
        for child in cycle:
            row_c = edge[child]
            for x in range(1, self.used + 1):
                if row_b[x][2] == 0 or self._slack(row_c[x]) < self._slack(row_b[x]):
                    row_b[x] = row_c[x]
                    edge[x][b] = edge[x][child]
            entry_c = self.entry[child]
            for x in range(1, n + 1):
                if entry_c[x]:
                    entry_b[x] = child
        self._set_slack(b)

    def _expand_blossom(self, b: int) -> None:
        for child in self.children[b]:
            self._set_top(child, child)
        inner = self.entry[b][self.edge[b][self.parent[b]][0]]
        pos = self._entry_position(b, inner)
        cycle = self.children[b]
        for i in range(0, pos, 2):
            xs, xns = cycle[i], cycle[i + 1]
            self.parent[xs] = self.edge[xns][xs][0]
            self.label[xs] = 1
            self.label[xns] = 0
            self.slack[xs] = 0
            self._set_slack(xns)
            self._push(xns)
        self.label[inner] = 1
        self.parent[inner] = self.parent[b]
        for i in range(pos + 1, len(cycle)):
            self.label[cycle[i]] = -1
            self._set_slack(cycle[i])
        self.top[b] = 0

    def _found_edge(self, e: _Edge) -> bool:
        """Grow the forest along a tight edge; True when it completed an augmentation."""
        u, v = self.top[e[0]], self.top[e[1]]
        if self.label[v] == -1:
            self.parent[v] = e[0]
            self.label[v] = 1
            nu = self.top[self.mate[v]]
            self.slack[v] = self.slack[nu] = 0
            self.label[nu] = 0
            self._push(nu)
        elif self.label[v] == 0:
            base = self._common_base(u, v)
            if not base:
                self._augment(u, v)
                self._augment(v, u)
                return True
            self._add_blossom(u, base, v)
        return False

    def _stage(self) -> bool:
        """One stage: grow alternating trees until an augmentation (True) or none is left."""
        n, top, label, slack, dual, edge = (
            self.n,
            self.top,
            self.label,
            self.slack,
            self.dual,
            self.edge,
        )
        for x in range(1, self.used + 1):
            label[x] = -1
            slack[x] = 0
        self.queue.clear()
        for x in range(1, self.used + 1):
            if top[x] == x and not self.mate[x]:
                self.parent[x] = 0
                label[x] = 0
                self._push(x)
        if not self.queue:
            return False
        while True:
            while self.queue:
                u = self.queue.popleft()
                if label[top[u]] == 1:
                    continue
                row = edge[u]
                for v in range(1, n + 1):
                    e = row[v]
                    if e[2] > 0 and top[u] != top[v]:
                        if self._slack(e) == 0:
                            if self._found_edge(e):
                                return True
                        else:
                            self._update_slack(u, top[v])
            delta: int | None = None
            for b in range(n + 1, self.used + 1):
                if top[b] == b and label[b] == 1:
                    d = dual[b] // 2
                    if delta is None or d < delta:
                        delta = d
            for x in range(1, self.used + 1):
                if top[x] == x and slack[x] and label[x] != 1:
                    d = self._slack(edge[slack[x]][x])
                    if label[x] == 0:
                        d //= 2
                    if delta is None or d < delta:
                        delta = d
            if delta is None:
                return False
            for u in range(1, n + 1):
                lu = label[top[u]]
                if lu == 0:
                    if dual[u] <= delta:
                        return False
                    dual[u] -= delta
                elif lu == 1:
                    dual[u] += delta
            for b in range(n + 1, self.used + 1):
                if top[b] == b:
                    if label[b] == 0:
                        dual[b] += 2 * delta
                    elif label[b] == 1:
                        dual[b] -= 2 * delta
            self.queue.clear()
            x = 1
            while x <= self.used:
                s = slack[x]
                tight = top[x] == x and s and top[s] != x and self._slack(edge[s][x]) == 0
                if tight and self._found_edge(edge[s][x]):
                    return True
                x += 1
            for b in range(n + 1, self.used + 1):
                if top[b] == b and label[b] == 1 and dual[b] == 0:
                    self._expand_blossom(b)
