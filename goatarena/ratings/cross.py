"""Head-to-head tables from a tally's pair counts: each bot's points against each other
bot (1 for finishing ahead, ½ for a tie) and their meetings, overall and per seat key.

The counts are already in the :class:`~goatarena.ratings.tally.PairTally` every reader
keeps for the fit, so the table costs nothing per game: it is made once, at the end,
in time and memory by the pairs.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from goatarena.ratings.tally import PairTally

Cells = dict[tuple[str, str], list[float]]
"""``cells[a, b] = [a's points against b, games of the two]``, both ways round."""


def head_to_head(tally: PairTally, keys: Collection[str] | None = None) -> Cells:
    """The head-to-head cells of the tally's games whose seat key is in ``keys`` (all
    games when None)."""
    cells = tally.cells()
    chosen = np.ones(len(cells.i), dtype=bool)
    if keys is not None:
        wanted = [number for number, (key, _) in enumerate(tally.families) if key in keys]
        chosen = np.isin(cells.family, wanted)
    bots = len(tally.names)
    codes = cells.i[chosen] * bots + cells.j[chosen]
    counts = cells.counts[chosen]
    if not len(codes):
        return {}
    pairs, inverse = np.unique(codes, return_inverse=True)
    inverse = inverse.ravel()
    ahead, tied, behind = (
        np.bincount(inverse, weights=counts[:, column], minlength=len(pairs)) for column in range(3)
    )
    names = tally.names
    table: Cells = {}
    for code, first, tie, second in zip(
        pairs.tolist(), ahead.tolist(), tied.tolist(), behind.tolist(), strict=True
    ):
        a, b = names[code // bots], names[code % bots]
        games = first + tie + second
        table[a, b] = [first + tie / 2, games]
        table[b, a] = [second + tie / 2, games]
    return table
