import math
import random
import statistics
import time

import numpy as np
import pytest

from goatarena.ratings.fit import (
    ELO_PER_NATURAL_LOG,
    Rating,
    fit,
    fit_ratings,
    likelihood_of_superiority,
    pair_score,
    points_from_ranks,
)

# --- simulation helpers ----------------------------------------------------------------


def plackett_luce(rng, gammas, names):
    """A finishing order of ``names`` drawn from the Plackett–Luce model, as name -> rank."""
    remaining = list(names)
    ranks = {}
    while remaining:
        pick = rng.random() * sum(gammas[n] for n in remaining)
        for name in remaining:
            pick -= gammas[name]
            if pick <= 0.0:
                break
        ranks[name] = len(ranks) + 1
        remaining.remove(name)
    return ranks


def tournament(rng, elos, table_sizes, games):
    """``games`` games, each at a random table of a size drawn from ``table_sizes``."""
    gammas = {name: 10.0 ** (elo / 400.0) for name, elo in elos.items()}
    names = sorted(elos)
    return [
        plackett_luce(rng, gammas, rng.sample(names, rng.choice(table_sizes))) for _ in range(games)
    ]


def centred(elos):
    mean = statistics.fmean(elos.values())
    return {name: 1500.0 + elo - mean for name, elo in elos.items()}


def beats(winner, loser):
    return {winner: 1, loser: 2}


# --- points_from_ranks -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("ranks", "points"),
    [
        ([1, 2, 3], [2.0, 1.0, 0.0]),
        ([1, 1, 3], [1.5, 1.5, 0.0]),
        ([3, 1, 2], [0.0, 2.0, 1.0]),
        ([1, 2, 2, 2], [3.0, 1.0, 1.0, 1.0]),
        ([1, 2, 2, 4], [3.0, 1.5, 1.5, 0.0]),
        ([1, 1], [0.5, 0.5]),
        ([1, 1, 1, 1], [1.5, 1.5, 1.5, 1.5]),
        ([1, 1, 2], [1.5, 1.5, 0.0]),  # dense ranks: only the order matters
        ([2, 1], [0.0, 1.0]),
        ([], []),
    ],
)
def test_points_from_ranks(ranks, points):
    assert points_from_ranks(ranks) == points


def test_points_from_ranks_always_hand_out_the_same_total():
    rng = random.Random(3)
    for _ in range(200):
        n = rng.randint(2, 6)
        ranks = [rng.randint(1, n) for _ in range(n)]
        assert sum(points_from_ranks(ranks)) == n * (n - 1) / 2


# --- pair_score ------------------------------------------------------------------------


def test_pair_score_against_a_hand_computed_example():
    # 6 wins, 2 draws, 2 losses: s = 7/10 = 0.7; w, d, l = 0.6, 0.2, 0.2;
    # var = 0.6·0.3² + 0.2·0.2² + 0.2·0.7² = 0.054 + 0.008 + 0.098 = 0.16;
    # stderr = sqrt(0.16/10) = 0.126491; interval 0.7 ± 1.96·0.126491 = [0.45208, 0.94792];
    # Elo = −400·log10(3/7) = 147.19; Elo(0.94792) = 504.0, Elo(0.45208) = −33.4,
    # margin = (504.0 + 33.4)/2 = 268.7; LOS = ½ + ½·erf(4/4) = 0.92135.
    stats = pair_score(6, 2, 2)
    assert stats.games == 10
    assert stats.score == pytest.approx(0.7)
    assert stats.stderr == pytest.approx(0.126491, abs=1e-6)
    assert stats.score_lo == pytest.approx(0.45208, abs=1e-4)
    assert stats.score_hi == pytest.approx(0.94792, abs=1e-4)
    assert stats.elo == pytest.approx(147.19, abs=0.01)
    assert stats.elo_margin == pytest.approx(268.7, abs=0.1)
    assert stats.los == pytest.approx(0.92135, abs=1e-5)
    assert stats.draw_ratio == pytest.approx(0.2)


def test_pair_score_even_match_and_perfect_score():
    even = pair_score(10, 5, 10)
    assert even.score == 0.5
    assert even.elo == 0.0
    assert even.los == 0.5
    assert even.score_lo == pytest.approx(1.0 - even.score_hi)
    perfect = pair_score(5, 0, 0)
    assert perfect.score == 1.0
    assert perfect.elo == math.inf
    assert perfect.stderr == 0.0
    all_draws = pair_score(0, 4, 0)
    assert all_draws.elo == 0.0
    assert all_draws.los == 0.5
    assert all_draws.elo_margin == 0.0


def test_pair_score_rejects_no_games_and_negative_counts():
    with pytest.raises(ValueError):
        pair_score(0, 0, 0)
    with pytest.raises(ValueError):
        pair_score(3, -1, 2)


# --- fit: exact small cases ------------------------------------------------------------


def test_two_bots_three_to_one_matches_the_hand_computed_fit():
    # Without the prior the MLE has γA/γB = 3: a gap of 400·log10(3) = 190.85 Elo, split
    # evenly about 1500. Hessian of the gap in ln γ: n·p(1−p) = 4·¾·¼ = ¾, so its stderr
    # is 173.72·sqrt(4/3) = 200.59 Elo and each centred rating has half that, 100.30.
    games = [beats("A", "B")] * 3 + [beats("B", "A")]
    result = fit(games, prior_draws=0)
    a, b = result.ratings["A"], result.ratings["B"]
    assert a.elo == pytest.approx(1500 + 95.424, abs=1e-3)
    assert b.elo == pytest.approx(1500 - 95.424, abs=1e-3)
    assert a.stderr == pytest.approx(100.296, abs=1e-3)
    assert a.lo == pytest.approx(a.elo - 1.959964 * a.stderr)
    assert a.hi == pytest.approx(a.elo + 1.959964 * a.stderr)
    assert (a.games, b.games) == (4, 4)
    # LOS = Φ(190.85 / 200.59) = Φ(0.9514) = 0.8293.
    assert result.los("A", "B") == pytest.approx(0.8293, abs=1e-4)
    assert likelihood_of_superiority(result, "B", "A") == pytest.approx(0.1707, abs=1e-4)
    assert result.los("A", "A") == 0.5
    assert result.cov("A", "B") == pytest.approx(-(a.stderr**2))


def test_fit_ratings_is_the_ratings_of_fit():
    games = [beats("A", "B"), beats("B", "C"), {"A": 1, "B": 2, "C": 3}]
    ratings = fit_ratings(games)
    assert ratings == fit(games).ratings
    assert list(ratings) == ["A", "B", "C"]
    assert all(isinstance(r, Rating) for r in ratings.values())


def test_no_games_gives_no_ratings():
    assert fit_ratings([]) == {}


def test_prior_shrinks_towards_the_mean_and_weakens_with_more_games():
    few = [beats("A", "B")] * 3 + [beats("B", "A")]
    gap_mle = fit_ratings(few, prior_draws=0)["A"].elo - 1500
    gap_prior = fit_ratings(few, prior_draws=1)["A"].elo - 1500
    assert 0 < gap_prior < gap_mle
    many = few * 100
    gap_many = fit_ratings(many, prior_draws=1)["A"].elo - 1500
    assert gap_many == pytest.approx(gap_mle, abs=1.0)


def test_ties_count_half():
    # One win plus one draw is 1.5 of 2, the same 3:1 ratio as three wins and a loss.
    with_draw = fit_ratings([beats("A", "B"), {"A": 1, "B": 1}], prior_draws=0)
    three_one = fit_ratings([beats("A", "B")] * 3 + [beats("B", "A")], prior_draws=0)
    assert with_draw["A"].elo == pytest.approx(three_one["A"].elo, abs=1e-6)
    # Bots tied at a table are rated equal, and above the bot they both beat.
    ratings = fit_ratings([{"A": 1, "B": 1, "C": 3}] * 4)
    assert ratings["A"].elo == pytest.approx(ratings["B"].elo, abs=1e-9)
    assert ratings["C"].elo < ratings["A"].elo
    # Drawn games alone leave everyone at 1500.
    drawn = fit_ratings([{"A": 1, "B": 1}, {"B": 2, "C": 2}, {"A": 1, "B": 1, "C": 1}])
    assert all(r.elo == pytest.approx(1500.0, abs=1e-9) for r in drawn.values())


def test_an_unbeaten_bot_stays_finite():
    games = [beats("A", "B")] * 30 + [{"A": 1, "B": 2, "C": 3}] * 10 + [beats("B", "C")] * 5
    ratings = fit_ratings(games)
    for rating in ratings.values():
        assert all(math.isfinite(x) for x in (rating.elo, rating.lo, rating.hi, rating.stderr))
    assert ratings["A"].elo > ratings["B"].elo > ratings["C"].elo
    assert ratings["A"].lo > 1500


def test_without_the_prior_an_unbeaten_bot_is_an_error():
    with pytest.raises(ValueError, match="prior_draws"):
        fit([beats("A", "B")] * 3, prior_draws=0)


def test_without_the_prior_unconnected_bots_are_an_error():
    games = [beats("A", "B"), beats("B", "A"), beats("C", "D"), beats("D", "C")]
    with pytest.raises(ValueError, match="prior_draws"):
        fit(games, prior_draws=0)
    ratings = fit_ratings(games)  # the prior connects them through the dummy
    assert all(r.elo == pytest.approx(1500.0, abs=1e-9) for r in ratings.values())


def test_bad_games_are_rejected():
    with pytest.raises(ValueError, match="two bots"):
        fit_ratings([{"A": 1}])
    with pytest.raises(ValueError, match="int"):
        fit_ratings([{"A": 1, "B": 1.5}])  # type: ignore[dict-item]
    with pytest.raises(ValueError):
        fit_ratings([beats("A", "B")], prior_draws=-1)


def test_covariance_rows_sum_to_zero_and_match_the_stderr():
    rng = random.Random(11)
    elos = {f"b{i}": 60.0 * i for i in range(5)}
    result = fit(tournament(rng, elos, [2, 3, 4], 200))
    for i, name in enumerate(result.names):
        assert sum(result.covariance[i]) == pytest.approx(0.0, abs=1e-6)
        assert result.cov(name, name) == pytest.approx(result.ratings[name].stderr ** 2)
    assert statistics.fmean(r.elo for r in result.ratings.values()) == pytest.approx(1500.0)


# --- fit: simulated tournaments --------------------------------------------------------


def test_order_independence():
    rng = random.Random(5)
    games = tournament(rng, {f"b{i}": 50.0 * i for i in range(7)}, [2, 3, 4, 6], 300)
    games.append({"b0": 1, "b1": 1, "b2": 3})
    reference = fit(games)
    for seed in range(3):
        shuffled = list(games)
        random.Random(seed).shuffle(shuffled)
        # also present each table's bots in another order
        shuffled = [dict(reversed(list(game.items()))) for game in shuffled]
        assert fit(shuffled) == reference  # exactly, not approximately


@pytest.mark.parametrize("table_sizes", [[2], [4], [3, 5, 6]])
def test_fitted_order_matches_the_true_order(table_sizes):
    rng = random.Random(2024)
    elos = {f"bot{i}": 70.0 * i for i in range(8)}
    ratings = fit_ratings(tournament(rng, elos, table_sizes, 3000))
    assert sorted(ratings, key=lambda name: ratings[name].elo) == sorted(elos, key=elos.get)
    for name, true in centred(elos).items():  # each 95 % interval may miss; 3.5 σ may not
        assert abs(ratings[name].elo - true) < 3.5 * ratings[name].stderr


@pytest.mark.parametrize("table_sizes", [[2], [4], [6], [2, 3, 4, 5, 6]])
def test_intervals_cover_the_true_ratings_at_about_the_nominal_rate(table_sizes):
    # 200 tournaments of 6 bots; the weight of a pair from a table of k (3/(k+1)) is what
    # makes the Hessian intervals honest for multiplayer tables: with weight 1 per pair,
    # 6-player tables cover only ~83 %, with 1/(k−1) ~99.5 %.
    rng = random.Random(sum(table_sizes))
    elos = {f"b{i}": 50.0 * i for i in range(6)}
    truth = centred(elos)
    covered = total = 0
    z_scores = []
    for _ in range(200):
        ratings = fit_ratings(tournament(rng, elos, table_sizes, 120))
        for name, rating in ratings.items():
            total += 1
            covered += rating.lo <= truth[name] <= rating.hi
            z_scores.append((rating.elo - truth[name]) / rating.stderr)
    assert 0.90 <= covered / total <= 0.99
    # The standard errors are the actual spread of the estimates, not just wide enough.
    assert 0.88 <= statistics.pstdev(z_scores) <= 1.12


def test_los_picks_out_the_clearly_stronger_bot():
    rng = random.Random(8)
    elos = {"weak": 0.0, "mid": 150.0, "strong": 300.0}
    result = fit(tournament(rng, elos, [2, 3], 400))
    assert result.los("strong", "weak") > 0.999
    assert result.los("weak", "strong") == pytest.approx(1.0 - result.los("strong", "weak"))
    assert 0.5 < result.los("mid", "weak") < 1.0


def test_fitting_twenty_bots_and_five_thousand_games_is_fast():
    rng = random.Random(99)
    elos = {f"bot{i:02d}": 35.0 * i for i in range(20)}
    games = tournament(rng, elos, [2, 3, 4, 5, 6], 5000)
    start = time.perf_counter()
    ratings = fit_ratings(games)
    elapsed = time.perf_counter() - start
    assert len(ratings) == 20
    assert elapsed < 1.0  # about 0.03 s measured; generous for a loaded machine
    # and right: the fitted spread matches the true one
    fitted = [ratings[name].elo for name in sorted(elos)]
    slope = statistics.linear_regression(list(elos.values()), fitted).slope
    assert slope == pytest.approx(1.0, abs=0.05)


def test_elo_scale_constant():
    assert pytest.approx(173.7178, abs=1e-4) == ELO_PER_NATURAL_LOG


# --- seats, groups and the reasons a fit fails -------------------------------------------


def test_without_the_prior_a_connected_field_with_an_unbeaten_bot_says_so():
    games = [beats("A", "B"), beats("B", "C"), beats("C", "B"), beats("A", "C")]
    with pytest.raises(ValueError, match="A never lost a point") as caught:
        fit(games, prior_draws=0)
    assert "connect" not in str(caught.value)
    games = [beats("A", "C"), beats("B", "C"), beats("A", "B"), beats("B", "A")]
    with pytest.raises(ValueError, match="A, B never lost a point to the other bots"):
        fit(games, prior_draws=0)


def test_without_the_prior_groups_that_never_met_are_named():
    games = [beats("A", "B"), beats("B", "A"), beats("C", "D"), beats("D", "C")]
    with pytest.raises(ValueError, match=r"2 groups never met \(A, B \| C, D\)"):
        fit(games, prior_draws=0)


def test_groups_of_bots_that_never_met_are_reported():
    games = [beats("A", "B"), {"C": 1, "D": 2, "E": 3}, beats("B", "A")]
    assert fit(games).groups == (("C", "D", "E"), ("A", "B"))
    assert fit(games + [beats("A", "E")]).groups == (("A", "B", "C", "D", "E"),)


def test_seat_advantage_is_estimated_jointly_and_sums_to_zero():
    # seat 0 wins 3 of 4 between equal bots, who take turns in it
    games = [beats("A", "B"), beats("B", "A")] * 30 + [{"A": 2, "B": 1}, {"B": 2, "A": 1}] * 10
    result = fit(games, seat_keys=["g"] * len(games))
    first, second = result.seat_advantage
    assert (first.key, first.players, first.seat) == ("g", 2, 0)
    assert first.elo == pytest.approx(-second.elo)
    assert first.lo < first.elo < first.hi
    exact = fit(games, prior_draws=0, seat_keys=["g"] * len(games)).seat_advantage[0]
    assert 2 * exact.elo == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert 0 < exact.elo - first.elo < 2  # the prior's virtual draws pull slightly to 0
    assert result.ratings["A"].elo == pytest.approx(1500.0)
    assert fit(games).seat_advantage == ()


def test_seat_keys_must_match_the_games():
    with pytest.raises(ValueError, match="seat keys"):
        fit([beats("A", "B")], seat_keys=["g", "g"])


def test_ties_narrow_the_intervals_by_the_sandwich():
    # A and B: one win each and two ties, so p = ½ at the MLE. Curvature of the gap:
    # 4·¼ = 1; the ties' share of it, 2·¼ = ½, is no variance. Var(gap) = (1 − ½)/1² = ½,
    # so each centred rating has stderr 173.72·sqrt(½)/2 = 61.42 (86.86 blind to ties).
    games = [beats("A", "B"), beats("B", "A"), {"A": 1, "B": 1}, {"B": 1, "A": 1}]
    aware = fit(games, prior_draws=0).ratings["A"]
    blind = fit(games, prior_draws=0, tie_aware=False).ratings["A"]
    assert aware.elo == blind.elo == pytest.approx(1500.0)
    assert aware.stderr == pytest.approx(61.418, abs=1e-3)
    assert blind.stderr == pytest.approx(86.859, abs=1e-3)


def test_without_ties_the_intervals_are_the_curvatures():
    rng = random.Random(5)
    games = tournament(rng, {"a": 0.0, "b": 100.0, "c": -50.0}, [2, 3], 40)
    aware, blind = fit(games), fit(games, tie_aware=False)
    assert aware == blind


def test_tie_aware_intervals_do_not_depend_on_the_column_blocks(monkeypatch):
    from goatarena.ratings import _newton

    rng = random.Random(9)
    games = tournament(rng, {f"b{n}": 40.0 * n for n in range(7)}, [2, 4], 60)
    for game in games[::3]:
        first, second = list(game)[:2]
        game[second] = game[first]
    keys = ["g"] * len(games)
    whole = fit(games, seat_keys=keys)
    monkeypatch.setattr(_newton, "SANDWICH_COLUMNS", 3)
    blocks = fit(games, seat_keys=keys)
    for name in whole.names:
        assert blocks.ratings[name].stderr == pytest.approx(whole.ratings[name].stderr, rel=1e-12)
    assert np.allclose(blocks.covariance, whole.covariance, rtol=1e-10, atol=1e-9)
    for a, b in zip(blocks.seat_advantage, whole.seat_advantage, strict=True):
        assert a.stderr == pytest.approx(b.stderr, rel=1e-12)
    # and the narrowing is real: every interval is narrower than the tie-blind one
    blind = fit(games, seat_keys=keys, tie_aware=False)
    assert all(whole.ratings[n].stderr < blind.ratings[n].stderr for n in whole.names)
