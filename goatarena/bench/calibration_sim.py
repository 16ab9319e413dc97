"""Simulated events of bots of known strength, for the calibration of the ratings.

Eight bots of known strength (−210 … +210 Elo) play tables of ``k`` seats with known seat
advantages; a finishing order is Plackett–Luce, drawn as the order of ``u + G`` (``u`` the
bot's strength plus its seat's advantage, ln γ units; ``G`` standard Gumbel noise, which
gives exactly the Plackett–Luce chances). Used by ``benchmarks/calibration.py`` (the table
in docs/ratings.md) and by the suite's calibration tests.

- **Ties**: neighbours in the finishing order are *linked* with chance ``q`` each, and a
  run of linked finishers is one tie (competition ranks: the bots below keep their
  places). :func:`linking_chance` finds the ``q`` that gives a share of tied pairs. Such
  ties do not depend on who finished where, so they pull every expected score towards a
  half: the truth the intervals are held to is then the rating an infinite event would
  give (:func:`effective_truth`, each fit's own; without ties it is the strengths). Ties
  that leave the expected scores alone exist only up to about 28 % of the pairs at two
  seats with this field (a pair 420 Elo apart cannot tie more than 16 % of the time and
  still score 92 %), 20 % at four and 17 % at six.
- **Deal luck**: a deal is all ``k`` rotations of one table (every bot in every seat).
  With luck, the noise of seat ``s`` is shared by the deal's rotations through a Gaussian
  copula: ``G = −ln(−ln Φ(ρ·Z_s + √(1−ρ²)·Z))``, ``Z_s`` the deal's and ``Z`` the game's.
  Each game is still exactly Plackett–Luce (its noises are independent standard Gumbels),
  so the truth stays the strengths, but the deal favours whoever holds seat ``s``; with
  ``ρ² = 1/3`` (:data:`STRONG_LUCK`) the deal explains a third of the latent variance.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from statistics import NormalDist

from goatarena.ratings.fit import ELO_PER_NATURAL_LOG, fit

BOTS = 8
TRUE_ELO = [-210.0, -150.0, -90.0, -30.0, 30.0, 90.0, 150.0, 210.0]
SEAT_ELO = {  # the true advantage of each seat over the average seat, Elo
    2: [35.0, -35.0],
    3: [40.0, 0.0, -40.0],
    4: [45.0, 15.0, -15.0, -45.0],
    6: [50.0, 30.0, 10.0, -10.0, -30.0, -50.0],
}
STRONG_LUCK = math.sqrt(1.0 / 3.0)
"""The copula correlation ρ at which the deal explains a third of the latent variance."""
TRUTH_GAMES = 100_000
"""Games of the event that stands in for an infinite one (:func:`effective_truth`)."""

_NORMAL = NormalDist()
Game = dict[str, int]


def truth() -> dict[str, float]:
    """Every bot's true Elo (mean 1500)."""
    return {f"b{b}": 1500.0 + elo for b, elo in enumerate(TRUE_ELO)}


def finish(
    utilities: Sequence[float], noise: Sequence[float], link: float, rng: random.Random
) -> list[int]:
    """Competition ranks in seat order: the order of ``utilities + noise``, neighbours
    linked into ties with chance ``link`` each."""
    order = sorted(range(len(utilities)), key=lambda s: -(utilities[s] + noise[s]))
    ranks = [0] * len(order)
    for position, seat in enumerate(order):
        linked = position and rng.random() < link
        ranks[seat] = ranks[order[position - 1]] if linked else position + 1
    return ranks


def gumbel(rng: random.Random) -> float:
    """One standard Gumbel variate."""
    return -math.log(-math.log(1.0 - rng.random()))


def seated_game(rng: random.Random, k: int, link: float = 0.0) -> Game:
    """One game at a random table of ``k``: name -> rank, in seat order."""
    table = rng.sample(range(BOTS), k)
    utilities = [(TRUE_ELO[b] + SEAT_ELO[k][s]) / ELO_PER_NATURAL_LOG for s, b in enumerate(table)]
    ranks = finish(utilities, [gumbel(rng) for _ in table], link, rng)
    return {f"b{table[s]}": ranks[s] for s in range(k)}


def deal(rng: random.Random, k: int, link: float = 0.0, luck: float = 0.0) -> list[Game]:
    """All ``k`` rotations of one deal of ``k`` random bots (bots in seat order), the
    seats' noise shared by the rotations with copula correlation ``luck``."""
    table = rng.sample(range(BOTS), k)
    shared = [rng.gauss(0.0, 1.0) for _ in range(k)]
    games = []
    for turn in range(k):
        seated = table[turn:] + table[:turn]
        utilities = [(TRUE_ELO[b] + SEAT_ELO[k][s]) / ELO_PER_NATURAL_LOG
                     for s, b in enumerate(seated)]  # fmt: skip
        noise = [gumbel(rng) for _ in range(k)]
        for s in range(k) if luck else ():
            z = luck * shared[s] + math.sqrt(1.0 - luck * luck) * rng.gauss(0.0, 1.0)
            u = min(max(_NORMAL.cdf(z), 1e-300), 1.0 - 1e-16)
            noise[s] = -math.log(-math.log(u))
        ranks = finish(utilities, noise, link, rng)
        games.append({f"b{seated[s]}": ranks[s] for s in range(k)})
    return games


def tied_pair_share(k: int, link: float) -> float:
    """The expected share of tied pairs when neighbours link with chance ``link``: a pair
    ``d`` places apart ties when the ``d`` links between them all hold."""
    pairs = k * (k - 1) / 2
    return sum((k - d) * link**d for d in range(1, k)) / pairs


def linking_chance(k: int, share: float) -> float:
    """The linking chance that ties ``share`` of the pairs at tables of ``k``."""
    low, high = 0.0, 1.0
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if tied_pair_share(k, middle) < share else (low, middle)
    return (low + high) / 2


def tie_share(games: Sequence[Game]) -> float:
    """The share of pairwise results that are ties."""
    tied = pairs = 0
    for game in games:
        ranks = list(game.values())
        for x in range(len(ranks)):
            for y in range(x + 1, len(ranks)):
                pairs += 1
                tied += ranks[x] == ranks[y]
    return tied / pairs


def effective_truth(
    k: int, link: float, *, exact: bool, games: int = TRUTH_GAMES, seed: int = 1
) -> dict[str, float]:
    """The ratings an infinite event of tables of ``k`` with linking chance ``link``
    would give one fit (the exact one or the pairwise one): the fit of ``games`` games
    (the strengths themselves without ties, where both fits find them)."""
    if not link:
        return truth()
    rng = random.Random(seed)
    played = [game for _ in range(games // k) for game in deal(rng, k, link)]
    result = fit(played, seat_keys=["g"] * len(played), exact=exact)
    return {name: rating.elo for name, rating in result.ratings.items()}
