"""Which seat each player of a Swiss table gets.

Two players (as chess pairing treats colours): a player's *seat difference* is how often
it sat in seat 0 minus seat 1. A player **must** get seat 1 when its difference is 2 or
more (and seat 0 at −2 or less), or the other seat when its last two games were in the
same seat, so that no difference passes 2 and nobody sits in one seat three times
running, wherever the matching can avoid it. Otherwise a player **prefers** the seat
that evens its difference (strongly) or, at difference 0, the seat it did not have last
(mildly). :func:`seat_conflict` tells the matching how badly two players clash; within
a pair the stronger claim wins, then the higher-ranked player, and with no claim at all
(the first round) a lot drawn from the tournament seed decides.

Three to six players: every assignment is tried; the cost, in strict order, is the
sum over the players of how far past 1 apart their seat counts would be (squared), then
how often each has already sat in the seat it gets beyond its least-used seat, then how
many get the seat they had last; ties go to
the first assignment in an order shuffled by the seed.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from typing import Protocol

MUST, STRONG, MILD, NONE = 3, 2, 1, 0
"""The strength of a two-player seat claim."""


class Seated(Protocol):
    """What seating needs to know about a player."""

    @property
    def seats(self) -> Sequence[int]:
        """Games played per seat."""
        ...

    @property
    def seat_history(self) -> Sequence[int]:
        """The seats of its games, oldest first."""
        ...


def lot(seed: int, *parts: object) -> int:
    """A pseudo-random 64-bit number drawn from the seed and ``parts``: ties go by it."""
    text = ":".join(str(part) for part in (seed, *parts))
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


def _count(player: Seated, seat: int) -> int:
    return player.seats[seat] if seat < len(player.seats) else 0


def seat_claim(player: Seated) -> tuple[int, int | None]:
    """A two-player seat claim: (strength, seat), ``(NONE, None)`` when it has none."""
    difference = _count(player, 0) - _count(player, 1)
    history = list(player.seat_history)
    if difference >= 2:
        return MUST, 1
    if difference <= -2:
        return MUST, 0
    if len(history) >= 2 and history[-1] == history[-2] and history[-1] in (0, 1):
        return MUST, 1 - history[-1]
    if difference:
        return STRONG, 1 if difference > 0 else 0
    if history and history[-1] in (0, 1):
        return MILD, 1 - history[-1]
    return NONE, None


def seat_conflict(a: Seated, b: Seated) -> tuple[int, int]:
    """How two players' seat claims clash: (both must have the same seat, both prefer it)."""
    strength_a, seat_a = seat_claim(a)
    strength_b, seat_b = seat_claim(b)
    if seat_a is None or seat_a != seat_b:
        return 0, 0
    if strength_a == MUST and strength_b == MUST:
        return 1, 0
    return 0, 1


def seat_pair(high: Seated, low: Seated, coin: int) -> bool:
    """True when the higher-ranked player of a pair takes seat 0.

    The stronger claim is granted; on equal claims the higher-ranked player's; when
    neither player has a claim, ``coin`` (a lot from the seed) decides.
    """
    strength_h, seat_h = seat_claim(high)
    strength_l, seat_l = seat_claim(low)
    if seat_h is None and seat_l is None:
        return coin % 2 == 0
    if seat_l is None or (seat_h is not None and strength_h >= strength_l):
        return seat_h == 0
    return seat_l == 1


def seat_table(players: Sequence[Seated], shuffle: int) -> list[int]:
    """The seat of each player at a table of three to six (see the module docstring).

    ``shuffle`` (a lot from the seed) orders the assignments tried, so that ties do not
    follow the standings or the names.
    """
    k = len(players)
    cells = []
    for player in players:
        row = [_count(player, s) for s in range(k)]
        last = player.seat_history[-1] if player.seat_history else -1
        low = min(row)
        cells.append(
            [(_excess(row, seat), row[seat] - low, int(last == seat)) for seat in range(k)]
        )
    perms = list(itertools.permutations(range(k)))
    start = shuffle % len(perms)
    best: tuple[int, ...] = perms[start]
    best_cost: tuple[int, int, int] | None = None
    for perm in perms[start:] + perms[:start]:
        picked = [cells[i][seat] for i, seat in enumerate(perm)]
        cost = (
            sum(c[0] for c in picked),
            sum(c[1] for c in picked),
            sum(c[2] for c in picked),
        )
        if best_cost is None or cost < best_cost:
            best, best_cost = perm, cost
    return list(best)


def _excess(row: list[int], seat: int) -> int:
    """How far past 1 apart the seat counts are after taking ``seat``, squared."""
    after = [c + (s == seat) for s, c in enumerate(row)]
    return max(0, max(after) - min(after) - 1) ** 2
