"""Head-to-head tables from a tally's pair counts equal counting each game's pairs."""

from __future__ import annotations

import random

import pytest

from goatarena.ratings.cross import head_to_head
from goatarena.ratings.tally import PairTally


def counted(games, keys=None):
    """The table by hand: every ordered pair of every game, ties half a point."""
    table: dict[tuple[str, str], list[float]] = {}
    for key, players, ranks in games:
        if keys is not None and key not in keys:
            continue
        for a, rank_a in zip(players, ranks, strict=True):
            for b, rank_b in zip(players, ranks, strict=True):
                if a != b:
                    cell = table.setdefault((a, b), [0.0, 0.0])
                    cell[0] += 1.0 if rank_a < rank_b else 0.5 if rank_a == rank_b else 0.0
                    cell[1] += 1
    return table


@pytest.mark.parametrize("seed", range(5))
def test_head_to_head_is_each_games_pairs_counted(seed):
    rng = random.Random(seed)
    bots = [f"b{number}" for number in range(rng.randint(2, 12))]
    games = []
    for _ in range(rng.randint(1, 400)):
        seats = rng.randint(2, min(6, len(bots)))
        players = rng.sample(bots, seats)
        ranks = sorted(rng.randint(1, seats) for _ in players)  # ties where ranks repeat
        rng.shuffle(ranks)
        games.append((rng.choice(["mountain-goats", "goat-lords"]), players, ranks))
    tally = PairTally()
    for key, players, ranks in games:
        tally.add(players, ranks, key)
    assert head_to_head(tally) == counted(games)
    assert head_to_head(tally, {"goat-lords"}) == counted(games, {"goat-lords"})
    assert head_to_head(tally, {"no such game"}) == {}
