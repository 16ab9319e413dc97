"""The site's game index against a plain count of the same games: combined filters give
what a scan gives, and a bot's results per opponent, counted from the seat columns, are
what counting every pair of seats gives."""

from __future__ import annotations

import random
from itertools import product

import pytest

from goatarena.store.summary import GameSummary
from goatarena.web import index as index_module
from goatarena.web.index import MEETINGS, PLAYED, POINTS, WINS, Filters, GameIndex, Numbers

BOTS = [f"b{number}" for number in range(7)]
KINDS = ["goat-lords", "mountain-goats", "goat-n-goat"]


def made_up_games(count: int, seed: int = 3) -> list[GameSummary]:
    """Games of 2 to 5 seats, ties now and then, a bot in two seats now and then."""
    chooser = random.Random(seed)
    games = []
    for number in range(count):
        seats = chooser.randint(2, 5)
        players = [chooser.choice(BOTS) for _ in range(seats)]  # repeats allowed
        ranks = [chooser.randint(1, seats) for _ in range(seats)]
        violations = [["timeout"] if chooser.random() < 0.1 else [] for _ in range(seats)]
        games.append(GameSummary(key=f"k/{number}/r0", round=0, game=chooser.choice(KINDS),
                                 seed=number, players=players, ranks=ranks,
                                 scores=[0.0] * seats, violations=violations,
                                 forfeits=[None] * seats, latency=[None] * seats, decisions=0,
                                 duration_s=0.0, finished_at=0.0))  # fmt: skip
    return games


def filled(games: list[GameSummary]) -> tuple[GameIndex, list[int]]:
    """An index of ``games`` numbered with gaps (as a store's numbers may have)."""
    index = GameIndex()
    numbers = [2 * position + 1 for position in range(len(games))]
    with index.lock:
        for number, summary in zip(numbers, games, strict=True):
            index.add(number, summary)
    return index, numbers


def passes(summary: GameSummary, filters: Filters) -> bool:
    return (
        (filters.bot is None or filters.bot in summary.players)
        and (filters.game is None or summary.game == filters.game)
        and (not filters.violation or any(summary.violations))
    )


def test_combined_filters_give_what_a_scan_gives() -> None:
    games = made_up_games(3_000)
    index, numbers = filled(games)
    for bot, game, violation in product([None, *BOTS, "nobody"], [None, *KINDS], [False, True]):
        filters = Filters(bot=bot, game=game, violation=violation)
        scanned = [n for n, summary in zip(numbers, games, strict=True) if passes(summary, filters)]
        assert index.numbers(filters).tolist() == scanned, filters
        assert index.latest(filters, 7) == scanned[-7:]
        page, total, following = index.page(filters, after=None, page=2, limit=10)
        assert (page, total) == (scanned[20:30], len(scanned))
        assert following == (page[-1] if len(scanned) > 30 else None)
        if page:
            after, _, _ = index.page(filters, after=page[0], page=None, limit=10)
            assert after == scanned[21:31]
        assert index.passing_up_to(filters, 1_001) == sum(n <= 1_001 for n in scanned)


def counted_pairwise(games: list[GameSummary], bot: str) -> dict[str, list[float]]:
    """``bot``'s games, wins, points and meetings per opponent, seat by seat."""
    found: dict[str, list[float]] = {}
    for summary in games:
        for seat, player in enumerate(summary.players):
            if player != bot:
                continue
            for other, rival in enumerate(summary.players):
                if other == seat:
                    continue
                mine, theirs = summary.ranks[seat], summary.ranks[other]
                share = 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
                counts = found.setdefault(rival, [0, 0, 0.0, 0])
                counts[PLAYED] += 1
                counts[WINS] += share == 1.0
                counts[POINTS] += share
                counts[MEETINGS] += 1
    return found


def test_results_per_opponent_are_those_of_every_pair_of_seats(monkeypatch) -> None:
    monkeypatch.setattr(index_module, "GAMES_A_PASS", 700)  # head to head in a few passes
    games = made_up_games(2_000, seed=5)
    index, _ = filled(games)
    for bot in BOTS:
        expected = counted_pairwise(games, bot)
        found = dict(index.opponents(bot))
        assert found.keys() == expected.keys()
        for rival, counts in expected.items():
            assert found[rival] == pytest.approx(counts), (bot, rival)
    assert index.opponents("nobody") == []
    cells = index.head_to_head([*BOTS[:4], "nobody"])
    for a, b in product(BOTS[:4], repeat=2):
        counts = counted_pairwise(games, a).get(b)
        if a == b or counts is None:
            assert (a, b) not in cells
        else:
            assert cells[a, b] == (pytest.approx(counts[POINTS]), counts[MEETINGS])


def test_numbers_grow_in_place_and_answer_python_ints() -> None:
    numbers = Numbers()
    early = numbers.view()
    for value in range(1_000):
        numbers.append(value * 3)
    assert len(early) == 0  # a view taken earlier still shows what was there then
    assert list(numbers) == [value * 3 for value in range(1_000)]
    tail = numbers[-3:]
    assert tail == [2_991, 2_994, 2_997] and all(type(value) is int for value in tail)
    assert numbers[5] == 15 and type(numbers[5]) is int
    assert numbers.nbytes < 1.2 * 4 * 1_000 + 64
    with pytest.raises(ValueError):
        numbers.view()[0] = 1  # read-only


def test_counts_kept_from_an_earlier_asking_grow_with_the_games_stored_since(monkeypatch) -> None:
    monkeypatch.setattr(index_module, "GAMES_A_PASS", 300)
    games = made_up_games(1_500, seed=8)
    late = GameSummary(key="k/late/r0", round=0, game=KINDS[0], seed=0, players=["b0", "new"],
                       ranks=[2, 1], scores=[0.0, 1.0], violations=[[], []],
                       forfeits=[None, None], latency=[None, None], decisions=0,
                       duration_s=0.0, finished_at=0.0)  # fmt: skip
    index, numbers = filled(games[:700])
    for bot in BOTS:
        index.opponents(bot)  # counted and kept up to here
    with index.lock:
        for position, summary in enumerate([*games[700:], late]):
            index.add(numbers[-1] + 2 * (position + 1), summary)
    for bot in [*BOTS, "new"]:
        expected = counted_pairwise([*games, late], bot)
        found = dict(index.opponents(bot))
        assert found.keys() == expected.keys(), bot
        for rival, counts in expected.items():
            assert found[rival] == pytest.approx(counts), (bot, rival)
    assert index.head_to_head(["b0", "new"]) == {("b0", "new"): (0.0, 1), ("new", "b0"): (1.0, 1)}
