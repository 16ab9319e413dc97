"""Who plays whom: round-robin tables, seat rotations and Swiss pairings.

Pure functions of the standings and the tournament seed (no I/O), following the Pairing
section of design/ratings.md:

- **Round-robin**: every k-subset of the bots is a table; each table plays its games with
  the seats rotated (:func:`seat_rotations`), so that every bot sits in every seat once.
- **Standings order** for a Swiss round: points, then the fitted rating, then a lot drawn
  from the tournament seed (never the names).
- **Swiss, two players** (:func:`swiss_round` with ``table_size == 2``): a minimum-cost
  perfect matching (rustworkx's blossom ``max_weight_matching``; among pairs at most
  :data:`PAIRING_WINDOW` places apart first, all pairs if those cannot pair everyone).
  The cost of a pair is, in strict order of importance: whether the two met before, so
  that a rematch only happens when no pairing without one exists; how often they met
  (squared); whether both *must* have the same seat (:mod:`.seating`: a seat difference
  past 2, or a third game running in one seat); the squared difference of their points;
  whether both prefer the same seat; the squared distance of their places in the
  standings, so that within a score group neighbours meet (1–2, 3–4, Monrad style). With
  an odd number of players the lowest-ranked player with the fewest byes sits out (the
  runner scores a bye as a win).
- **Swiss, 3–6 players**: tables of :func:`swiss_table_sizes` (``ceil(N / k)`` tables,
  sizes as even as possible) split to minimise, in strict order, the number of pairs at
  a table that met before, the sum of their squared meetings, and the sum of squared
  point differences: exactly for small fields, by an iterated local search otherwise
  (:mod:`.grouping`). Byes are only needed when the game
  needs more players per table than the split gives (``min_table_size``); they go to the
  lowest-ranked players with the fewest byes. Seats within a table: :mod:`.seating`.
"""

from __future__ import annotations

import bisect
import itertools
import random
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from goatarena.formats.grouping import group_tables
from goatarena.formats.seating import lot, seat_conflict, seat_pair, seat_table

MAX_TABLE_SIZE = 6
"""The largest table a Swiss round seats (the seat search tries all k! assignments)."""

PAIRING_WINDOW = 16
"""Two-player pairs are first sought among players at most this many places apart in
the standings (the exact blossom is cubic in the number of edges it may use, and a
pairing that reaches further costs more than a pairing of near neighbours unless
rematches force it); when those pairs cannot pair everybody, all pairs are used."""

_POINT_SCALE = 3600
"""Squared point differences are scaled by this and rounded, so that all costs are exact
integers (3600 is divisible by the squares of 2, 3, 4, 5 and 6, the denominators of
points shared on ties at tables of up to six)."""


@dataclass(frozen=True)
class SwissPlayer:
    """One player's standing as a Swiss round sees it.

    ``opponents`` maps another player's name to how many games the two have played at
    the same table; ``seats[s]`` is how many games this player played in seat ``s``
    (missing entries count as zero); ``seat_history`` lists the seats of its games,
    oldest first; ``byes`` is how many byes it has had; ``rating`` is its fitted rating
    (0 when none is known), the first tie-break after points.
    """

    name: str
    points: float = 0.0
    rating: float = 0.0
    opponents: Mapping[str, int] = field(default_factory=dict)
    seats: Sequence[int] = ()
    byes: int = 0
    seat_history: Sequence[int] = ()

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
    (:func:`iter_tables` gives the same tables one at a time.)
    """
    return list(iter_tables(bots, table_size))


def iter_tables(
    bots: Sequence[str], table_size: int, *, seating: Collection[str] | None = None
) -> Iterator[tuple[str, ...]]:
    """The tables of :func:`round_robin_tables`, in the same order, made as they are
    needed; with ``seating``, only the tables that seat at least one of those bots.

    The arguments are checked at once, not when the first table is asked for.
    """
    _check_names(bots)
    if table_size < 2:
        raise ValueError(f"a table needs at least 2 seats, not {table_size}")
    if table_size > len(bots):
        raise ValueError(f"{len(bots)} bots cannot fill a table of {table_size}")
    if seating is None:
        return itertools.combinations(bots, table_size)
    wanted = [i for i, name in enumerate(bots) if name in seating]
    return _tables_seating(list(bots), table_size, wanted)


def _tables_seating(bots: list[str], size: int, wanted: list[int]) -> Iterator[tuple[str, ...]]:
    """The ``size``-subsets of ``bots`` (lexicographic by position) holding one of the
    positions ``wanted`` (sorted); branches that can no longer seat one are cut, so a
    gauntlet of one challenger among 10,000 bots visits its 9,999 pairs, not 50 million."""
    n = len(bots)
    chosen: list[int] = []

    def extend(start: int, seated: bool) -> Iterator[tuple[str, ...]]:
        need = size - len(chosen)
        if need == 0:
            yield tuple(bots[i] for i in chosen)
            return
        if seated:
            candidates: Iterable[int] = range(start, n - need + 1)
        elif need == 1:
            candidates = wanted[bisect.bisect_left(wanted, start) :]
        else:
            # Somebody wanted must still come at or after the next seat taken.
            candidates = range(start, min(n - need, wanted[-1]) + 1)
        for i in candidates:
            chosen.append(i)
            yield from extend(i + 1, seated or i in wanted_set)
            chosen.pop()

    wanted_set = set(wanted)
    return extend(0, False) if wanted else iter(())


def seat_rotations(table: Sequence[str]) -> list[tuple[str, ...]]:
    """The k cyclic rotations of a table's seats, the unrotated table first.

    Rotation ``i`` puts ``table[i]`` in seat 0, so over the k rotations every bot sits in
    every seat exactly once (and keeps its neighbours).
    """
    seats = tuple(table)
    return [seats[i:] + seats[:i] for i in range(len(seats))]


# ----------------------------------------------------------------------------------------
# Swiss


def swiss_depth(bots: int, table_size: int) -> int:
    """``ceil(log_k N)``, k the table size: the rounds a knock-out would need.

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
    return rounds


def default_swiss_rounds(bots: int, table_size: int) -> int:
    """The default number of Swiss rounds: ``2·ceil(log_k N) + 2``, k the table size.

    Chosen from the simulation in ``goatarena bench --swiss`` (the table is in
    docs/tournaments.md): at the textbook ``ceil(log_k N) + 2`` the standings ranked
    simulated bots of known strength with Kendall τ of only 0.58–0.66 at 16 to 64 bots,
    and these extra rounds raise it by 0.05–0.10.
    """
    return 2 * swiss_depth(bots, table_size) + 2


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
    players: Sequence[SwissPlayer],
    table_size: int,
    min_table_size: int = 2,
    *,
    seed: int = 0,
) -> SwissRound:
    """Pair one Swiss round: the tables (in seat order) and the byes.

    ``table_size`` is the number of seats the game is played with (2 to 6);
    ``min_table_size`` is the smallest table the game can still be played at; ``seed``
    (the tournament's) draws the lots that break ties. Deterministic: the same standings
    and seed always give the same round, whatever the order of ``players``. See the
    module docstring for the rules.
    """
    _check_names([p.name for p in players])
    _check_sizes(table_size, min_table_size)
    if table_size > MAX_TABLE_SIZE:
        raise ValueError(f"Swiss tables seat at most {MAX_TABLE_SIZE}, not {table_size}")
    ranked = rank_players(players, seed)
    sizes = swiss_table_sizes(len(ranked), table_size, min_table_size)
    byes = _pick_byes(ranked, len(ranked) - sum(sizes))
    bye_names = {p.name for p in byes}
    seated = [p for p in ranked if p.name not in bye_names]
    if table_size == 2:
        tables = _pair_two_player(seated, seed)
    else:
        tables = _split_tables(seated, sizes, seed)
    return SwissRound(tables=tables, byes=[p.name for p in byes])


def rank_players(players: Sequence[SwissPlayer], seed: int = 0) -> list[SwissPlayer]:
    """The standings order a Swiss round uses: points, rating, then a lot from ``seed``.

    Ratings are compared to a millionth of an Elo point: bots with the same record fit to
    the same rating up to rounding, and the lot, not the rounding, must order them.
    """
    return sorted(
        players, key=lambda p: (-p.points, -round(p.rating, 6), lot(seed, "rank", p.name))
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


def _pair_two_player(ranked: list[SwissPlayer], seed: int) -> list[tuple[str, ...]]:
    """Pairs of an even number of players (in standings order), each in seat order.

    The cost terms (see the module docstring) are combined into one integer with
    weights large enough that the order of importance is strict: no gain in a lower term
    can pay for a loss in a higher one over a whole round. The matching maximises
    ``big − cost`` with ``big`` so large that every perfect matching outweighs every
    smaller one.
    """
    n = len(ranked)
    if n == 0:
        return []
    cost, big = _pair_costs(ranked, PAIRING_WINDOW)
    matching = _max_matching(cost, big, n)
    if matching is None:
        cost, big = _pair_costs(ranked, n)
        matching = _max_matching(cost, big, n)
    if matching is None:
        raise AssertionError("the matching on a complete graph came out imperfect")
    tables: list[tuple[str, ...]] = []
    for i, j in sorted(tuple(sorted(edge)) for edge in matching):
        high, low = ranked[i], ranked[j]
        coin = lot(seed, "seat", high.name, low.name)
        tables.append(
            (high.name, low.name) if seat_pair(high, low, coin) else (low.name, high.name)
        )
    return tables


def _pair_costs(ranked: list[SwissPlayer], window: int) -> tuple[dict[tuple[int, int], int], int]:
    """The integer cost of every pair at most ``window`` places apart (i < j, places in
    the standings), and ``big``."""
    n = len(ranked)
    half = n // 2
    terms: dict[tuple[int, int], tuple[int, ...]] = {}
    for i, j in itertools.combinations(range(n), 2):
        if j - i > window:
            continue
        a, b = ranked[i], ranked[j]
        must, prefer = seat_conflict(a, b)
        met = _meetings(a, b)
        terms[i, j] = (int(met > 0), met**2, must, _point_cost(a, b), prefer, (i - j) ** 2)
    weights = [1] * 6
    for level in range(len(weights) - 2, -1, -1):
        below = max(
            (sum(w * t for w, t in zip(weights[level + 1 :], term[level + 1 :], strict=True))
             for term in terms.values()),
            default=0,
        )  # fmt: skip
        weights[level] = half * below + 1
    cost = {edge: sum(w * t for w, t in zip(weights, term, strict=True))
            for edge, term in terms.items()}  # fmt: skip
    big = half * max(cost.values()) + 1 + max(cost.values())
    return cost, big


def _max_matching(
    cost: dict[tuple[int, int], int], big: int, n: int
) -> set[tuple[int, int]] | None:
    """The least-cost perfect matching of ``n`` players using the pairs in ``cost``.

    None when those pairs admit no perfect matching (the caller widens the window).
    """
    if big.bit_length() >= _RUSTWORKX_BITS:
        return _max_matching_networkx(cost, big, n)
    # Imported here: only a Swiss round needs a matching, and every local referee
    # imports the schedule.
    import rustworkx as rx

    graph = rx.PyGraph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from([(i, j, big - c) for (i, j), c in cost.items()])
    matching = rx.max_weight_matching(graph, max_cardinality=True, weight_fn=int)
    return matching if len(matching) == n // 2 else None


_RUSTWORKX_BITS = 120
"""rustworkx weighs matching edges in signed 128-bit integers (its dual variables need a
few bits of headroom); costs that need more (fields far past ten thousand bots) are
matched by networkx, which is exact at any size but a hundred times slower."""


def _max_matching_networkx(
    cost: dict[tuple[int, int], int], big: int, n: int
) -> set[tuple[int, int]] | None:
    """:func:`_max_matching` on Python integers of any size."""
    import networkx as nx

    graph = nx.Graph()
    graph.add_weighted_edges_from((i, j, big - c) for (i, j), c in cost.items())
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    return matching if len(matching) == n // 2 else None


def _split_tables(ranked: list[SwissPlayer], sizes: list[int], seed: int) -> list[tuple[str, ...]]:
    """Tables of ``sizes`` with the fewest rematched pairs, then the fewest repeated
    meetings (squared, so that no pair meets a third time while others could meet a
    second), then the nearest scores, seated."""
    points = [[_point_cost(a, b) if a is not b else 0 for b in ranked] for a in ranked]
    met = [[_meetings(a, b) for b in ranked] for a in ranked]
    pairs_seated = sum(size * (size - 1) // 2 for size in sizes)
    again = pairs_seated * max((max(row) for row in points), default=0) + 1
    most = max((max(row) for row in met), default=0)
    rematch = pairs_seated * (again * most**2 + again) + 1
    cost = [
        [rematch * (met[i][j] > 0) + again * met[i][j] ** 2 + points[i][j] if i != j else 0
         for j in range(len(ranked))]
        for i in range(len(ranked))
    ]  # fmt: skip
    names = "+".join(sorted(p.name for p in ranked))
    rng = random.Random(lot(seed, "split", names))
    tables = []
    for members in group_tables(cost, sizes, rng, good_enough=rematch):
        group = [ranked[p] for p in members]
        seats = seat_table(group, lot(seed, "seats", *(p.name for p in group)))
        seating = [""] * len(group)
        for player, seat in zip(group, seats, strict=True):
            seating[seat] = player.name
        tables.append(tuple(seating))
    return tables
