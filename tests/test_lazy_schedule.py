"""The lazy schedule plays exactly the games of the eager one, in the same order.

The eager builders below are the schedule as it was written before it was made lazy
(every game built into one list up front), kept here as the reference.
"""

from __future__ import annotations

import itertools
import random

import pytest

from goatarena.formats.config import GameEntry, TournamentConfig
from goatarena.formats.pairing import iter_tables
from goatarena.formats.schedule import (
    ScheduledGame,
    deal_number,
    deal_seed,
    entry_label,
    schedule_games,
    schedule_keys,
)
from goatarena.formats.size import count_games


def eager_round_robin(config: TournamentConfig, secret: str = "") -> list[ScheduledGame]:
    bots = list(config.bots)
    games = []
    for index, entry in enumerate(config.games):
        label = entry_label(index, entry)
        for table in itertools.combinations(bots, entry.players):
            for deal in range(config.deals):
                table_key = f"{label}/{'+'.join(table)}/d{deal}"
                seed = deal_seed(config.seed, table_key, secret=secret)
                rotations = [table[i:] + table[:i] for i in range(len(table))]
                for rotation, seating in enumerate(rotations):
                    games.append(
                        ScheduledGame(
                            key=f"{table_key}/r{rotation}",
                            game=entry.name,
                            seed=seed,
                            seating=tuple(seating),
                            options=dict(entry.options),
                        )
                    )
    return games


def eager_gauntlet(config: TournamentConfig, secret: str = "") -> list[ScheduledGame]:
    challengers = set(config.challengers)
    games = [
        game for game in eager_round_robin(config, secret) if challengers.intersection(game.seating)
    ]
    return sorted(games, key=lambda game: deal_number(game.key))


def eager(config: TournamentConfig, secret: str = "") -> list[ScheduledGame]:
    return (eager_gauntlet if config.format == "gauntlet" else eager_round_robin)(config, secret)


def tournament(bots: int, sizes: list[int], deals: int, **fields) -> TournamentConfig:
    games = [
        GameEntry(name=f"g{i}", players=size, options={"variant": i})
        for i, size in enumerate(sizes)
    ]
    names = {f"bot{i:02d}": f"cmd{i}" for i in range(bots)}
    return TournamentConfig(name="t", bots=names, games=games, deals=deals, seed=7, **fields)


def configs() -> list[TournamentConfig]:
    """Round-robins and gauntlets over table sizes 2 to 6, deals, several entries, and
    challengers anywhere in the list of bots (first, last, several)."""
    rng = random.Random(24)
    made = []
    for bots in (2, 3, 5, 7, 9):
        for size in range(2, min(bots, 6) + 1):
            for deals in (1, 3):
                made.append(tournament(bots, [size], deals))
                others = [rng.randint(2, bots) for _ in range(2)]
                made.append(tournament(bots, [size, *others], deals))
                names = [f"bot{i:02d}" for i in range(bots)]
                for challengers in ([names[0]], [names[-1]], rng.sample(names, min(2, bots))):
                    made.append(
                        tournament(
                            bots, [size, *others], deals, format="gauntlet", challengers=challengers
                        )
                    )
    return made


@pytest.mark.parametrize("secret", ["", "s3cret"])
def test_the_lazy_schedule_is_the_eager_one_game_for_game(secret):
    for config in configs():
        lazy = list(schedule_games(config, secret=secret))
        assert lazy == eager(config, secret), config
        assert list(schedule_keys(config)) == [game.key for game in lazy]
        assert count_games(config) == len(lazy)


@pytest.mark.parametrize("format_", ["round-robin", "gauntlet"])
def test_a_grown_file_schedules_the_old_games_as_they_were_and_the_new_ones_as_eagerly(format_):
    fields = {"format": format_, "challengers": ["bot00"]} if format_ == "gauntlet" else {}
    old = tournament(4, [2, 3], 2, **fields)
    for grown in (
        tournament(6, [2, 3], 2, **fields),  # more bots
        tournament(4, [2, 3, 4], 2, **fields),  # another game entry at the end
        tournament(4, [2, 3], 5, **fields),  # more deals
        tournament(6, [2, 3, 2], 4, **fields),  # all three at once
    ):
        lazy = list(schedule_games(grown))
        assert lazy == eager(grown)
        by_key = {game.key: game for game in lazy}
        assert all(by_key[game.key] == game for game in schedule_games(old))


def test_the_tables_of_a_challenger_are_made_without_visiting_the_others():
    bots = [f"b{i}" for i in range(3000)]
    last = list(iter_tables(bots, 2, seating={"b2999"}))
    assert last == [(bot, "b2999") for bot in bots[:-1]]
    # Three seats, one challenger among 3,000: C(2999, 2) tables in lexicographic order.
    first = iter_tables(bots, 3, seating={"b0"})
    assert list(itertools.islice(first, 3)) == [
        ("b0", "b1", "b2"),
        ("b0", "b1", "b3"),
        ("b0", "b1", "b4"),
    ]


def test_the_schedule_of_a_million_games_starts_at_once():
    config = tournament(2, [2], 500_000)
    games = schedule_games(config)
    first = next(games)
    assert first.key == "0.g0.2p/bot00+bot01/d0/r0"
    assert next(games).seating == ("bot01", "bot00")


def test_a_table_larger_than_the_field_is_refused_when_the_schedule_is_asked_for():
    with pytest.raises(ValueError, match="cannot fill"):
        schedule_games(tournament(3, [4], 1))
    with pytest.raises(ValueError, match="cannot fill"):
        schedule_games(tournament(3, [4], 1, format="gauntlet", challengers=["bot00"]))
