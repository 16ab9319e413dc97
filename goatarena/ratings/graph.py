"""Which bots the games connect, and whether their plain maximum-likelihood ratings exist."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

import networkx as nx
import numpy as np
import numpy.typing as npt
import scipy.sparse
from scipy.sparse.csgraph import connected_components

Game = Mapping[str, int]
IntArray = npt.NDArray[np.int64]


class CountedCells(Protocol):
    """What :func:`check_finite_cells` reads of a tally's cells (bots i < j by name
    order, and how often i finished ahead, tied, behind)."""

    @property
    def i(self) -> IntArray: ...
    @property
    def j(self) -> IntArray: ...
    @property
    def counts(self) -> IntArray: ...


def groups_of_cells(names: Sequence[str], i: IntArray, j: IntArray) -> tuple[tuple[str, ...], ...]:
    """The bots connected by games (pairs ``i``-``j`` that met; numbers into ``names``),
    largest group first (then by first name), as :func:`groups_of` gives them."""
    size = len(names)
    graph = scipy.sparse.coo_array((np.ones(len(i)), (i, j)), shape=(size, size))
    count, labels = connected_components(graph, directed=False)
    members: list[list[str]] = [[] for _ in range(count)]
    for name, label in zip(names, labels, strict=True):
        members[label].append(name)
    groups = [tuple(group) for group in members]  # names are sorted, so each group is
    return tuple(sorted(groups, key=lambda group: (-len(group), group)))


def check_finite_cells(
    names: Sequence[str], cells: CountedCells, groups: Sequence[Sequence[str]]
) -> None:
    """:func:`check_finite` for the cells of a tally."""
    games = []
    for i, j, (ahead, tie, behind) in zip(cells.i, cells.j, cells.counts, strict=True):
        a, b = names[int(i)], names[int(j)]
        if tie or (ahead and behind):
            games.append({a: 1, b: 1})
            continue
        if ahead:
            games.append({a: 1, b: 2})
        if behind:
            games.append({a: 2, b: 1})
    check_finite(names, games, groups)


def groups_of(names: Sequence[str], games: Sequence[Game]) -> tuple[tuple[str, ...], ...]:
    """The bots connected by games, largest group first (then by first name)."""
    graph: nx.Graph = nx.Graph()
    graph.add_nodes_from(names)
    for game in games:
        bots = list(game)
        graph.add_edges_from((bots[0], other) for other in bots[1:])
    groups = [tuple(sorted(group)) for group in nx.connected_components(graph)]
    return tuple(sorted(groups, key=lambda group: (-len(group), group)))


def check_finite(
    names: Sequence[str], games: Sequence[Game], groups: Sequence[Sequence[str]]
) -> None:
    """Say why the plain maximum-likelihood ratings do not exist, if they do not.

    They exist exactly when the games connect all bots and every bot can be reached from
    every other by a chain of "scored a point against" (a win or a tie): otherwise some
    group of bots scored every point against the rest, and its ratings run off to infinity.
    """
    if len(groups) > 1:
        listed = " | ".join(", ".join(group) for group in groups)
        raise ValueError(
            f"the games do not connect all bots: {len(groups)} groups never met ({listed});"
            " fit with prior_draws > 0"
        )
    scored: nx.DiGraph = nx.DiGraph()
    scored.add_nodes_from(names)
    for game in games:
        for a, rank_a in game.items():
            for b, rank_b in game.items():
                if a != b and rank_a <= rank_b:
                    scored.add_edge(a, b)
    if len(names) < 2 or nx.is_strongly_connected(scored):
        return
    condensed = nx.condensation(scored)
    members = condensed.graph["mapping"]
    top = [c for c in condensed if condensed.in_degree(c) == 0]
    winners = sorted(name for name in names if members[name] in top)
    if len(winners) == 1:
        reason = f"{winners[0]} never lost a point"
    else:
        reason = f"{', '.join(winners)} never lost a point to the other bots"
    raise ValueError(
        f"the ratings are infinite without the prior: {reason}; fit with prior_draws > 0"
    )
