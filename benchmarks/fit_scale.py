"""How the rating fit scales: one fit with 95 % intervals of fields of 256 to 10,000 bots.

Each bot plays ``--games`` games (default 20; 50 for the 10,000-bot field, as the scale
goals state) at tables of ``--players`` (default 4) drawn at random, with finishing orders
from the Plackett–Luce model; the games are tallied (``ratings.tally``) and fitted once,
with seat terms, as ``standings`` does. Prints wall and CPU time and peak RSS per size.
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from goatarena.ratings.fit import fit_tally  # noqa: E402
from goatarena.ratings.tally import PairTally  # noqa: E402


def field(bots: int, games_each: int, players: int, seed: int = 1) -> PairTally:
    """A tally of random games: every bot seated ``games_each`` times."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(0.0, 1.0, bots)
    tally = PairTally()
    names = [f"bot{number:05d}" for number in range(bots)]
    tables = bots * games_each // players
    chooser = random.Random(seed)
    for _ in range(tables):
        seats = chooser.sample(range(bots), players)
        noise = rng.gumbel(size=players)
        order = np.argsort(-(strength[seats] + noise))
        ranks = [0] * players
        for place, seat in enumerate(order, 1):
            ranks[seat] = place
        tally.add([names[s] for s in seats], ranks, "game")
    return tally


def main() -> None:
    """Fit each size once and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, nargs="*", default=[256, 1000, 10000])
    parser.add_argument("--games", type=int, default=None, help="games per bot")
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    print(f"{'bots':>6} {'games':>7} {'wall s':>7} {'cpu s':>7} {'peak RSS MB':>12}")
    for bots in args.bots:
        each = args.games or (50 if bots >= 10_000 else 20)
        tally = field(bots, each, args.players)
        wall, cpu = time.perf_counter(), time.process_time()
        result = fit_tally(tally)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        assert len(result.ratings) == bots
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"{bots:>6} {tally.games:>7} {wall:>7.2f} {cpu:>7.2f} {peak:>12.0f}", flush=True)


if __name__ == "__main__":
    main()
