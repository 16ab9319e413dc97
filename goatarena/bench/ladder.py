"""The ladder benchmark: the simulation table and its goals (``goatarena bench --ladder``).

See :mod:`goatarena.bench.ladder_sim` for what is simulated. Each goal is printed beside
the measured values, with ``met`` or ``NOT MET``; shares of trials and τ come with their
standard errors, and a goal whose margin is within two of them is said to be met (or
missed) only within the noise (:mod:`goatarena.bench.noise`).
"""

from __future__ import annotations

import dataclasses
import math
import resource
from collections.abc import Callable
from dataclasses import dataclass
from statistics import NormalDist

from goatarena.bench import ladder_sim as sim
from goatarena.bench import sizes as referee_sizes
from goatarena.bench import throughput
from goatarena.bench.bots import BENCH_GAME
from goatarena.bench.noise import paired_difference, verdict
from goatarena.formats.size import count_games
from goatarena.ratings.fit import ELO_PER_NATURAL_LOG


@dataclass(frozen=True)
class Sizes:
    """How much to simulate."""

    trials: int
    late_trials: int
    cost_bots: int
    cost_games: int
    close_trials: int = 0
    """Trials of the rows a goal compares closely (the ladder and uniform tables with
    three times the games at more than two seats, where they are within a few
    hundredths): enough for a standard error of the difference under 0.02 (at least
    :attr:`trials`)."""

    def trials_of(self, players: int, rule: str) -> int:
        """The trials of one row."""
        close = players > 2 and rule in ("ladder", "uniform ×3")
        return max(self.trials, self.close_trials) if close else self.trials


FULL = Sizes(trials=200, late_trials=100, cost_bots=1000, cost_games=100_000, close_trials=1000)
QUICK = Sizes(trials=12, late_trials=6, cost_bots=300, cost_games=10_000)
BUDGETS = (20, 40)
SEATS = (2, 4)
BASELINES = ("uniform", "psyleague", "halite")
FIGURE = "(a figure, not a goal)"
"""The end of a line that reports a measurement no goal is set for."""


def _verdict(ok: bool) -> str:
    return "met" if ok else "NOT MET"


def accuracy_section(sizes: Sizes, say: Callable[[str], None]) -> tuple[list[str], list[str]]:
    """The accuracy table (rows) and the goal lines of the top-3, τ and fairness goals."""
    rows = [
        "seats  games/bot  rule                trials  top-3 right       Kendall τ  fewest / mean",
    ]
    goals = []
    for players in SEATS:
        for budget in BUDGETS:
            say(f"ladder simulation: {players} seats, {budget} games per bot")
            result = {
                rule: sim.accuracy(
                    rule,
                    players=players,
                    budget=budget,
                    trials=sizes.trials_of(players, rule),
                )
                for rule in ("ladder", *BASELINES)
            }
            triple = sim.accuracy(
                "uniform",
                players=players,
                budget=3 * budget,
                trials=sizes.trials_of(players, "uniform ×3"),
            )
            for name, row in [*result.items(), (f"uniform ×3 ({3 * budget})", triple)]:
                top = f"{row.top_right:5.3f} ± {row.top_stderr:5.3f}"
                tau = f"{row.tau:5.3f} ± {row.tau_stderr:5.3f}"
                rows.append(
                    f"{players:>5}  {budget:>9}  {name:<18}  {row.trials:>6}  {top}"
                    f"   {tau}  {row.min_share:8.2f}"
                )
            goals += accuracy_goals(f"{players} seats, {budget}/bot", result, triple)
    return rows, goals


def accuracy_goals(where: str, result: dict[str, sim.Accuracy], triple: sim.Accuracy) -> list[str]:
    """The goal lines of one table size and budget: each margin with its standard error
    over the paired trials, and whether it clears the noise."""
    ladder, uniform = result["ladder"], result["uniform"]
    gap, gap_error = paired_difference(ladder.outcomes, triple.outcomes)
    best = max(BASELINES, key=lambda rule: result[rule].top_right)
    lead, lead_error = paired_difference(ladder.outcomes, result[best].outcomes)
    tau_gap, tau_error = paired_difference(ladder.taus, uniform.taus)
    pairs = min(ladder.trials, triple.trials)
    return [
        f"{where}: top-3 ladder {ladder.top_right:.3f} ≥ uniform with 3× the games"
        f" {triple.top_right:.3f} (difference {gap:+.3f} ± {gap_error:.3f} over {pairs}"
        f" paired trials): {verdict(gap, gap_error)}",
        f"{where}: top-3 ladder {ladder.top_right:.3f} > every baseline (best, {best},"
        f" {result[best].top_right:.3f}; difference {lead:+.3f} ± {lead_error:.3f}):"
        f" {verdict(lead, lead_error)}",
        f"{where}: τ ladder {ladder.tau:.3f} ≥ uniform {uniform.tau:.3f} − 0.02 (difference"
        f" {tau_gap:+.4f} ± {tau_error:.4f}): {verdict(tau_gap + 0.02, tau_error)}",
        f"{where}: fewest games / mean {ladder.min_share:.2f} ≥ 0.5:"
        f" {_verdict(ladder.min_share >= 0.5)}",
    ]


def late_section(sizes: Sizes, say: Callable[[str], None]) -> list[str]:
    """The late-entry goal."""
    say("ladder simulation: a late entry to a settled 64-bot ladder")
    late = sim.late_entry(trials=sizes.late_trials)
    # The best any matchmaking can do: every game against an equal opponent gives the
    # most information, p(1 − p) = 1/4, so the standard error is 173.7 / sqrt(games / 4).
    best_error = ELO_PER_NATURAL_LOG / math.sqrt(late.games / 4)
    best_share = 2 * NormalDist().cdf(50 / best_error) - 1
    share = late.within_50_final
    share_error = math.sqrt(max(share * (1 - share), 1e-9) / late.trials)
    return [
        f"late entry (2 seats), after {late.games} of its games: within ±50 Elo of its final"
        f" rating (the ladder's, after {late.final_games} of its games) in"
        f" {share:.0%} ± {share_error:.0%} of {late.trials} trials (median error"
        f" {late.median_error_final:.0f} Elo), the goal for the median:"
        f" {verdict(share - 0.5, share_error)}",
        f"late entry: within ±50 Elo of its true rating in {late.within_50_truth:.0%} (median"
        f" error {late.median_error_truth:.0f} Elo); no rule can do better than"
        f" {best_share:.0%} (standard error ≥ {best_error:.0f} Elo after {late.games} games)"
        f" {FIGURE}",
        f"late entry: its opponents' mean distance in true rating {late.opponent_distance:.0f}"
        f" Elo, random opponents' {late.random_distance:.0f}:"
        f" {_verdict(late.opponent_distance < late.random_distance)}",
    ]


def cost_section(sizes: Sizes, say: Callable[[str], None]) -> list[str]:
    """The cost goal: matchmaking and refits per game, and the longest call."""
    say(f"ladder simulation: matchmaking cost, {sizes.cost_bots} bots, {sizes.cost_games} games")
    cost = sim.cost(bots=sizes.cost_bots, games=sizes.cost_games)
    engine_ms = sim.engine_game_cpu_ms()
    say("ladder simulation: the CPU of a real game between random bots")
    game_ms = real_game_cpu_ms()
    share = cost.per_game_us / 1000 / game_ms
    return [
        f"cost, {cost.bots} bots, {cost.games:,} games: matchmaking and refits"
        f" {cost.per_game_us:.0f} µs CPU per game = {share:.1%} of a real game's CPU"
        f" ({game_ms:.0f} ms: {BENCH_GAME}, two random bots, processes included):"
        f" {_verdict(share <= 0.05)} (the engine alone plays its cheapest game in"
        f" {engine_ms:.1f} ms)",
        f"cost: longest call on the event loop {cost.longest_call_ms:.1f} ms CPU (plans of open"
        f" pairs in a worker thread, longest {cost.longest_plan_ms:.0f} ms):"
        f" {_verdict(cost.longest_call_ms <= 10)}",
    ]


def real_game_cpu_ms() -> float:
    """The CPU time (referee and bots) of one game of a small round-robin of random
    subprocess bots, as the referee benchmark plays it: the cheapest real game."""
    sizes = dataclasses.replace(referee_sizes.QUICK, tournament_bots=3, tournament_deals=3)
    games = count_games(throughput.tournament_config(sizes, 1))
    before = _cpu_s()
    throughput.tournament_rates(sizes, 1)
    return (_cpu_s() - before) / games * 1000


def _cpu_s() -> float:
    """User and system CPU of this process and its finished children."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def run_ladder_bench(sizes: Sizes, say: Callable[[str], None]) -> list[str]:
    """Every section of the benchmark, as printable text."""
    rows, goals = accuracy_section(sizes, say)
    goals += late_section(sizes, say)
    goals += cost_section(sizes, say)
    header = (
        f"ladder simulation: 64 bots, true Elo ~ N(0, 200), Plackett–Luce finishes,"
        f" {sizes.trials} trials per row (CPU-time figures; the machine may be loaded)"
    )
    return [header + "\n" + "\n".join(rows), "goals\n" + "\n".join(f"  {g}" for g in goals)]
