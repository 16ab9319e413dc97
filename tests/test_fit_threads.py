"""Fits side by side: tally snapshots, warm starts, the shared BLAS limit, the threads."""

from __future__ import annotations

import random
import threading
import time

import pytest
from threadpoolctl import threadpool_info

from goatarena.ratings import _threads
from goatarena.ratings.fit import fit_tally
from goatarena.ratings.standings import StandingsTally
from goatarena.ratings.tally import PairTally
from tests.test_ratings import tournament

ELOS = {f"bot{n}": 40.0 * n for n in range(8)}


def games(seed, count, sizes=(4,)):
    return tournament(random.Random(seed), ELOS, sizes, count)


def tally_of(played, keys=True, patterns=True):
    tally = PairTally(patterns=patterns)
    for game in played:
        tally.add(list(game), list(game.values()), "g" if keys else None)
    return tally


def test_a_snapshot_keeps_the_games_it_was_taken_of():
    first, later = games(1, 150), games(2, 150)
    tally = tally_of(first)
    snapshot = tally.snapshot()
    for game in later:
        tally.add(list(game), list(game.values()), "g")
    tally.add(["new0", "new1", "new2", "new3"], [1, 2, 3, 4], "other")
    assert snapshot.games == 150 and "new0" not in snapshot.names
    assert fit_tally(snapshot) == fit_tally(tally_of(first))
    assert fit_tally(tally, seat_key="g") == fit_tally(tally_of(first + later))


def test_a_tally_without_patterns_fits_by_pairs_and_refuses_the_exact_fit():
    played = games(3, 200)
    without = tally_of(played, patterns=False)
    assert without.patterns() == []
    assert fit_tally(without, exact=False) == fit_tally(tally_of(played), exact=False)
    with pytest.raises(ValueError, match="patterns"):
        fit_tally(without)


@pytest.mark.parametrize("exact", [True, False])
def test_a_warm_start_from_an_earlier_point_reaches_the_same_fit(exact):
    played = games(4, 400, sizes=(2, 3, 4))
    earlier = fit_tally(tally_of(played[:250]), exact=exact)
    cold = fit_tally(tally_of(played), exact=exact)
    warm = fit_tally(tally_of(played), exact=exact, start=earlier)
    # the exact fit's cold start is the pairwise fit, which a warm start skips
    assert warm.iterations < cold.iterations or exact and warm.iterations <= cold.iterations
    for name, rating in cold.ratings.items():
        assert warm.ratings[name].elo == pytest.approx(rating.elo, abs=1e-6)
        assert warm.ratings[name].hi == pytest.approx(rating.hi, abs=1e-6)


def test_a_start_of_other_bots_is_ignored():
    played = games(5, 300)
    renamed = [{f"x{name}": rank for name, rank in game.items()} for game in played]
    other = fit_tally(tally_of(renamed))
    cold = fit_tally(tally_of(played))
    assert fit_tally(tally_of(played), start=other) == cold
    assert fit_tally(tally_of(played), start=other).iterations == cold.iterations


def _blas_limits():
    return sorted((lib["internal_api"], lib["num_threads"]) for lib in threadpool_info()
                  if lib["user_api"] == "blas")  # fmt: skip


def test_fits_in_threads_share_one_blas_limit_and_lift_it_after_the_last():
    before = _blas_limits()
    inside = []
    gate = threading.Barrier(2)

    def hold(_):
        with _threads.one_blas_thread():
            gate.wait(timeout=10)  # both threads hold the limit at once
            inside.append(_blas_limits())
            gate.wait(timeout=10)
        return True

    assert _threads.map_in_threads(hold, [0, 1], workers=2) == [True, True]
    assert all(num == 1 for limits in inside for _, num in limits)
    assert _blas_limits() == before


def test_map_in_threads_keeps_the_order_and_raises_an_error_of_any_call():
    assert _threads.map_in_threads(lambda n: n * n, list(range(7)), workers=3) == [
        n * n for n in range(7)
    ]

    def fails(n):
        if n == 2:
            raise ValueError("two")
        return n

    with pytest.raises(ValueError, match="two"):
        _threads.map_in_threads(fails, [0, 1, 2, 3], workers=2)


def test_background_calls_wait_when_too_many_are_started():
    running = []
    most = [0]
    lock = threading.Lock()

    def slow(n):
        with lock:
            running.append(n)
            most[0] = max(most[0], len(running))
        time.sleep(0.02)
        with lock:
            running.remove(n)
        return n

    with _threads.Background(workers=2) as background:
        futures = [background.submit(slow, n) for n in range(12)]
        # submit waits once 2 run and 2 more are queued: never more are started
        assert sum(not future.done() for future in futures) <= 4
    assert [future.result() for future in futures] == list(range(12))
    assert most[0] <= 2


def test_standings_fitted_in_threads_are_the_standings_fitted_one_by_one(monkeypatch):
    played = games(6, 300, sizes=(3, 4))
    kinds = [random.Random(n).choice(["a", "b", "c"]) for n in range(len(played))]

    def standings():
        tally = StandingsTally()
        for game, kind in zip(played, kinds, strict=True):
            seats = len(game)
            tally.add(kind, list(game), list(game.values()), [1.0] * seats, [[]] * seats,
                      [None] * seats)  # fmt: skip
        return tally.standings("t")

    threaded = standings()
    monkeypatch.setattr(_threads, "usable_cpus", lambda: 1)
    assert standings() == threaded
    assert set(threaded.standings) == {"overall", "a", "b", "c"}


def _standings_tally(played, kinds, violations):
    tally = StandingsTally()
    for game, kind, broke in zip(played, kinds, violations, strict=True):
        seats = len(game)
        causes = [["timeout"] if broke == seat else [] for seat in range(seats)]
        latency = [None if seat == 1 else _Timed(1.0 + seat, 3.0 * seat) for seat in range(seats)]
        scores = [float(rank * 3 + seat) for seat, rank in enumerate(game.values())]
        tally.add(kind, list(game), list(game.values()), scores, causes, latency)
    return tally


class _Timed:
    def __init__(self, median_ms, max_ms):
        self.median_ms, self.max_ms = median_ms, max_ms


@pytest.mark.parametrize("split", [0, 1, 170, 399, 400])
def test_a_tally_that_absorbs_another_has_the_standings_of_both_halves(split):
    rng = random.Random(split)
    played = games(8, 400, sizes=(2, 3, 4))
    names = ["late"] + sorted(ELOS)
    played = [{names[(list(ELOS).index(b) + n) % 9]: r for b, r in g.items()}
              for n, g in enumerate(played)]  # fmt: skip
    kinds = [rng.choice(["a", "b", "c"]) for _ in played]
    broke = [rng.choice([None, None, None, 0, 1]) for _ in played]
    whole = _standings_tally(played, kinds, broke).standings("t")
    first = _standings_tally(played[:split], kinds[:split], broke[:split])
    first.absorb(_standings_tally(played[split:], kinds[split:], broke[split:]))
    assert first.standings("t") == whole
    assert first.violations() == _standings_tally(played, kinds, broke).violations()


def test_pair_tallies_absorb_games_without_seat_terms_and_patterns_alike():
    played = games(9, 300, sizes=(2, 4))
    keys = [None if n % 3 else "g" for n in range(len(played))]

    def tally_of_keys(part, part_keys, patterns=True):
        tally = PairTally(patterns=patterns)
        for game, key in zip(part, part_keys, strict=True):
            tally.add(list(game), list(game.values()), key)
        return tally

    for patterns in (True, False):
        whole = tally_of_keys(played, keys, patterns)
        half = tally_of_keys(played[:120], keys[:120], patterns)
        half.absorb(tally_of_keys(played[120:][::-1], keys[120:][::-1], patterns))
        assert half.games == whole.games and half.played() == whole.played()
        for key in (None, "g"):
            assert fit_tally(half, seat_key=key, exact=patterns) == fit_tally(
                whole, seat_key=key, exact=patterns
            )
    with pytest.raises(ValueError, match="patterns"):
        PairTally().absorb(PairTally(patterns=False))
