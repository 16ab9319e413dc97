"""Choosing a ladder's next table: pure functions of the bots' state and the seed.

The rule, in order (the first that applies chooses the table):

1. **Newcomers first.** An active bot with fewer than ``min_games`` games seeds the
   table (the one with fewest games; the first name among equals); its opponents are
   drawn from the ``near`` bots rated nearest to it, closer ones likelier. Its estimate
   moves with each result, so its opponents close in on its level.
2. **No bot starved.** A bot with fewer than ``floor`` times the mean games of the
   active bots seeds the table, opponents as for a newcomer.
3. **Exploration.** With probability ``explore`` the seed is drawn uniformly, opponents
   as above: every part of the table keeps meeting its neighbours.
4. **Information.** Otherwise the table is built around a pair of bots whose order is
   open: for bots at most ``window`` places apart in the current order, the pair's value
   is ``(w(rank) + boundary_weight · crossing) · P(order wrong)``, with ``P(order wrong)
   = Φ(−|Δ| / sqrt(σ_a² + σ_b²))``, ``w(rank) = 1 + top_weight · exp(−rank / top_span)``
   (rank 0 is the leader) and ``crossing`` how open either bot's place in the top
   ``top_k`` is. A pair is drawn with probability proportional to its value raised to
   ``sharpness`` (a draw, not the maximum: the estimates are refreshed only every few
   tables). At larger tables each further seat goes to the bot, among those at most
   ``seat_span`` places from the pair, that adds the most value of open pairs with
   those seated (the first in the order among equals): all six comparisons of a
   four-seat table go where the order is open.

This is active ranking (Heckel et al., 2019), with a floor that keeps every estimate
alive. A choice is a set of bots, played in every seat rotation as one deal; it is a
function of the contenders (games, counting tables in flight, and estimates), the plan
of pairs from the last refresh, the seed and the table's index, and reads only the few
bots it considers and a few summaries, so that its cost does not grow with the ladder.
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist, fmean
from typing import Protocol

_NORMAL = NormalDist()
_SQRT2 = math.sqrt(2.0)
NEAR_SPREAD_ELO = 50.0
"""The width added to an opponent draw's uncertainty: even a settled bot meets a spread."""


@dataclass(frozen=True)
class Contender:
    """An active bot as the matchmaker sees it: games (played and in flight), estimate."""

    name: str
    games: int
    elo: float
    stderr: float


class Field(Protocol):
    """The active bots as the rule reads them: each on demand, and the few summaries it
    needs (a long-running ladder keeps these up to date as games come in, instead of
    listing a thousand bots before every table)."""

    def __len__(self) -> int:
        """How many bots are active."""
        ...

    def names(self) -> Sequence[str]:
        """The active bots' names, sorted."""
        ...

    def contender(self, name: str) -> Contender:
        """One active bot."""
        ...

    def fewest(self) -> Contender:
        """The active bot with the fewest games (the first name among equals)."""
        ...

    def mean_games(self) -> float:
        """The mean games of the active bots."""
        ...


class ContenderList:
    """A :class:`Field` from a list of contenders (each summary computed when asked)."""

    def __init__(self, contenders: Sequence[Contender]) -> None:
        self._by_name = {bot.name: bot for bot in contenders}
        self._names = sorted(self._by_name)

    def __len__(self) -> int:
        return len(self._names)

    def names(self) -> Sequence[str]:
        """The bots' names, sorted."""
        return self._names

    def contender(self, name: str) -> Contender:
        """One bot."""
        return self._by_name[name]

    def fewest(self) -> Contender:
        """The bot with the fewest games."""
        return min(self._by_name.values(), key=lambda bot: (bot.games, bot.name))

    def mean_games(self) -> float:
        """The mean games of the bots."""
        return fmean(bot.games for bot in self._by_name.values())


@dataclass(frozen=True)
class MatchRules:
    """The matchmaking rule's settings (see the module docstring for what each does)."""

    min_games: int = 5
    floor: float = 0.7
    explore: float = 0.15
    window: int = 4
    top_weight: float = 4.0
    top_span: float = 3.0
    top_k: int = 3
    boundary_weight: float = 4.0
    sharpness: float = 3.0
    near: int = 16
    seat_span: int = 6


@dataclass(frozen=True)
class TableChoice:
    """One chosen table: its bots (seat order of the first rotation), rule and reason."""

    bots: tuple[str, ...]
    rule: str
    reason: str


@dataclass(frozen=True)
class PairPlan:
    """The ladder's order at the last refresh and the value of each open pair in it.

    ``order`` runs from the best estimate down, ``elos`` holds the estimates ascending
    (for looking up the bots nearest a rating), ``crossing`` how open each place of
    ``order`` in the top ``top_k`` is, ``pairs`` index ``order`` and ``cumulative`` holds
    the running sum of the pairs' drawing weights.
    """

    order: tuple[str, ...]
    crossing: tuple[float, ...]
    ascending: tuple[str, ...]
    elos: tuple[float, ...]
    pairs: tuple[tuple[int, int], ...]
    values: tuple[float, ...]
    cumulative: tuple[float, ...]


def default_rules(players: int) -> MatchRules:
    """The rule's settings for tables of ``players``: at more than two seats a deal is
    ``players`` games for each bot seated, so newcomers need fewer of them and the floor
    and the exploration can leave more to the open pairs (tuned in simulation). At two
    seats opponents are drawn from the 16 rated nearest (a newcomer meets more of them,
    so their own errors average out), at more from the 8 nearest."""
    if players <= 2:
        return MatchRules()
    return MatchRules(min_games=3, floor=0.6, explore=0.1, near=8)


def order_open(a: Contender, b: Contender) -> float:
    """The probability that the estimates order ``a`` and ``b`` wrongly (at most 0.5)."""
    return _wrong_order(a.elo - b.elo, math.hypot(a.stderr, b.stderr))


def _wrong_order(gap: float, spread: float) -> float:
    """``Φ(−|gap| / spread)``: the chance that a gap this size has the wrong sign."""
    if spread == 0.0 or not math.isfinite(spread):
        return 0.5 if spread != 0.0 else 0.0
    return 0.5 * math.erfc(abs(gap) / (spread * _SQRT2))


def rank_weight(rank: int, rules: MatchRules) -> float:
    """How much a comparison at ``rank`` (0 is the leader) counts: the top most."""
    return 1.0 + rules.top_weight * math.exp(-rank / rules.top_span)


def boundary_crossing(ranked: Sequence[Contender], top_k: int) -> list[float]:
    """For each bot (best first), how open its place in the top ``top_k`` is: ``4p(1−p)``
    with ``p = Φ((elo − c)/σ)``, ``c`` midway between the ``top_k``-th and the next."""
    if len(ranked) <= top_k or top_k <= 0:
        return [0.0] * len(ranked)
    cut = (ranked[top_k - 1].elo + ranked[top_k].elo) / 2
    crossing = []
    for bot in ranked:
        if bot.stderr <= 0.0 or not math.isfinite(bot.stderr):
            crossing.append(1.0 if not math.isfinite(bot.stderr) else 0.0)
            continue
        p = _NORMAL.cdf((bot.elo - cut) / bot.stderr)
        crossing.append(4.0 * p * (1.0 - p))
    return crossing


def plan_pairs(contenders: Sequence[Contender], rules: MatchRules = MatchRules()) -> PairPlan:
    """The order of ``contenders`` by estimate and the value of each near pair in it."""
    ranked = sorted(contenders, key=lambda bot: (-bot.elo, bot.name))
    crossing = boundary_crossing(ranked, rules.top_k)
    pairs: list[tuple[int, int]] = []
    values: list[float] = []
    cumulative: list[float] = []
    total = 0.0
    for i, upper in enumerate(ranked):
        weight = rank_weight(i, rules)
        for j in range(i + 1, min(len(ranked), i + 1 + rules.window)):
            lower = ranked[j]
            at_boundary = rules.boundary_weight * max(crossing[i], crossing[j])
            wrong = _wrong_order(upper.elo - lower.elo, math.hypot(upper.stderr, lower.stderr))
            value = (weight + at_boundary) * wrong
            total += value**rules.sharpness
            pairs.append((i, j))
            values.append(value)
            cumulative.append(total)
    ascending = ranked[::-1]
    return PairPlan(
        order=tuple(bot.name for bot in ranked),
        crossing=tuple(crossing),
        ascending=tuple(bot.name for bot in ascending),
        elos=tuple(bot.elo for bot in ascending),
        pairs=tuple(pairs),
        values=tuple(values),
        cumulative=tuple(cumulative),
    )


def table_rng(seed: int, index: int) -> random.Random:
    """The random draws of table ``index`` of a ladder with master ``seed``."""
    return random.Random(f"goatarena-ladder:{seed}:{index}")


def choose_table(
    field: Field | Sequence[Contender],
    plan: PairPlan | None,
    *,
    players: int,
    seed: int,
    index: int,
    rules: MatchRules = MatchRules(),
) -> TableChoice | None:
    """The next table of ``players`` bots, with the rule that chose it and why.

    ``field`` holds the active bots now (a :class:`Field`, or a list of contenders);
    ``plan`` comes from :func:`plan_pairs` over the same bots at the last refresh (None,
    or a plan of another number of bots: one is made now). None when fewer than
    ``players`` bots are active.
    """
    if not isinstance(field, ContenderList) and isinstance(field, Sequence):
        field = ContenderList(field)
    if len(field) < players:
        return None
    if plan is None or len(plan.order) != len(field):
        plan = plan_pairs([field.contender(name) for name in field.names()], rules)
    rng = table_rng(seed, index)
    starved = field.fewest()
    if starved.games < rules.min_games:
        seated = _around(field, plan, starved, players, rng, rules)
        return TableChoice(seated, "newcomer", _newcomer_reason(starved, rules))
    mean = field.mean_games()
    if starved.games < rules.floor * mean:
        seated = _around(field, plan, starved, players, rng, rules)
        return TableChoice(seated, "floor", _floor_reason(starved, mean, rules))
    if rng.random() < rules.explore or not plan.pairs or plan.cumulative[-1] <= 0.0:
        first = field.contender(rng.choice(plan.order))
        seated = _around(field, plan, first, players, rng, rules)
        return TableChoice(seated, "explore", _explore_reason(first))
    return _informative(field, plan, players, rng, rules)


def _informative(
    field: Field,
    plan: PairPlan,
    players: int,
    rng: random.Random,
    rules: MatchRules,
) -> TableChoice:
    """A table around a pair drawn by the value of learning its order; at larger tables
    each further seat goes to the bot that adds the most value of open pairs with those
    already seated."""
    draw = rng.random() * plan.cumulative[-1]
    chosen = min(bisect.bisect_right(plan.cumulative, draw), len(plan.pairs) - 1)
    i, j = plan.pairs[chosen]
    upper, lower = field.contender(plan.order[i]), field.contender(plan.order[j])
    seated = [upper, lower]
    added = 0.0
    if players > 2:
        ranks = range(max(0, i - rules.seat_span), min(len(plan.order), j + rules.seat_span + 1))
        candidates = [field.contender(plan.order[r]) for r in ranks if r not in (i, j)]
        rank_of = {name: r for r, name in enumerate(plan.order)}
        while len(seated) < players:
            values = [
                sum(_pair_value(bot, other, rank_of, plan, rules) for other in seated)
                for bot in candidates
            ]
            best = max(range(len(candidates)), key=values.__getitem__)  # first among equals
            added += values[best]
            seated.append(candidates.pop(best))
    names = [bot.name for bot in seated]
    rng.shuffle(names)
    reason = (
        f"open order at rank {i + 1}: {upper.name} {upper.elo:+.0f} ± {upper.stderr:.0f}"
        f" and {lower.name} {lower.elo:+.0f} ± {lower.stderr:.0f}"
        f" (P(order wrong) {order_open(upper, lower):.2f}, weight {plan.values[chosen]:.2f})"
    )
    if players > 2:
        others = ", ".join(f"{bot.name} {bot.elo:+.0f} ± {bot.stderr:.0f}" for bot in seated[2:])
        reason += f"; with {others}, adding open pairs of weight {added:.2f}"
    return TableChoice(tuple(names), "information", reason)


def _pair_value(
    a: Contender, b: Contender, rank_of: dict[str, int], plan: PairPlan, rules: MatchRules
) -> float:
    """The value of learning the order of ``a`` and ``b`` as the plan weighs a pair: the
    weight of the upper one's rank and of the top-k boundary, times P(order wrong)."""
    top = min(rank_of[a.name], rank_of[b.name])
    crossing = max(plan.crossing[rank_of[a.name]], plan.crossing[rank_of[b.name]])
    weight = rank_weight(top, rules) + rules.boundary_weight * crossing
    return weight * _wrong_order(a.elo - b.elo, math.hypot(a.stderr, b.stderr))


def _around(
    field: Field,
    plan: PairPlan,
    first: Contender,
    players: int,
    rng: random.Random,
    rules: MatchRules,
) -> tuple[str, ...]:
    """``first`` and ``players − 1`` opponents drawn from those rated nearest to it."""
    others = _nearest_draw(field, plan, first, players - 1, rng, {first.name}, rules)
    seated = [first.name, *others]
    rng.shuffle(seated)
    return tuple(seated)


def _nearest_draw(
    field: Field,
    plan: PairPlan,
    target: Contender,
    count: int,
    rng: random.Random,
    exclude: set[str],
    rules: MatchRules,
) -> list[str]:
    """``count`` bots drawn from the ``near`` rated nearest to ``target``: a bot at
    distance Δ weighs ``exp(−Δ² / 2w²)``, ``w² = σ_target² + σ_bot² + 50²``."""
    near = max(count, rules.near)
    candidates = _nearest(plan, target.elo, near, exclude)
    bots = [field.contender(name) for name in candidates]
    chosen: list[str] = []
    for _ in range(count):
        weights = []
        for bot in bots:
            width = target.stderr**2 + bot.stderr**2 + NEAR_SPREAD_ELO**2
            if not math.isfinite(width):
                width = 1e12
            weights.append(math.exp(-((bot.elo - target.elo) ** 2) / (2.0 * width)) + 1e-12)
        pick = rng.choices(range(len(bots)), weights=weights)[0]
        chosen.append(bots.pop(pick).name)
    return chosen


def _nearest(plan: PairPlan, elo: float, count: int, exclude: set[str]) -> list[str]:
    """The ``count`` bots of ``plan`` rated nearest ``elo`` (by the plan's estimates)."""
    right = bisect.bisect_left(plan.elos, elo)
    left = right - 1
    found: list[str] = []
    while len(found) < count and (left >= 0 or right < len(plan.elos)):
        take_left = right >= len(plan.elos) or (
            left >= 0 and elo - plan.elos[left] <= plan.elos[right] - elo
        )
        if take_left:
            name, left = plan.ascending[left], left - 1
        else:
            name, right = plan.ascending[right], right + 1
        if name not in exclude:
            found.append(name)
    return found


def _newcomer_reason(bot: Contender, rules: MatchRules) -> str:
    return (
        f"newcomer: {bot.name} has {bot.games} of its first {rules.min_games} games;"
        f" opponents rated near its estimate {bot.elo:+.0f} ± {bot.stderr:.0f}"
    )


def _floor_reason(bot: Contender, mean: float, rules: MatchRules) -> str:
    return (
        f"floor: {bot.name} has {bot.games} games, under {rules.floor:g} × the mean"
        f" {mean:.1f}; opponents rated near it"
    )


def _explore_reason(bot: Contender) -> str:
    return f"exploration: {bot.name} drawn at random; opponents rated near {bot.elo:+.0f}"
