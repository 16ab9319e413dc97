"""The sequential probability ratio test of a gauntlet: is the challenger better?

A challenger and a baseline play each deal twice, once from each seat; the two games of
a deal form a *pair* scored from the challenger's side, 0, ½, 1, 1½ or 2 points (a game
is 1 for finishing ahead, ½ for a tie). Pairs are counted pentanomially, as fastchess
does, because the two games of a deal are correlated: a lucky deal is lucky for whoever
holds the good seat, and counting the games separately would overstate the noise.

The hypotheses are H0 "the challenger is ``elo0`` stronger" and H1 "it is ``elo1``
stronger", on the logistic Elo scale (score ``s = 1 / (1 + 10^(−elo/400))`` per game).
The log-likelihood ratio is the generalised one of Michel Van den Bergh ("Comments on
Normalized Elo"): the empirical distribution of the pairs is projected by maximum
likelihood onto the distributions whose mean is ``s0`` and ``s1`` respectively, and
``LLR = N · Σ p̂_i · ln(p1_i / p0_i)``. Empty categories count 0.001 pairs so the
logarithms stay finite. The test stops when the LLR leaves
``(ln(β/(1−α)), ln((1−β)/α))``: above the upper bound H1 is accepted, below the lower
one H0.

Pure: no I/O; the runner feeds it stored results.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Literal, Protocol

import msgspec

from goatarena.formats.config import SprtSettings
from goatarena.referee.records import MatchResult

PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
"""A pair's points divided by 2: the five pentanomial outcomes, worst first."""

_EMPTY = 1e-3
_MAX_STEPS = 200

Verdict = Literal["H0", "H1", "running"]


class SprtStatus(msgspec.Struct, frozen=True):
    """Where the test stands: the LLR, its bounds, the verdict and the pairs counted.

    ``pentanomial[i]`` counts the pairs in which the challenger scored ``i/2`` points.
    """

    llr: float
    lower: float
    upper: float
    verdict: Verdict
    challenger: str
    baseline: str
    pairs: int
    pentanomial: list[int]
    elo0: float
    elo1: float
    alpha: float
    beta: float


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """The LLR bounds for error rates ``alpha`` (false H1) and ``beta`` (false H0)."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def elo_to_score(elo: float) -> float:
    """The expected score per game of a bot ``elo`` points stronger (logistic)."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def llr(pentanomial: Sequence[int], elo0: float, elo1: float) -> float:
    """The generalised log-likelihood ratio of H1 against H0 for the pair counts."""
    counts = [count if count > 0 else _EMPTY for count in pentanomial]
    total = sum(counts)
    observed = [count / total for count in counts]
    p0 = _closest_with_mean(observed, elo_to_score(elo0))
    p1 = _closest_with_mean(observed, elo_to_score(elo1))
    return total * sum(p * math.log(b / a) for p, a, b in zip(observed, p0, p1))


def _closest_with_mean(observed: Sequence[float], mean: float) -> list[float]:
    """The distribution over :data:`PAIR_SCORES` with this mean that is likeliest to give
    ``observed``: ``p_i = p̂_i / (1 + θ(a_i − s))`` with θ the root of
    ``f(θ) = Σ p̂_i (a_i − s) / (1 + θ(a_i − s))``, which decreases in θ.

    Newton steps from θ = 0 (the observed mean is usually close), kept inside a bracket
    of the root that shrinks at every step; a step that would leave it bisects instead.
    """
    shifted = [score - mean for score in PAIR_SCORES]
    # θ must keep every 1 + θ(a_i − s) positive.
    low, high = -1.0 / shifted[-1], -1.0 / shifted[0]
    theta = 0.0
    for _ in range(_MAX_STEPS):
        value = slope = 0.0
        for p, a in zip(observed, shifted):
            term = a / (1.0 + theta * a)
            value += p * term
            slope -= p * term * term
        if value > 0.0:
            low = theta
        else:
            high = theta
        step = theta - value / slope if slope < 0.0 else (low + high) / 2.0
        if not low < step < high:
            step = (low + high) / 2.0
        if abs(step - theta) < 1e-13:
            theta = step
            break
        theta = step
    return [p / (1.0 + theta * a) for p, a in zip(observed, shifted)]


class Ranked(Protocol):
    """What the test reads of a game: its bots by seat and their ranks (a full record or
    a stored summary)."""

    @property
    def players(self) -> list[str]: ...

    @property
    def ranks(self) -> list[int]: ...


def pair_points(challenger: str, games: Sequence[Ranked]) -> float:
    """The challenger's points over the games of one deal: 1 per game it finished ahead
    of its opponent, ½ per tie."""
    points = 0.0
    for result in games:
        mine = result.ranks[result.players.index(challenger)]
        theirs = min(rank for name, rank in zip(result.players, result.ranks) if name != challenger)
        points += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
    return points


class SprtTally:
    """The pairs seen so far, fed one stored game at a time (in any order)."""

    def __init__(self, settings: SprtSettings, challenger: str, baseline: str) -> None:
        self.settings = settings
        self.challenger = challenger
        self.baseline = baseline
        self.pentanomial = [0] * len(PAIR_SCORES)
        self._waiting: dict[str, Ranked] = {}

    def add(self, key: str, result: Ranked) -> None:
        """Count a game; a deal's second game completes its pair."""
        deal = key.rsplit("/", 1)[0]
        first = self._waiting.pop(deal, None)
        if first is None:
            self._waiting[deal] = result
            return
        self.pentanomial[round(pair_points(self.challenger, [first, result]) * 2)] += 1

    def status(self) -> SprtStatus:
        """The test's state now."""
        settings = self.settings
        lower, upper = bounds(settings.alpha, settings.beta)
        pairs = sum(self.pentanomial)
        value = llr(self.pentanomial, settings.elo0, settings.elo1) if pairs else 0.0
        verdict: Verdict = "H1" if value >= upper else "H0" if value <= lower else "running"
        return SprtStatus(
            llr=round(value, 4),
            lower=round(lower, 4),
            upper=round(upper, 4),
            verdict=verdict,
            challenger=self.challenger,
            baseline=self.baseline,
            pairs=pairs,
            pentanomial=list(self.pentanomial),
            elo0=settings.elo0,
            elo1=settings.elo1,
            alpha=settings.alpha,
            beta=settings.beta,
        )


def tally_of(
    settings: SprtSettings,
    bots: Iterable[str],
    challenger: str,
    games: Iterable[tuple[str, Ranked]],
) -> SprtTally:
    """A tally of the stored games ``(key, result)`` that seat the challenger and the
    baseline (the one other bot)."""
    baseline = next(name for name in bots if name != challenger)
    tally = SprtTally(settings, challenger, baseline)
    for key, result in games:
        if sorted(result.players) == sorted((challenger, baseline)):
            tally.add(key, result)
    return tally


def llr_course(
    settings: SprtSettings,
    bots: Iterable[str],
    challenger: str,
    games: Iterable[tuple[str, MatchResult]],
) -> tuple[SprtTally, list[tuple[int, float]]]:
    """The tally of the stored games ``(key, result)`` in the order given, and the
    log-likelihood ratio after each pair they complete: ``(pairs, LLR)``."""
    baseline = next(name for name in bots if name != challenger)
    tally = SprtTally(settings, challenger, baseline)
    course: list[tuple[int, float]] = []
    for key, result in games:
        if sorted(result.players) != sorted((challenger, baseline)):
            continue
        tally.add(key, result)
        pairs = sum(tally.pentanomial)
        if pairs > len(course):
            value = llr(tally.pentanomial, settings.elo0, settings.elo1)
            course.append((pairs, round(value, 4)))
    return tally, course


def progress_note(status: SprtStatus) -> str:
    """A short line for the progress display: LLR, bounds and pairs."""
    return (
        f"SPRT LLR {status.llr:.2f} ({status.lower:.2f}, {status.upper:.2f}) {status.pairs} pairs"
    )


def describe(status: SprtStatus) -> str:
    """The test in words, for the standings table."""
    test = (
        f"SPRT {status.challenger} vs {status.baseline}: H0 elo <= {status.elo0:g},"
        f" H1 elo >= {status.elo1:g} (alpha {status.alpha:g}, beta {status.beta:g});"
        f" LLR {status.llr:.2f}, bounds ({status.lower:.2f}, {status.upper:.2f})"
        f" after {status.pairs} pairs {status.pentanomial}"
    )
    if status.verdict == "H1":
        words = (
            f"H1 accepted: {status.challenger} is stronger than {status.baseline}"
            f" (the results favour +{status.elo1:g} Elo over +{status.elo0:g})"
        )
    elif status.verdict == "H0":
        words = (
            f"H0 accepted: {status.challenger} is not shown stronger than {status.baseline}"
            f" (the results favour +{status.elo0:g} Elo over +{status.elo1:g})"
        )
    else:
        words = "no verdict yet: play more deals to decide"
    return f"{test}\n{words}"
