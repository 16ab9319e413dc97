"""Counting a tournament's games without building its schedule."""

from __future__ import annotations

import pytest

from goatarena.errors import ConfigError
from goatarena.formats.config import GameEntry, TournamentConfig
from goatarena.formats.schedule import gauntlet_schedule, round_robin_schedule
from goatarena.formats.size import MAX_GAMES, check_size, count_games


def config(bots: int, *, players: int = 2, deals: int = 1, **fields) -> TournamentConfig:
    return TournamentConfig(
        name="t",
        bots={f"b{i}": "x" for i in range(bots)},
        games=[GameEntry(name="mountain-goats", players=players), GameEntry(name="goat-lords")],
        deals=deals,
        **fields,
    )


@pytest.mark.parametrize(("bots", "players", "deals"), [(2, 2, 1), (5, 3, 2), (6, 4, 3), (7, 2, 1)])
def test_the_count_is_the_length_of_the_round_robin_schedule(bots, players, deals):
    tournament = config(bots, players=players, deals=deals)
    assert count_games(tournament) == len(round_robin_schedule(tournament))


@pytest.mark.parametrize("challengers", [["b0"], ["b0", "b3"]])
def test_the_count_is_the_length_of_the_gauntlet_schedule(challengers):
    tournament = config(6, players=3, deals=2, format="gauntlet", challengers=challengers)
    assert count_games(tournament) == len(gauntlet_schedule(tournament))


def test_a_swiss_counts_rounds_times_tables_times_deals():
    # 9 bots: 4 two-player tables (one bye) and 3 three-player tables per round.
    tournament = config(9, players=3, deals=2, format="swiss", rounds=5)
    assert count_games(tournament) == 5 * 3 * 2 + 5 * 4 * 2


def test_a_tournament_past_the_limit_is_refused_with_its_size():
    check_size(config(2, deals=MAX_GAMES // 4))  # 2 games a deal in each of 2 entries
    with pytest.raises(ConfigError, match="asks for 1,000,004 games"):
        check_size(config(2, deals=MAX_GAMES // 4 + 1))
