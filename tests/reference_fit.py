"""The pure-Python rating fit goatarena used before its NumPy fit: the reference the new fit is
tested against (tests/test_fit_reference.py). Copied unchanged from ``goatarena/ratings/fit.py``
and ``goatarena/ratings/_linalg.py`` (with the linear algebra inlined below); not used by
goatarena itself.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from goatarena.ratings.graph import check_finite, groups_of

Game = Mapping[str, int]
"""One game: bot name -> finishing rank (1 is best; equal ranks are a tie)."""

BASE_ELO = 1500.0
"""The mean of the fitted Elo ratings."""

ELO_PER_NATURAL_LOG = 400.0 / math.log(10.0)
"""Elo points per unit of ``θ = ln γ`` (about 173.7)."""

_Z95 = NormalDist().inv_cdf(0.975)
_MAX_ITERATIONS = 200
_STEP_TOLERANCE = 1e-10
_NORMAL = NormalDist()


@dataclass(frozen=True)
class Rating:
    """One bot's fitted rating on the Elo scale, with its 95 % interval.

    ``elo`` is the point estimate, ``lo`` and ``hi`` the bounds of the 95 % interval,
    ``stderr`` the standard error of ``elo`` (Elo points) and ``games`` the number of
    games the bot played.
    """

    elo: float
    lo: float
    hi: float
    stderr: float
    games: int


@dataclass(frozen=True)
class SeatAdvantage:
    """The fitted advantage of one seat over the average seat, in Elo, with its interval.

    ``key`` names the game (the seat key), ``players`` the table size and ``seat`` the
    seat (0 moves first); the offsets of one key and table size sum to zero, so at two
    players seat 0's advantage over seat 1 is twice ``elo``.
    """

    key: str
    players: int
    seat: int
    elo: float
    lo: float
    hi: float
    stderr: float


@dataclass(frozen=True)
class RatingFit:
    """The whole fit: every bot's :class:`Rating` plus the covariance of the ratings.

    ``names`` are sorted; ``covariance[i][j]`` is ``Cov(Elo_i, Elo_j)`` in Elo points
    squared for ``names[i]`` and ``names[j]`` (of the mean-centred ratings, so every row
    sums to zero). ``iterations`` is the number of Newton steps the fit took.
    ``seat_advantage`` holds the fitted seat offsets (empty without seat keys); ``groups``
    the sets of bots connected by games, largest first (one group when all are connected).
    """

    names: tuple[str, ...]
    ratings: dict[str, Rating]
    covariance: tuple[tuple[float, ...], ...]
    iterations: int
    seat_advantage: tuple[SeatAdvantage, ...] = ()
    groups: tuple[tuple[str, ...], ...] = ()

    def cov(self, a: str, b: str) -> float:
        """The covariance of the Elo ratings of bots ``a`` and ``b`` (Elo points squared)."""
        return self.covariance[self._index(a)][self._index(b)]

    def los(self, a: str, b: str) -> float:
        """Likelihood of superiority: the probability that ``a`` is stronger than ``b``.

        ``Φ(Δ / sqrt(Var_a + Var_b − 2·Cov_ab))`` with ``Δ = Elo_a − Elo_b``; 0.5 when the
        difference has no variance (``a`` is ``b``).
        """
        delta = self.ratings[a].elo - self.ratings[b].elo
        variance = self.cov(a, a) + self.cov(b, b) - 2.0 * self.cov(a, b)
        if variance <= 0.0:
            return 0.5 if delta == 0.0 else float(delta > 0.0)
        return _NORMAL.cdf(delta / math.sqrt(variance))

    def _index(self, name: str) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            raise KeyError(name) from None


@dataclass(frozen=True)
class PairStats:
    """Two-bot match statistics as cutechess and fastchess print them.

    ``score`` is ``(wins + draws/2) / games`` from the first bot's side, ``score_lo`` and
    ``score_hi`` its 95 % interval, ``stderr`` the standard error of the score. ``elo`` is
    the Elo difference ``−400·log10(1/score − 1)`` and ``elo_margin`` half the width of
    the Elo interval mapped from the score interval (cutechess's ``+/-``); these are
    infinite for a score of 0 or 1. ``los`` is cutechess's likelihood of superiority from
    wins and losses alone, ``draw_ratio`` the share of draws.
    """

    games: int
    wins: int
    draws: int
    losses: int
    score: float
    score_lo: float
    score_hi: float
    stderr: float
    elo: float
    elo_margin: float
    los: float
    draw_ratio: float


# --- the fit ---------------------------------------------------------------------------


def fit_ratings(games: Sequence[Game], *, prior_draws: float = 1.0) -> dict[str, Rating]:
    """Fit every bot's rating from all ``games`` at once; see :func:`fit`.

    Returns bot name -> :class:`Rating`, in sorted name order.
    """
    return dict(fit(games, prior_draws=prior_draws).ratings)


def fit(
    games: Sequence[Game],
    *,
    prior_draws: float = 1.0,
    seat_keys: Sequence[str | None] | None = None,
) -> RatingFit:
    """One maximum-likelihood Bradley–Terry fit over all ``games``, with covariance.

    Each game maps bot name -> finishing rank for the 2 or more bots at that table; its
    ``k(k−1)/2`` pairwise results each weigh ``3/(k+1)`` (1 for two bots), the weight that
    keeps the Hessian intervals honest for multiplayer tables (see ``_pair_weight``).
    ``prior_draws`` virtual draws of every bot (and every seat offset) against a dummy of
    rating 0 (in ``ln γ`` units, the pool average) keep perfect and zero scores finite;
    with 0 the fit is the plain maximum-likelihood estimate, which exists only if the
    games connect all bots and no group of bots scored every point against the rest —
    otherwise :class:`ValueError` says which. ``seat_keys[g]``, when given, names the
    seat-advantage terms game ``g`` contributes to (None: none); the game's bots are
    then taken in seat order, as the mapping lists them.
    Raises :class:`ValueError` for a game with fewer than two bots or a non-integer rank.
    """
    if prior_draws < 0.0 or not math.isfinite(prior_draws):
        raise ValueError(f"prior_draws must be a finite number >= 0, not {prior_draws!r}")
    if seat_keys is not None and len(seat_keys) != len(games):
        raise ValueError(f"{len(seat_keys)} seat keys for {len(games)} games")
    names = _names(games)
    groups = groups_of(names, games)
    if not prior_draws:
        check_finite(names, games, groups)
    families = _families(games, seat_keys)
    blocks = [(0, len(names))]
    start = len(names)
    offsets: dict[tuple[str, int], int] = {}
    for family in families:
        offsets[family] = start
        blocks.append((start, family[1]))
        start += family[1]
    pairs = _pairs(_tally(games, names, seat_keys, offsets))
    theta, iterations = _maximise(start, pairs, prior_draws, blocks)
    played = Counter(name for game in games for name in game)
    return _result(names, theta, iterations, pairs, prior_draws, played, blocks, families, groups)


def likelihood_of_superiority(result: RatingFit, a: str, b: str) -> float:
    """The probability that bot ``a`` is stronger than bot ``b``: ``result.los(a, b)``."""
    return result.los(a, b)


# --- two-bot statistics and points -----------------------------------------------------


def pair_score(wins: int, draws: int, losses: int) -> PairStats:
    """Statistics of a two-bot match from the first bot's wins, draws and losses.

    As cutechess computes them: score ``s = (W + D/2)/n``, per-game variance
    ``w(1−s)² + d(½−s)² + l·s²`` (``w, d, l`` the fractions), score interval
    ``s ± 1.96·sqrt(var/n)``, Elo difference ``−400·log10(1/s − 1)`` with margin half the
    Elo width of the score interval, and LOS ``½ + ½·erf((W − L)/sqrt(2(W + L)))``.
    (The exact normal quantile is used where cutechess approximates it.)
    """
    if min(wins, draws, losses) < 0:
        raise ValueError("wins, draws and losses must not be negative")
    n = wins + draws + losses
    if n == 0:
        raise ValueError("no games: the score is undefined")
    w, d, lo = wins / n, draws / n, losses / n
    score = w + d / 2.0
    variance = w * (1.0 - score) ** 2 + d * (0.5 - score) ** 2 + lo * score**2
    stderr = math.sqrt(variance / n)
    score_lo, score_hi = score - _Z95 * stderr, score + _Z95 * stderr
    decisive = wins + losses
    los = 0.5 if decisive == 0 else 0.5 + 0.5 * math.erf((wins - losses) / math.sqrt(2 * decisive))
    return PairStats(
        games=n,
        wins=wins,
        draws=draws,
        losses=losses,
        score=score,
        score_lo=score_lo,
        score_hi=score_hi,
        stderr=stderr,
        elo=_elo_difference(score),
        elo_margin=(_elo_difference(score_hi) - _elo_difference(score_lo)) / 2.0,
        los=los,
        draw_ratio=d,
    )


def points_from_ranks(ranks: Sequence[int]) -> list[float]:
    """Points by finishing position for ``n`` players: ``n − position``, shared on ties.

    Position 1 earns ``n − 1`` points and the last position 0. Tied players share the
    average of the points of the positions they occupy together: ``[1, 2, 3]`` gives
    ``[2, 1, 0]`` and ``[1, 1, 3]`` gives ``[1.5, 1.5, 0]``. Only the order of the ranks
    matters (lower is better), so dense ranks such as ``[1, 1, 2]`` work too.
    """
    n = len(ranks)
    points = []
    for rank in ranks:
        first = 1 + sum(1 for other in ranks if other < rank)
        tied = sum(1 for other in ranks if other == rank)
        points.append(n - first - (tied - 1) / 2.0)
    return points


# --- internals: games to counts --------------------------------------------------------

# A cell is (i, j, k, a, b): bots i < j (indices into the sorted names) met at a table of
# k, in the seats whose offsets are parameters a and b (-1: no seat terms). Its counts are
# [i ahead, tie, j ahead] — integers, so a tally does not depend on the order of games.
_Cell = tuple[int, int, int, int, int]
_Pair = tuple[int, int, int, int, float, float]


def _names(games: Sequence[Game]) -> tuple[str, ...]:
    for game in games:
        if len(game) < 2:
            raise ValueError(f"a game needs at least two bots, got {dict(game)!r}")
        for name, rank in game.items():
            if not isinstance(rank, int) or isinstance(rank, bool):
                raise ValueError(f"rank of {name!r} must be an int, got {rank!r}")
    return tuple(sorted({name for game in games for name in game}))


def _families(
    games: Sequence[Game], seat_keys: Sequence[str | None] | None
) -> list[tuple[str, int]]:
    """The (seat key, table size) pairs that get seat offsets, sorted."""
    if seat_keys is None:
        return []
    return sorted({(key, len(game)) for key, game in zip(seat_keys, games) if key is not None})


def _game_cells(
    game: Game, index: Mapping[str, int], offset: int | None
) -> list[tuple[_Cell, int]]:
    """The pairwise results of one game: (cell, outcome) with outcome 0, 1 or 2."""
    k = len(game)
    seats = sorted(
        (index[name], rank, -1 if offset is None else offset + seat)
        for seat, (name, rank) in enumerate(game.items())
    )
    cells = []
    for a in range(k):
        i, rank_i, seat_i = seats[a]
        for b in range(a + 1, k):
            j, rank_j, seat_j = seats[b]
            outcome = 0 if rank_i < rank_j else 1 if rank_i == rank_j else 2
            cells.append(((i, j, k, seat_i, seat_j), outcome))
    return cells


def _tally(
    games: Sequence[Game],
    names: Sequence[str],
    seat_keys: Sequence[str | None] | None,
    offsets: Mapping[tuple[str, int], int],
) -> dict[_Cell, list[int]]:
    index = {name: i for i, name in enumerate(names)}
    counts: dict[_Cell, list[int]] = {}
    for g, game in enumerate(games):
        key = None if seat_keys is None else seat_keys[g]
        offset = None if key is None else offsets[key, len(game)]
        for cell, outcome in _game_cells(game, index, offset):
            slot = counts.get(cell)
            if slot is None:
                slot = counts[cell] = [0, 0, 0]
            slot[outcome] += 1
    return counts


def _pair_weight(k: int) -> float:
    """The weight of one pairwise result from a table of ``k`` bots: ``3 / (k + 1)``.

    The ``k(k−1)/2`` pairs of one finishing order are not independent results, so counting
    each as a full game (weight 1) overstates the evidence and makes the intervals too
    narrow; weight ``1/(k−1)`` (each bot's game counts once) understates it. Weight
    ``3/(k+1)`` is the one for which the inverse Hessian is the true variance of the
    pairwise fit (the sandwich ``H⁻¹ J H⁻¹``) when the bots are of similar strength: a
    bot's pairwise score in one game is ``(k+1)/2 − rank`` up to a constant, whose
    covariance over a random finishing order is ``(k+1)/12 · (k·I − 11ᵀ)``, while the
    Hessian of a table with weight ``w`` is ``w/4 · (k·I − 11ᵀ)``; the two agree
    (``J = H``) exactly when ``w = 3/(k+1)``. Two-player games keep weight 1, so for
    them this is the ordinary Bradley–Terry fit. A k-player game then carries
    ``3(k−1)/(k+1)`` times the information of a two-player game per bot, close to what
    the exact Plackett–Luce model gives (1.8 vs 1.92 for k = 4).
    """
    return 3.0 / (k + 1)


def _pairs(counts: Mapping[_Cell, list[int]]) -> list[_Pair]:
    """Per pair of bots and seats: (i, j, seat a, seat b, total weight, weighted score of
    i), in a fixed order."""
    totals: dict[tuple[int, int, int, int], list[float]] = {}
    for (i, j, k, a, b), (ahead, tie, behind) in sorted(counts.items()):
        weight = _pair_weight(k)
        slot = totals.setdefault((i, j, a, b), [0.0, 0.0])
        slot[0] += weight * (ahead + tie + behind)
        slot[1] += weight * (ahead + 0.5 * tie)
    return [(i, j, a, b, n, s) for (i, j, a, b), (n, s) in totals.items()]


# --- internals: Newton's method --------------------------------------------------------


def _log_sigmoid(x: float) -> float:
    """``ln(1 / (1 + e^−x))`` without overflow."""
    if x >= 0.0:
        return -math.log1p(math.exp(-x))
    return x - math.log1p(math.exp(x))


def _sigmoid(x: float) -> float:
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _difference(x: list[float], i: int, j: int, a: int, b: int) -> float:
    """``θ_i − θ_j`` plus the seat offsets ``α_a − α_b`` (index -1: no offset)."""
    d = x[i] - x[j]
    if a >= 0:
        d += x[a] - x[b]
    return d


def _objective(x: list[float], pairs: list[_Pair], prior: float) -> float:
    """The negative log-likelihood plus the negative log prior."""
    total = 0.0
    for i, j, a, b, n, s in pairs:
        d = _difference(x, i, j, a, b)
        total -= s * _log_sigmoid(d) + (n - s) * _log_sigmoid(-d)
    if prior:
        total -= 0.5 * prior * sum(_log_sigmoid(t) + _log_sigmoid(-t) for t in x)
    return total


def _derivatives(
    x: list[float], pairs: list[_Pair], prior: float, blocks: Sequence[tuple[int, int]]
) -> tuple[list[float], list[list[float]]]:
    """Gradient and Hessian of :func:`_objective` at ``x``.

    Without the prior the likelihood does not change when every parameter of a block (the
    ratings; the seat offsets of one key and size) moves together: ``11ᵀ/m`` is added to
    each block, which fixes that direction (the mean) and leaves the others alone.
    """
    size = len(x)
    grad = [0.0] * size
    hess = [[0.0] * size for _ in range(size)]
    for i, j, a, b, n, s in pairs:
        p = _sigmoid(_difference(x, i, j, a, b))
        g = n * p - s
        h = n * p * (1.0 - p)
        signed = ((i, 1.0), (j, -1.0), (a, 1.0), (b, -1.0)) if a >= 0 else ((i, 1.0), (j, -1.0))
        for r, sr in signed:
            grad[r] += sr * g
            row = hess[r]
            for c, sc in signed:
                row[c] += sr * sc * h
    if prior:
        for i, t in enumerate(x):
            p = _sigmoid(t)
            grad[i] += prior * (p - 0.5)
            hess[i][i] += prior * p * (1.0 - p)
    else:
        for start, length in blocks:
            for r in range(start, start + length):
                row = hess[r]
                for c in range(start, start + length):
                    row[c] += 1.0 / length
    return grad, hess


def _maximise(
    size: int, pairs: list[_Pair], prior: float, blocks: Sequence[tuple[int, int]]
) -> tuple[list[float], int]:
    """Newton's method with a backtracking line search; returns the parameters and the
    step count."""
    theta = [0.0] * size
    if size == 0:
        return theta, 0

    def newton_step(x: list[float]) -> tuple[list[float], list[float]]:
        grad, hess = _derivatives(x, pairs, prior, blocks)
        return grad, solve(cholesky(hess), [-g for g in grad])

    theta, iterations = damped_newton(
        theta, lambda x: _objective(x, pairs, prior), newton_step, _MAX_ITERATIONS
    )
    if iterations is None:
        raise ValueError(
            "the ratings diverge: some seat or group of bots won or lost every point; "
            "fit with prior_draws > 0"
        )
    return theta, iterations


def damped_newton(
    theta: list[float],
    objective: Callable[[list[float]], float],
    newton_step: Callable[[list[float]], tuple[list[float], list[float]]],
    max_iterations: int,
) -> tuple[list[float], int | None]:
    """Minimise ``objective`` from ``theta`` by Newton steps with a backtracking (Armijo)
    line search. ``newton_step(x)`` gives the gradient at ``x`` and the step to take.
    Returns the parameters and the number of steps, or ``None`` for the count when the
    steps never fell below the tolerance."""
    value = objective(theta)
    for iteration in range(1, max_iterations + 1):
        grad, step = newton_step(theta)
        slope = sum(g * d for g, d in zip(grad, step, strict=True))
        t = 1.0
        while True:
            trial = [x + t * d for x, d in zip(theta, step, strict=True)]
            trial_value = objective(trial)
            if trial_value <= value + 1e-4 * t * slope or t < 1e-10:
                break
            t /= 2.0
        theta, value = trial, trial_value
        if max(abs(t * d) for d in step) < _STEP_TOLERANCE:
            return theta, iteration
    return theta, None


def _centred_block(inverse: list[list[float]], start: int, length: int) -> list[list[float]]:
    """``P Σ P`` for one block of the inverse Hessian, ``P = I − 11ᵀ/m``, in Elo².

    Without the prior, ``Σ = (H + 11ᵀ/m)⁻¹`` and ``P Σ P`` is the pseudo-inverse of H
    on the block, the covariance under the sum-to-zero constraint.
    """
    rows = [inverse[r][start : start + length] for r in range(start, start + length)]
    row_means = [sum(row) / length for row in rows]
    grand_mean = sum(row_means) / length
    scale = ELO_PER_NATURAL_LOG**2
    return [
        [scale * (rows[r][c] - row_means[r] - row_means[c] + grand_mean) for c in range(length)]
        for r in range(length)
    ]


def _result(
    names: tuple[str, ...],
    theta: list[float],
    iterations: int,
    pairs: list[_Pair],
    prior: float,
    played: Mapping[str, int],
    blocks: Sequence[tuple[int, int]],
    families: Sequence[tuple[str, int]],
    groups: tuple[tuple[str, ...], ...],
) -> RatingFit:
    size = len(names)
    if size == 0:
        return RatingFit(names=(), ratings={}, covariance=(), iterations=0)
    _, hess = _derivatives(theta, pairs, prior, blocks)
    inverse = invert(hess)
    covariance = tuple(tuple(row) for row in _centred_block(inverse, 0, size))
    ratings = {}
    for i, (name, elo) in enumerate(zip(names, _to_elo(theta[:size]), strict=True)):
        stderr = math.sqrt(max(covariance[i][i], 0.0))
        ratings[name] = Rating(
            elo=elo,
            lo=elo - _Z95 * stderr,
            hi=elo + _Z95 * stderr,
            stderr=stderr,
            games=played[name],
        )
    seats = []
    for (start, length), (key, players) in zip(blocks[1:], families, strict=True):
        block = _centred_block(inverse, start, length)
        offsets = theta[start : start + length]
        mean = sum(offsets) / length
        for seat in range(length):
            elo = ELO_PER_NATURAL_LOG * (offsets[seat] - mean)
            stderr = math.sqrt(max(block[seat][seat], 0.0))
            seats.append(
                SeatAdvantage(
                    key=key,
                    players=players,
                    seat=seat,
                    elo=elo,
                    lo=elo - _Z95 * stderr,
                    hi=elo + _Z95 * stderr,
                    stderr=stderr,
                )
            )
    return RatingFit(
        names=names,
        ratings=ratings,
        covariance=covariance,
        iterations=iterations,
        seat_advantage=tuple(seats),
        groups=groups,
    )


def _to_elo(theta: Sequence[float]) -> list[float]:
    mean = sum(theta) / len(theta)
    return [BASE_ELO + ELO_PER_NATURAL_LOG * (t - mean) for t in theta]


# --- internals: small helpers ----------------------------------------------------------


def _elo_difference(score: float) -> float:
    """``−400·log10(1/score − 1)``, infinite at (or beyond) a score of 0 or 1."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def _quantile(ordered: Sequence[float], q: float) -> float:
    """The ``q`` quantile of sorted values, interpolating linearly between neighbours."""
    position = q * (len(ordered) - 1)
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (position - below) * (ordered[above] - ordered[below])


# --- the dense linear algebra of goatarena/ratings/_linalg.py ---------------------------


def cholesky(matrix: list[list[float]]) -> list[list[float]]:
    """The lower factor ``L`` of a symmetric positive definite matrix, ``A = L·Lᵀ``."""
    size = len(matrix)
    floor = 1e-12 * max(matrix[i][i] for i in range(size))
    lower = [[0.0] * size for _ in range(size)]
    for j in range(size):
        row_j = lower[j]
        pivot = matrix[j][j] - sum(x * x for x in row_j[:j])
        if pivot <= floor:
            raise ValueError(
                "the games do not determine the ratings (a seat or a bot's rating cannot "
                "be told apart from the others'); fit with prior_draws > 0"
            )
        diagonal = math.sqrt(pivot)
        row_j[j] = diagonal
        for i in range(j + 1, size):
            row_i = lower[i]
            row_i[j] = (
                matrix[i][j] - sum(a * b for a, b in zip(row_i[:j], row_j[:j], strict=True))
            ) / diagonal
    return lower


def solve(lower: list[list[float]], rhs: list[float]) -> list[float]:
    """Solve ``L·Lᵀ·x = rhs`` by forward and back substitution."""
    size = len(lower)
    y = [0.0] * size
    for i in range(size):
        y[i] = (rhs[i] - sum(lower[i][k] * y[k] for k in range(i))) / lower[i][i]
    x = [0.0] * size
    for i in reversed(range(size)):
        x[i] = (y[i] - sum(lower[k][i] * x[k] for k in range(i + 1, size))) / lower[i][i]
    return x


def inverse(matrix: list[list[float]]) -> list[list[float]]:
    """The inverse of a symmetric positive definite matrix, column by column."""
    lower = cholesky(matrix)
    size = len(matrix)
    columns = [solve(lower, [1.0 if r == c else 0.0 for r in range(size)]) for c in range(size)]
    return [[columns[c][r] for c in range(size)] for r in range(size)]


invert = inverse
