"""The Swiss part of ``make bench``: accuracy, rematches, seat rules and pairing time.

- **Finding the top**: how often the final standings' winner is the true best bot and
  their top three the true top three — what a Swiss is for — and, for information, Kendall
  τ of the whole table against the true order; Swiss and random tables with the same
  games, at 16, 32 and 64 bots and 2, 3, 4 and 6 seats (:mod:`.swiss_sim`), at the
  default number of rounds and at the textbook ``ceil(log_k N) + 2`` it replaced.
- **Rematches**: simulated events at 18 bots (4 and 6 seats) and 36 bots (6 seats), of
  ``ceil(log_k N) + 2`` rounds (the shorter default these were first measured at); each
  round's split is checked by an exact branch and bound for the fewest rematches
  possible, and every rematch beyond that counts as *avoidable*; a round whose proof
  runs out of its budget is counted as unproven and compared with 10 independent local
  searches each 5 times longer than the pairing's (the best they find counts instead).
- **Seats**: two- and four-player events: the largest spread of a bot's seat counts,
  bots that sat in one seat three games running, and the share of seat 0 for the
  alphabetically first and second halves of the field (a name bias would show here).
- **Time**: the slowest round when pairing 256 bots, per table size, the standings'
  rating fit included.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from goatarena.bench.swiss_sim import Accuracy, Event, accuracy, new_event, run_swiss
from goatarena.formats.grouping import group_tables, split_cost
from goatarena.formats.pairing import default_swiss_rounds, swiss_depth, swiss_round

Say = Callable[[str], None]


@dataclass(frozen=True)
class SwissBenchSizes:
    """How many simulated events each measurement averages."""

    accuracy_events: int
    rematch_events: int
    seat_events: int


FULL = SwissBenchSizes(accuracy_events=60, rematch_events=6, seat_events=20)
QUICK = SwissBenchSizes(accuracy_events=6, rematch_events=3, seat_events=8)


def run_swiss_bench(sizes: SwissBenchSizes, say: Say) -> Iterator[str]:
    """Run every Swiss measurement; each section's report as text, as it finishes."""
    yield _rematch_table(sizes.rematch_events, say)
    yield _seat_table(sizes.seat_events, say)
    yield _timing_table(say)
    results = _accuracy_results(sizes.accuracy_events, say)
    yield _top_table(sizes.accuracy_events, results)
    yield _tau_table(sizes.accuracy_events, results)


def _accuracy_results(events: int, say: Say) -> list[Accuracy]:
    """Swiss against random tables at equal games, every field size and table size."""
    results = []
    for bots, seats in itertools.product((16, 32, 64), (2, 3, 4, 6)):
        events_here = events if bots < 64 else max(2, events // 3)  # 64 bots: slow fits
        # the default and the textbook ceil(log_k N) + 2, which it replaced
        for rounds in (default_swiss_rounds(bots, seats), swiss_depth(bots, seats) + 2):
            say(f"accuracy: {bots} bots, {seats} seats, {rounds} rounds")
            results.append(accuracy(bots, seats, rounds, events_here))
    return results


def _top_table(events: int, results: Sequence[Accuracy]) -> str:
    lines = [
        f"finding the top ({events} events each, a third of that at 64 bots; true ratings ~"
        " N(0, 200) Elo): how often the standings' winner is the true best bot, and their"
        " top three the true top three, Swiss and random tables with the same games",
        "bots  seats  rounds  best: swiss  random  top 3: swiss  random",
    ]
    for result in results:
        lines.append(
            f"{result.bots:4d}  {result.table_size:5d}  {result.rounds:6d}"
            f"  {result.swiss_best:11.0%}  {result.random_best:6.0%}"
            f"  {result.swiss_top3:12.0%}  {result.random_top3:6.0%}"
        )
    return "\n".join(lines)


def _tau_table(events: int, results: Sequence[Accuracy]) -> str:
    lines = [
        f"the whole table, for information: Kendall τ against the truth ({events} events each,"
        " a third of that at 64 bots); gain: the mean paired difference, Swiss and random"
        " tables on the same true ratings, and its standard error",
        "bots  seats  rounds   swiss τ  random τ     gain  ± s.e.  rematches/event",
    ]
    for result in results:
        lines.append(
            f"{result.bots:4d}  {result.table_size:5d}  {result.rounds:6d}  {result.swiss_tau:8.3f}"
            f"  {result.random_tau:8.3f}  {result.gain:+7.3f}  {result.gain_stderr:6.3f}"
            f"  {result.swiss_rematches:15.1f}"
        )
    return "\n".join(lines)


def _rematch_table(events: int, say: Say) -> str:
    lines = [
        f"rematches ({events} events each): rematched pairs per event, avoidable ones",
        "bots  seats  rounds  rematched  avoidable  unproven rounds (of them beaten by a"
        " longer search)",
    ]
    for bots, seats in ((18, 4), (18, 6), (36, 6)):
        rounds = swiss_depth(bots, seats) + 2  # the rounds the rematches were first measured at
        say(f"rematches: {bots} bots, {seats} seats")
        rematched = avoidable = unproven = beaten = 0
        for seed in range(events):
            event = new_event(bots, seats, seed)
            rng = random.Random(seed * 7919 + 1)
            for _ in range(rounds):
                pairing = swiss_round(event.players(), seats, seed=seed)
                found = _rematches(event, pairing.tables)
                if found:
                    best = min_rematches(event, [len(t) for t in pairing.tables],
                                         [n for t in pairing.tables for n in t], found)  # fmt: skip
                    if best is None:
                        unproven += 1
                        best = _searched_rematches(event, pairing.tables)
                        beaten += best < found
                    avoidable += found - best
                rematched += found
                event.play(pairing.tables, pairing.byes, rng)
        lines.append(
            f"{bots:4d}  {seats:5d}  {rounds:6d}  {rematched / events:9.1f}"
            f"  {avoidable / events:9.1f}  {unproven:15d} ({beaten})"
        )
    return "\n".join(lines)


def _seat_table(events: int, say: Say) -> str:
    lines = [
        f"seats ({events} events each): the largest spread of a bot's seat counts, bots in one"
        " seat three games running, seat 0's share for the first and second half by name",
        "bots  seats  rounds  max spread  three running  seat 0 (first half)  (second half)",
    ]
    for bots, seats in ((16, 2), (32, 2), (16, 4), (32, 4)):
        rounds = default_swiss_rounds(bots, seats)
        say(f"seats: {bots} bots, {seats} seats")
        worst = runs = 0
        first = second = total_first = total_second = 0
        for seed in range(events):
            event = run_swiss(bots, seats, rounds, seed)
            names = sorted(event.names)
            for index, name in enumerate(names):
                counts = event.seats.get(name, [0] * seats)
                worst = max(worst, max(counts) - min(counts))
                history = event.history[name]
                runs += any(len(set(history[i : i + 3])) == 1 for i in range(len(history) - 2))
                if index < len(names) // 2:
                    first, total_first = first + counts[0], total_first + sum(counts)
                else:
                    second, total_second = second + counts[0], total_second + sum(counts)
        lines.append(
            f"{bots:4d}  {seats:5d}  {rounds:6d}  {worst:10d}  {runs:13d}"
            f"  {first / total_first:19.3f}  {second / total_second:13.3f}"
        )
    return "\n".join(lines)


def _timing_table(say: Say) -> str:
    lines = [
        "pairing 256 bots: the slowest round of an event, the rating fit included (seconds)",
        "seats  slowest",
    ]
    for seats in (2, 3, 4, 6):
        say(f"timing: 256 bots, {seats} seats")
        event = new_event(256, seats, 1)
        rng = random.Random(1)
        slowest = 0.0
        for _ in range(default_swiss_rounds(256, seats)):
            start = time.perf_counter()
            pairing = swiss_round(event.players(), seats, seed=1)
            slowest = max(slowest, time.perf_counter() - start)
            event.play(pairing.tables, pairing.byes, rng)
        lines.append(f"{seats:5d}  {slowest:7.2f}")
    return "\n".join(lines)


def _rematches(event: Event, tables: Sequence[Sequence[str]]) -> int:
    return sum(
        event.met[a].get(b, 0) > 0 for table in tables for a, b in itertools.combinations(table, 2)
    )


def _searched_rematches(event: Event, tables: Sequence[Sequence[str]]) -> int:
    """The fewest rematched pairs 10 independent, 5 times longer local searches find."""
    seated = [name for table in tables for name in table]
    clash = [[int(a != b and event.met[a].get(b, 0) > 0) for b in seated] for a in seated]
    sizes = [len(table) for table in tables]
    return min(
        split_cost(clash, group_tables(clash, sizes, random.Random(s), exact=False,
                                       kicks=30 * len(seated)))
        for s in range(10)
    )  # fmt: skip


NODE_LIMIT = 3_000_000
"""How many candidate tables the exact rematch count may weigh before giving up."""


def min_rematches(
    event: Event, sizes: Sequence[int], seated: Sequence[str], upper: int
) -> int | None:
    """The fewest rematched pairs of any split of ``seated`` into tables of ``sizes``.

    Branch and bound: seat the first unseated player with every choice of companions,
    pruned by the rematches so far; ``upper`` is a known split's count. None when the
    search needs more than :data:`NODE_LIMIT` nodes.
    """
    n = len(seated)
    clash = [[int(event.met[a].get(b, 0) > 0) for b in seated] for a in seated]
    best = upper
    nodes = 0
    open_sizes = sorted(sizes, reverse=True)

    def extend(free: list[int], left: list[int], so_far: int) -> bool:
        nonlocal best, nodes
        if not free:
            best = min(best, so_far)
            return True
        first, rest = free[0], free[1:]
        for size in sorted(set(left), reverse=True):
            remaining = list(left)
            remaining.remove(size)
            for others in itertools.combinations(rest, size - 1):
                nodes += 1
                if nodes > NODE_LIMIT:
                    return False
                members = (first, *others)
                added = sum(clash[a][b] for a, b in itertools.combinations(members, 2))
                if so_far + added >= best:
                    continue
                if not extend([p for p in rest if p not in others], remaining, so_far + added):
                    return False
        return True

    return best if extend(list(range(n)), open_sizes, 0) else None
