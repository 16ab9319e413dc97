"""Simulated ladders with bots of known strength: does the matchmaking find the top?

Every trial draws true ratings (normal, mean 0, spread 200 Elo) for 64 bots and plays a
ladder table by table, each table in all its seat rotations, finishing orders drawn from
the Plackett–Luce model. Four rules choose the tables: the ladder's own
(:mod:`goatarena.formats.ladder`), uniformly random tables, psyleague's rule (the first
player drawn from the bots under 200 games, the others uniformly) and Halite III's (the
first player drawn 65 % of the time from the bots with fewest games, else uniformly, the
others from the 8 rated nearest to it). At the end of a budget of games per bot the
ratings are the maximum-likelihood fit, compared with the truth: is the top-3 set
right, and Kendall's τ of the whole order. Trials pair the rules on the same truths.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from goatarena.bench.swiss_sim import SPREAD, kendall_tau, plackett_luce
from goatarena.formats.ladder.estimate import QuickRatings
from goatarena.formats.ladder.matchmaking import MatchRules, default_rules, plan_pairs
from goatarena.formats.ladder.state import Matchmaker
from goatarena.games import GAMES
from goatarena.testing import random_playout

PSYLEAGUE_MIN_GAMES = 200
"""psyleague's ``mm_min_matches``: bots under it are drawn first (its default)."""
HALITE_SEED_SHARE = 0.65
HALITE_NEAREST = 8


class Chooser:
    """A rule that chooses tables and hears back the games."""

    def __init__(self, names: Sequence[str], players: int, seed: int) -> None:
        self.names = list(names)
        self.players = players
        self.rng = random.Random(seed)
        self.games = dict.fromkeys(self.names, 0)

    def next_table(self) -> tuple[str, ...]:
        """The next table's bots."""
        raise NotImplementedError

    def record(self, ranks: dict[str, int]) -> None:
        """Hear one finished game."""
        for name in ranks:
            self.games[name] += 1


class Uniform(Chooser):
    """Uniformly random tables."""

    def next_table(self) -> tuple[str, ...]:
        return tuple(self.rng.sample(self.names, self.players))


class Psyleague(Chooser):
    """psyleague's rule: the first bot from those under 200 games, the rest uniform."""

    def next_table(self) -> tuple[str, ...]:
        few = [name for name in self.names if self.games[name] < PSYLEAGUE_MIN_GAMES]
        first = self.rng.choice(few or self.names)
        others = [name for name in self.names if name != first]
        return (first, *self.rng.sample(others, self.players - 1))


class Halite(Chooser):
    """Halite III's rule: a seed from the fewest-games bots 65 % of the time, opponents
    from the 8 rated nearest to it (ratings refined as the ladder's are)."""

    def __init__(self, names: Sequence[str], players: int, seed: int) -> None:
        super().__init__(names, players, seed)
        self.ratings = QuickRatings()
        for name in self.names:
            self.ratings.add_bot(name)
        self._cursor = 0

    def next_table(self) -> tuple[str, ...]:
        if self.rng.random() < HALITE_SEED_SHARE:
            fewest = min(self.games.values())
            first = self.rng.choice([n for n in self.names if self.games[n] == fewest])
        else:
            first = self.rng.choice(self.names)
        own = self.ratings.elo(first)
        others = sorted(
            (name for name in self.names if name != first),
            key=lambda name: abs(self.ratings.elo(name) - own),
        )[: max(HALITE_NEAREST, self.players - 1)]
        return (first, *self.rng.sample(others, self.players - 1))

    def record(self, ranks: dict[str, int]) -> None:
        super().record(ranks)
        self.ratings.add_game(ranks)
        batch = self.names[self._cursor : self._cursor + 4]
        self.ratings.refresh(sweeps=1, names=batch)
        self._cursor = (self._cursor + 4) % len(self.names)


class Ladder(Chooser):
    """The ladder's matchmaking."""

    def __init__(
        self, names: Sequence[str], players: int, seed: int, rules: MatchRules | None = None
    ) -> None:
        super().__init__(names, players, seed)
        self.matchmaker = Matchmaker(
            players=players, seed=seed, rules=rules or default_rules(players)
        )
        for name in self.names:
            self.matchmaker.add(name)

    def next_table(self) -> tuple[str, ...]:
        choice = self.matchmaker.next_table()
        assert choice is not None
        return choice.bots

    def record(self, ranks: dict[str, int]) -> None:
        super().record(ranks)
        self.matchmaker.record(ranks)


RULES: dict[str, Callable[[Sequence[str], int, int], Chooser]] = {
    "ladder": Ladder,
    "uniform": Uniform,
    "psyleague": Psyleague,
    "halite": Halite,
}
"""The rules compared, by name."""


def truths(bots: int, seed: int) -> dict[str, float]:
    """True ratings of ``bots`` bots drawn from ``seed``."""
    rng = random.Random(seed)
    return {f"bot{i:03d}": rng.gauss(0.0, SPREAD) for i in range(bots)}


def play_table(
    chooser: Chooser, truth: dict[str, float], rng: random.Random, fit: QuickRatings
) -> tuple[str, ...]:
    """Choose a table and play it in every seat rotation; returns the table."""
    table = chooser.next_table()
    for shift in range(len(table)):
        seated = table[shift:] + table[:shift]
        ranks = plackett_luce(rng, [truth[name] for name in seated])
        game = dict(zip(seated, ranks, strict=True))
        chooser.record(game)
        fit.add_game(game)
    return table


def converged(fit: QuickRatings, *, sweeps: int = 400, tolerance: float = 0.01) -> dict[str, float]:
    """The maximum-likelihood ratings (Elo) the quick estimate converges to."""
    last = {name: fit.elo(name) for name in fit.names()}
    for _ in range(sweeps):
        fit.refresh(sweeps=1)
        now = {name: fit.elo(name) for name in fit.names()}
        if max(abs(now[name] - last[name]) for name in now) < tolerance:
            return now
        last = now
    return last


@dataclass(frozen=True)
class Trial:
    """One simulated ladder's outcome."""

    top_right: bool
    tau: float
    min_share: float
    """The fewest games of any bot over the mean games."""


def run_trial(rule: str, *, bots: int, players: int, budget: int, seed: int) -> Trial:
    """One ladder of ``bots`` bots under ``rule`` until ``budget`` games per bot."""
    truth = truths(bots, seed)
    chooser = RULES[rule](list(truth), players, seed)
    fit = QuickRatings()
    for name in truth:
        fit.add_bot(name)
    rng = random.Random(seed * 7919 + 1)
    tables = round(budget * bots / players**2)
    for _ in range(tables):
        play_table(chooser, truth, rng, fit)
    fitted = converged(fit)
    mean = statistics.fmean(chooser.games.values())
    return Trial(
        top_right=set(_top(truth, 3)) == set(_top(fitted, 3)),
        tau=kendall_tau(truth, fitted),
        min_share=min(chooser.games.values()) / mean,
    )


def _top(ratings: dict[str, float], k: int) -> list[str]:
    return sorted(ratings, key=lambda name: -ratings[name])[:k]


@dataclass(frozen=True)
class Accuracy:
    """A rule's accuracy over some trials at one budget."""

    rule: str
    players: int
    budget: int
    trials: int
    top_right: float
    tau: float
    min_share: float
    outcomes: tuple[bool, ...] = ()
    """Whether each trial's top-3 set was right, by trial (trial ``t`` plays truth
    ``seed + t``, so two rules' outcomes pair up on the same truths)."""
    taus: tuple[float, ...] = ()
    """Each trial's Kendall τ, by trial, paired the same way."""

    @property
    def top_stderr(self) -> float:
        """The standard error of :attr:`top_right` (a binomial share)."""
        p = self.top_right
        return math.sqrt(max(p * (1 - p), 1e-9) / self.trials)

    @property
    def tau_stderr(self) -> float:
        """The standard error of :attr:`tau` over the trials (inf with fewer than two)."""
        if len(self.taus) < 2:
            return math.inf
        return statistics.stdev(self.taus) / math.sqrt(len(self.taus))


def accuracy(
    rule: str, *, bots: int = 64, players: int, budget: int, trials: int, seed: int = 0
) -> Accuracy:
    """Run ``trials`` ladders under ``rule`` and average their outcomes."""
    results = [
        run_trial(rule, bots=bots, players=players, budget=budget, seed=seed + t)
        for t in range(trials)
    ]
    return Accuracy(
        rule=rule,
        players=players,
        budget=budget,
        trials=trials,
        top_right=statistics.fmean(r.top_right for r in results),
        tau=statistics.fmean(r.tau for r in results),
        min_share=min(r.min_share for r in results),
        outcomes=tuple(r.top_right for r in results),
        taus=tuple(r.tau for r in results),
    )


@dataclass(frozen=True)
class LateEntry:
    """How a bot added to a settled ladder fares: its error after its first games, against
    its true strength and against the rating the ladder gives it in the end."""

    trials: int
    games: int
    final_games: int
    """The newcomer's games when its final rating is read (the ladder plays on till then)."""
    within_50_truth: float
    """The share of trials whose newcomer is within ±50 Elo of its true rating (on the
    ladder's scale) after :attr:`games` of its games."""
    median_error_truth: float
    within_50_final: float
    """The same against its final rating: the ladder's estimate after
    :attr:`final_games` of its games (which shares the opponents' errors)."""
    median_error_final: float
    opponent_distance: float
    """The mean |true Elo difference| between the newcomer and its opponents."""
    random_distance: float
    """The same for opponents drawn at random from the ladder."""


def late_entry(
    *,
    bots: int = 64,
    settle: int = 40,
    games: int = 60,
    final_games: int = 240,
    trials: int,
    seed: int = 0,
    rules: MatchRules | None = None,
) -> LateEntry:
    """Add a bot to ladders settled at ``settle`` games per bot; after ``games`` of its
    games, compare its estimate with its true rating on the ladder's scale (``truth − mean
    truth of the others + mean estimate of the others``) and with its final rating, the
    estimate once the ladder has played on until the newcomer has ``final_games``."""
    truth_errors, final_errors, distances, random_distances = [], [], [], []
    for t in range(trials):
        truth = truths(bots + 1, seed + t)
        names = list(truth)
        newcomer, settled = names[-1], names[:-1]
        chooser = Ladder(settled, 2, seed + t, rules)
        fit = QuickRatings()
        for name in truth:
            fit.add_bot(name)
        rng = random.Random((seed + t) * 7919 + 3)
        for _ in range(round(settle * bots / 4)):
            play_table(chooser, truth, rng, fit)
        chooser.matchmaker.add(newcomer)
        chooser.games[newcomer] = 0
        met: list[str] = []
        while chooser.games[newcomer] < games:
            table = play_table(chooser, truth, rng, fit)
            if newcomer in table:
                met += [name for name in table if name != newcomer]
        fitted = converged(fit)
        offset = statistics.fmean(fitted[n] for n in settled) - statistics.fmean(
            truth[n] for n in settled
        )
        truth_errors.append(abs(fitted[newcomer] - (truth[newcomer] + offset)))
        while chooser.games[newcomer] < final_games:
            play_table(chooser, truth, rng, fit)
        final = converged(fit)
        # Both fits centre near 0: compare each on the scale of the settled bots.
        shift = statistics.fmean(final[n] for n in settled) - statistics.fmean(
            fitted[n] for n in settled
        )
        final_errors.append(abs(fitted[newcomer] + shift - final[newcomer]))
        distances.append(statistics.fmean(abs(truth[n] - truth[newcomer]) for n in met))
        random_distances.append(statistics.fmean(abs(truth[n] - truth[newcomer]) for n in settled))
    return LateEntry(
        trials=trials,
        games=games,
        final_games=final_games,
        within_50_truth=statistics.fmean(e <= 50.0 for e in truth_errors),
        median_error_truth=statistics.median(truth_errors),
        within_50_final=statistics.fmean(e <= 50.0 for e in final_errors),
        median_error_final=statistics.median(final_errors),
        opponent_distance=statistics.fmean(distances),
        random_distance=statistics.fmean(random_distances),
    )


@dataclass(frozen=True)
class Cost:
    """The matchmaker's CPU over a long simulated run."""

    bots: int
    games: int
    cpu_s: float
    per_game_us: float
    longest_call_ms: float
    """The longest choice or record (what runs on the event loop), in CPU time: on a
    loaded machine the wall clock measures the other processes too."""
    longest_plan_ms: float
    """The longest remaking of the plan of open pairs (in a worker thread), CPU time."""


def cost(*, bots: int = 1000, games: int = 100_000, seed: int = 0) -> Cost:
    """Run the matchmaker alone over ``games`` two-seat games of ``bots`` bots."""
    truth = truths(bots, seed)
    matchmaker = Matchmaker(players=2, seed=seed)
    for name in truth:
        matchmaker.add(name)
    rng = random.Random(seed)
    spent = longest = planning = longest_plan = 0.0
    for _ in range(games // 2):
        if matchmaker.plan_due():
            # The runner makes the plan in a worker thread: its time is CPU, not loop time.
            start, cpu = time.thread_time(), time.process_time()
            matchmaker.set_plan(plan_pairs(matchmaker.contenders(), matchmaker.rules))
            planning += time.process_time() - cpu
            longest_plan = max(longest_plan, time.thread_time() - start)
        start, cpu = time.thread_time(), time.process_time()
        choice = matchmaker.next_table()
        spent += time.process_time() - cpu
        longest = max(longest, time.thread_time() - start)
        assert choice is not None
        for shift in range(2):
            seated = choice.bots[shift:] + choice.bots[:shift]
            game = dict(zip(seated, plackett_luce(rng, [truth[n] for n in seated]), strict=True))
            start, cpu = time.thread_time(), time.process_time()
            matchmaker.record(game)
            spent += time.process_time() - cpu
            longest = max(longest, time.thread_time() - start)
    total = spent + planning
    return Cost(bots, games, total, total / games * 1e6, longest * 1e3, longest_plan * 1e3)


def engine_game_cpu_ms(games: int = 20, seed: int = 0) -> float:
    """The CPU time of the cheapest bundled game played by its engine alone, random legal
    moves, two seats: a floor under any real game's cost (bots and pipes add to it)."""
    rng = random.Random(seed)
    cheapest = math.inf
    for info in GAMES.values():
        if 2 not in info.player_counts:
            continue
        start = time.process_time()
        for number in range(games):
            random_playout(info.new_state(2, seed + number), rng)
        cheapest = min(cheapest, (time.process_time() - start) / games * 1000)
    return cheapest
