"""Simulated Swiss events with bots of known strength: how well do the standings rank them?

Each event draws true ratings (normal, mean 0, spread :data:`SPREAD` Elo) and plays
rounds exactly as the runner pairs them (points, fitted ratings, seat history, the
tournament seed), with finishing orders drawn from the Plackett–Luce model. The same
number of rounds at random tables is the baseline. The final standings of both are one
Bradley–Terry fit, compared with the truth by what a Swiss is for — does it find the
best bot, and the top three — and, over the whole table, by Kendall's τ. The same events also count
rematches and check the seat rules. ``make bench`` prints the table
(``goatarena bench --swiss``); docs/tournaments.md keeps it.
"""

from __future__ import annotations

import math
import random
import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from goatarena.formats.pairing import SwissPlayer, swiss_round
from goatarena.ratings.fit import ELO_PER_NATURAL_LOG, fit_ratings, points_from_ranks
from goatarena.ratings.points import fitted_elo

SPREAD = 200.0
"""The standard deviation of the simulated bots' true ratings, Elo."""


@dataclass
class Event:
    """The running state of one simulated event."""

    names: list[str]
    truth: dict[str, float]
    table_size: int
    seed: int
    games: list[dict[str, int]] = field(default_factory=list)
    points: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    met: dict[str, dict[str, int]] = field(default_factory=lambda: defaultdict(dict))
    seats: dict[str, list[int]] = field(default_factory=dict)
    history: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    byes: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    rematches: int = 0

    def players(self) -> list[SwissPlayer]:
        """The standings as the runner hands them to the pairing, fitted ratings included."""
        ratings = fitted_elo(self.games)
        return [
            SwissPlayer(
                name=name,
                points=self.points[name],
                rating=ratings.get(name, 0.0),
                opponents=dict(self.met[name]),
                seats=self.seats.get(name, [0] * self.table_size),
                byes=self.byes[name],
                seat_history=list(self.history[name]),
            )
            for name in self.names
        ]

    def play(
        self, tables: Sequence[Sequence[str]], byes: Sequence[str], rng: random.Random
    ) -> None:
        """Play one round: a Plackett–Luce finishing order at every table."""
        for name in byes:
            self.byes[name] += 1
            self.points[name] += self.table_size - 1
        for table in tables:
            for seat, name in enumerate(table):
                self.seats.setdefault(name, [0] * self.table_size)[seat] += 1
                self.history[name].append(seat)
                for other in table:
                    if other != name:
                        seen = self.met[name].get(other, 0)
                        self.rematches += seen > 0 and name < other
                        self.met[name][other] = seen + 1
            ranks = plackett_luce(rng, [self.truth[name] for name in table])
            self.games.append(dict(zip(table, ranks, strict=True)))
            for name, gained in zip(table, points_from_ranks(ranks), strict=True):
                self.points[name] += gained


def plackett_luce(rng: random.Random, elos: Sequence[float]) -> list[int]:
    """Finishing ranks (1 best) of players with these true ratings, Plackett–Luce."""
    weight = [math.exp(elo / ELO_PER_NATURAL_LOG) for elo in elos]
    remaining = list(range(len(elos)))
    ranks = [0] * len(elos)
    for place in range(1, len(elos) + 1):
        pick = rng.random() * sum(weight[i] for i in remaining)
        chosen = remaining[-1]
        for i in remaining:
            pick -= weight[i]
            if pick <= 0.0:
                chosen = i
                break
        ranks[chosen] = place
        remaining.remove(chosen)
    return ranks


def kendall_tau(truth: dict[str, float], fitted: dict[str, float]) -> float:
    """Kendall's τ-a between two ratings of the same bots."""
    names = sorted(truth)
    agree = total = 0
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            total += 1
            agree += (truth[a] - truth[b]) * (fitted[a] - fitted[b]) > 0
    return (2 * agree - total) / total if total else 1.0


def new_event(bots: int, table_size: int, seed: int) -> Event:
    """An event of ``bots`` bots whose true ratings are drawn from ``seed``."""
    rng = random.Random(seed)
    names = [f"bot{i:03d}" for i in range(bots)]
    truth = {name: rng.gauss(0.0, SPREAD) for name in names}
    return Event(names=names, truth=truth, table_size=table_size, seed=seed)


def run_swiss(bots: int, table_size: int, rounds: int, seed: int) -> Event:
    """A simulated Swiss event, paired as the runner pairs it."""
    event = new_event(bots, table_size, seed)
    rng = random.Random(seed * 7919 + 1)
    for _ in range(rounds):
        pairing = swiss_round(event.players(), table_size, seed=seed)
        event.play(pairing.tables, pairing.byes, rng)
    return event


def run_random(bots: int, table_size: int, rounds: int, seed: int) -> Event:
    """The same field playing the same number of rounds at random tables."""
    event = new_event(bots, table_size, seed)
    rng = random.Random(seed * 7919 + 2)
    sizes = swiss_round([SwissPlayer(n) for n in event.names], table_size, seed=seed)
    shape = [len(table) for table in sizes.tables]
    for _ in range(rounds):
        order = rng.sample(event.names, len(event.names))
        tables, start = [], 0
        for size in shape:
            tables.append(order[start : start + size])
            start += size
        event.play(tables, order[start:], rng)
    return event


def fitted(event: Event) -> dict[str, float]:
    """The event's final standings: one Bradley–Terry fit of all its games, in Elo."""
    ratings = fit_ratings(event.games)
    return {name: ratings[name].elo for name in event.names}


def tau(event: Event) -> float:
    """Kendall's τ of the event's fitted standings against the truth."""
    return kendall_tau(event.truth, fitted(event))


def top_set(ratings: dict[str, float], k: int) -> frozenset[str]:
    """The ``k`` best by rating; a tie at the cut goes to the earlier name, as a table shows."""
    return frozenset(sorted(ratings, key=lambda name: (-ratings[name], name))[:k])


def finds_top(truth: dict[str, float], ratings: dict[str, float], k: int) -> bool:
    """Whether the fitted top ``k`` are the true top ``k`` (as a set: their order aside)."""
    return top_set(truth, k) == top_set(ratings, k)


@dataclass(frozen=True)
class Accuracy:
    """Mean Kendall τ of Swiss and of random tables over some events, and rematches.

    Each event plays one Swiss and one random-table event on the same true ratings, so
    ``gain`` is the mean of the paired differences and ``gain_stderr`` its standard error
    (what separates a real gain from noise).
    """

    bots: int
    table_size: int
    rounds: int
    swiss_tau: float
    random_tau: float
    swiss_rematches: float
    gain_stderr: float = 0.0
    swiss_best: float = 0.0
    """The share of events whose fitted winner is the true best bot, Swiss."""
    random_best: float = 0.0
    """The same at random tables."""
    swiss_top3: float = 0.0
    """The share of events whose fitted top three are the true top three (as a set), Swiss."""
    random_top3: float = 0.0
    """The same at random tables."""

    @property
    def gain(self) -> float:
        """How much higher the Swiss τ is on average than the random tables' τ."""
        return self.swiss_tau - self.random_tau


def accuracy(bots: int, table_size: int, rounds: int, events: int, seed: int = 0) -> Accuracy:
    """Play ``events`` Swiss and random-table events and average their τ."""
    swiss_taus: list[float] = []
    random_taus: list[float] = []
    rematches: list[int] = []
    found: dict[tuple[str, int], int] = defaultdict(int)
    for e in range(events):
        swiss = run_swiss(bots, table_size, rounds, seed + e)
        at_random = run_random(bots, table_size, rounds, seed + e)
        rematches.append(swiss.rematches)
        for kind, event, taus in (("swiss", swiss, swiss_taus), ("random", at_random, random_taus)):
            ratings = fitted(event)
            taus.append(kendall_tau(event.truth, ratings))
            for k in (1, 3):
                found[kind, k] += finds_top(event.truth, ratings, k)
    gains = [a - b for a, b in zip(swiss_taus, random_taus, strict=True)]
    return Accuracy(
        bots=bots,
        table_size=table_size,
        rounds=rounds,
        swiss_tau=statistics.fmean(swiss_taus),
        random_tau=statistics.fmean(random_taus),
        swiss_rematches=statistics.fmean(rematches),
        gain_stderr=statistics.stdev(gains) / math.sqrt(events) if events > 1 else math.inf,
        swiss_best=found["swiss", 1] / events,
        random_best=found["random", 1] / events,
        swiss_top3=found["swiss", 3] / events,
        random_top3=found["random", 3] / events,
    )
