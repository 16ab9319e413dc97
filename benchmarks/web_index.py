"""The site's in-memory game index at many bots (``make bench`` runs it): the memory it
holds and how long it takes to fill, and what a bot's page and the head-to-head table
ask of it, for ``--games`` games of four seats among ``--bots`` bots.

The games are summaries made up on the spot (a random seating, random ranks, a
violation now and then: all the index reads of a game), fed to
:class:`goatarena.web.index.GameIndex` in this process and measured by its resident
memory before and after (Python's and numpy's allocations alike), so that nothing
but the index is counted. Each bot meets every other many times, the case where a
table per pair of bots would cost most.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from goatarena.bench.synthetic import bot_names  # noqa: E402
from goatarena.games import GAMES  # noqa: E402
from goatarena.store.summary import GameSummary  # noqa: E402
from goatarena.web.follow import BATCH  # noqa: E402
from goatarena.web.index import GameIndex  # noqa: E402

GOAL = "memory grows with games and bots, not with pairs of bots: <= 100 MB held"


def resident_mb() -> float:
    """This process's resident memory, MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def summaries(games: int, bots: int, seed: int = 1):  # noqa: ANN201 - a generator
    """``games`` made-up summaries of four seats among ``bots`` bots."""
    chooser = random.Random(seed)
    names = bot_names(bots)
    kinds = sorted(GAMES)
    for number in range(1, games + 1):
        ranks = [1, 2, 3, 4]
        chooser.shuffle(ranks)
        violations = [["timeout"] if chooser.random() < 0.02 else [] for _ in range(4)]
        yield number, GameSummary(key=f"k/{number}/r0", round=0, game=kinds[number % len(kinds)],
                                  seed=number, players=chooser.sample(names, 4), ranks=ranks,
                                  scores=[0.0] * 4, violations=violations, forfeits=[None] * 4,
                                  latency=[None] * 4, decisions=0, duration_s=0.0,
                                  finished_at=0.0)  # fmt: skip


def timed_ms(work, repeats: int) -> list[float]:  # noqa: ANN001 - any callable
    """Milliseconds of each of ``repeats`` calls of ``work``."""
    times = []
    for _ in range(repeats):
        began = time.perf_counter()
        work()
        times.append((time.perf_counter() - began) * 1e3)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--bots", type=int, default=1_000)
    args = parser.parse_args()
    gc.collect()
    before = resident_mb()
    index = GameIndex()
    began = time.perf_counter()
    fed = 0.0
    batch = []
    for game in summaries(args.games, args.bots):
        batch.append(game)
        if len(batch) == BATCH or game[0] == args.games:
            start = time.perf_counter()
            with index.lock:  # a batch at a time, as the site reads the store
                index.add_all(batch)
            fed += time.perf_counter() - start
            batch = []
    total = time.perf_counter() - began
    gc.collect()
    held = resident_mb() - before
    arrays = f", its arrays {index.nbytes() / 2**20:.0f} MB"
    print(f"index: {args.games:,} games, {args.bots:,} bots: {held:.0f} MB held"
          f" ({held * 2**20 / args.games:.0f} bytes a game{arrays}), fed in {fed:.1f} s"
          f" (with making the games up: {total:.1f} s)   goal {GOAL}")  # fmt: skip
    names = bot_names(args.bots)
    for what, work in [
        ("a bot's results per opponent", lambda: index.opponents(names[-1])),
        ("head to head of 40 bots", lambda: index.head_to_head(names[:40])),
    ]:
        first = timed_ms(work, 1)[0]  # counted from the bots' games; then kept
        again = statistics.median(timed_ms(work, 5))
        print(f"{what}: {first:.1f} ms first, {again:.1f} ms asked again")


if __name__ == "__main__":
    main()
