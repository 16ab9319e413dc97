"""Table grouping against a brute-force oracle, and on fields too large to enumerate."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterator

import pytest

from goatarena.formats.grouping import group_tables, split_cost, split_count
from goatarena.formats.pairing import SwissPlayer, swiss_round, swiss_table_sizes

REMATCH = 10**6


def all_splits(players: list[int], sizes: Counter[int]) -> Iterator[list[list[int]]]:
    """Every split of ``players`` into tables of the sizes counted in ``sizes``."""
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for size in [s for s in sizes if sizes[s]]:
        sizes[size] -= 1
        for others in itertools.combinations(rest, size - 1):
            left = [p for p in rest if p not in others]
            for split in all_splits(left, sizes):
                yield [[first, *others], *split]
        sizes[size] += 1


def oracle(cost: list[list[int]], sizes: list[int]) -> int:
    return min(
        split_cost(cost, split) for split in all_splits(list(range(len(cost))), Counter(sizes))
    )


def random_history_cost(
    rng: random.Random, n: int, sizes: list[int], rounds: int
) -> list[list[int]]:
    """Pair costs of a field that already played ``rounds`` random rounds."""
    met = [[0] * n for _ in range(n)]
    for _ in range(rounds):
        order = rng.sample(range(n), n)
        start = 0
        for size in sizes:
            table = order[start : start + size]
            start += size
            for a, b in itertools.combinations(table, 2):
                met[a][b] += 1
                met[b][a] += 1
    points = sorted((rng.randint(0, 3 * rounds) for _ in range(n)), reverse=True)
    return [
        [REMATCH * met[a][b] ** 2 + (points[a] - points[b]) ** 2 if a != b else 0 for b in range(n)]
        for a in range(n)
    ]


def test_split_count_matches_the_enumeration() -> None:
    for sizes in ([3, 3], [4, 3, 3], [2, 2, 2, 2], [5, 4], [3, 3, 3, 2]):
        assert split_count(sizes) == sum(
            1 for _ in all_splits(list(range(sum(sizes))), Counter(sizes))
        )


@pytest.mark.parametrize("exact", [True, False])
def test_grouping_finds_the_optimum_of_small_fields(exact: bool) -> None:
    rng = random.Random(16)
    for case in range(60):
        n = rng.randint(6, 11)
        k = rng.choice([3, 4, 5, 6])
        sizes = swiss_table_sizes(n, k)
        if len(sizes) < 2:
            continue
        cost = random_history_cost(rng, n, sizes, rng.randint(1, 4))
        tables = group_tables(cost, sizes, random.Random(case), exact=exact)
        assert sorted(p for t in tables for p in t) == list(range(n))
        assert Counter(len(t) for t in tables) == Counter(sizes)
        assert split_cost(cost, tables) == oracle(cost, sizes), (case, n, sizes)


def test_grouping_finds_the_split_with_fewer_rematches_single_swaps_miss() -> None:
    # The example: 10 players at 4 seats, where stopping at the first split that
    # no single swap improves left 3 rematches though 2 suffice.
    rng = random.Random(3)
    worse_than_oracle = 0
    for case in range(40):
        sizes = [4, 3, 3]
        cost = random_history_cost(rng, 10, sizes, 3)
        best = oracle(cost, sizes)
        for exact in (True, False):
            found = split_cost(cost, group_tables(cost, sizes, random.Random(case), exact=exact))
            worse_than_oracle += found != best
    assert worse_than_oracle == 0


@pytest.mark.parametrize(
    ("n", "k", "rounds"), [(18, 3, 5), (24, 4, 4), (36, 6, 3), (30, 5, 4), (40, 4, 6)]
)
def test_grouping_finds_a_planted_rematch_free_split(n: int, k: int, rounds: int) -> None:
    # Dense random history, except that the pairs of one hidden split never met: a
    # rematch-free split exists, and the search must find one.
    rng = random.Random(n * k)
    sizes = swiss_table_sizes(n, k)
    for _ in range(3):
        cost = random_history_cost(rng, n, sizes, rounds)
        hidden = rng.sample(range(n), n)
        start = 0
        for size in sizes:
            table = hidden[start : start + size]
            start += size
            for a, b in itertools.combinations(table, 2):
                cost[a][b] %= REMATCH
                cost[b][a] %= REMATCH
        assert split_count(sizes) > 20_000  # the local search, not the enumeration
        tables = group_tables(cost, sizes, random.Random(1), good_enough=REMATCH)
        assert split_cost(cost, tables) < REMATCH


def test_swiss_round_avoids_every_avoidable_rematch_at_four_seats() -> None:
    # 10 players, 4 seats: each round's split has the fewest rematches the oracle finds.
    rng = random.Random(5)
    names = [f"p{i}" for i in range(10)]
    met: dict[str, Counter[str]] = {name: Counter() for name in names}
    points: Counter[str] = Counter()
    for round_number in range(6):
        players = [SwissPlayer(name, points[name], opponents=dict(met[name])) for name in names]
        rnd = swiss_round(players, 4, seed=round_number)
        index = {name: i for i, name in enumerate(names)}
        rematches = [[int(met[a][b] > 0) for b in names] for a in names]
        found = split_cost(rematches, [[index[p] for p in t] for t in rnd.tables])
        assert found == oracle(rematches, [len(t) for t in rnd.tables])
        for table in rnd.tables:
            for a, b in itertools.combinations(table, 2):
                met[a][b] += 1
                met[b][a] += 1
            for place, name in enumerate(rng.sample(table, len(table))):
                points[name] += len(table) - 1 - place
