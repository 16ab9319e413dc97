"""The live leaderboard's deal-adjusted intervals (goatarena.running.leaderboard): kept as
deal patterns, they are the standings' deal-clustered ones at the board's fit."""

from __future__ import annotations

import random

import pytest

from goatarena.ratings.clusters import DealScores, deal_adjusted
from goatarena.ratings.fit import fit_tally
from goatarena.ratings.tally import PairTally
from goatarena.running.leaderboard import Leaderboard, board_lines
from tests.test_progress import result

BOTS = ["a", "b", "c", "d", "e"]


def rotated_deals(rng: random.Random, seats: int, deals: int):
    """(key, players, ranks) of every rotation of ``deals`` deals at random tables, the
    rotations of a deal one after another, the first bot in seat 0 usually winning."""
    for number in range(deals):
        table = rng.sample(BOTS, seats)
        for turn in range(seats):
            seated = table[turn:] + table[:turn]
            order = sorted(range(seats), key=lambda s: rng.random() - (0.4 if s == 0 else 0))
            ranks = [order.index(s) + 1 for s in range(seats)]
            yield f"0.mountain-goats/t{number:06d}/{'+'.join(table)}/r{turn}", seated, ranks


@pytest.mark.parametrize("seats", [2, 3])
def test_the_board_s_deal_intervals_are_the_deal_clustered_ones_of_its_fit(seats):
    games = list(rotated_deals(random.Random(seats), seats, 60))
    board = Leaderboard()
    tally = PairTally()
    for key, players, ranks in games:
        board.add(result(players, ranks), key)
        tally.add(players, ranks)
    rating_fit = fit_tally(tally)
    scores = DealScores(rating_fit)
    for key, players, ranks in games:  # the standings' way: a second pass, game by game
        scores.add(key.rsplit("/", 1)[0], players, ranks)
    expected = deal_adjusted(scores).ratings
    rows = board.rows()
    assert len(rows) == len(BOTS)
    for row in rows:
        assert row.lo == pytest.approx(rating_fit.ratings[row.bot].lo)
        assert row.deal_lo == pytest.approx(expected[row.bot].lo, abs=1e-6)
        assert row.deal_hi == pytest.approx(expected[row.bot].hi, abs=1e-6)
    assert board.rows("mountain-goats") == rows


def test_at_two_seats_the_patterns_grow_with_the_pairs_not_the_games():
    board = Leaderboard()
    for key, players, ranks in rotated_deals(random.Random(5), 2, 2000):
        board.add(result(players, ranks), key)
    patterns = board._deals["overall"]
    pairs = len(BOTS) * (len(BOTS) - 1) // 2
    # each seat order of two bots: 2 × 2 finishes per deal (no ties here), 4 per pair
    assert len(patterns.closed) <= 4 * pairs and not patterns.open
    assert sum(patterns.closed.values()) == 2000


def test_without_rotated_deals_only_the_raw_interval_is_shown():
    board = Leaderboard()
    for number in range(6):  # a Swiss: every deal played once, keys without a rotation
        board.add(result(["a", "b"], [1, 2] if number % 3 else [2, 1]), f"sw/s1/a+b/d{number}")
    rows = board.rows()
    assert all(row.deal_lo is None and row.deal_hi is None for row in rows)
    assert "deal" not in board_lines("overall", rows, 10)[0]


def test_a_deal_still_being_played_counts_as_it_stands():
    board = Leaderboard()
    games = list(rotated_deals(random.Random(9), 3, 10))
    for key, players, ranks in games[:-1]:  # the last deal lacks its third rotation
        board.add(result(players, ranks), key)
    assert len(board._deals["overall"].open) == 1
    lines = board_lines("overall", board.rows(), 10)
    assert "deal +/-" in lines[0] and len(lines) == 1 + len({bot for _, p, _ in games for bot in p})


def test_past_the_pattern_cap_the_deals_kept_stand_for_all(monkeypatch):
    from goatarena.running import leaderboard

    games = list(rotated_deals(random.Random(11), 4, 120))
    full = Leaderboard()
    for key, players, ranks in games:
        full.add(result(players, ranks), key)
    monkeypatch.setattr(leaderboard, "MAX_PATTERNS", 60)
    capped = Leaderboard()
    for key, players, ranks in games:
        capped.add(result(players, ranks), key)
    patterns = capped._deals["overall"]
    assert len(patterns.closed) == 60 and patterns.total == 120 and patterns.weight == 2.0
    for exact, sampled in zip(full.rows(), capped.rows(), strict=True):
        assert sampled.lo == exact.lo  # the raw interval is the whole tally's
        assert exact.deal_hi is not None and sampled.deal_hi is not None
        exact_margin, sampled_margin = exact.deal_hi - exact.elo, sampled.deal_hi - sampled.elo
        assert sampled_margin == pytest.approx(exact_margin, rel=0.2)  # half the deals: close
