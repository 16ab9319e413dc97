"""Large synthetic results databases, built fast, for the scale benchmarks.

The games are real: a pool of random playouts of every game type (their whole move
histories, so the stored records have their true size), dealt out again under new keys
and seatings of ``bots`` bots, with a few violations and a latency per seat, so that every
reader has the work it has on a real store. Rows go in with ``executemany`` in one
transaction (:meth:`goatarena.store.Store.add_games`), some 20,000 games a second, so a
million-game database takes about a minute instead of a day of play.

``benchmarks/scale.py`` (the growth table of ``make bench``) and the store benchmarks
build their databases with :func:`build_store`.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Sequence
from pathlib import Path

from goatarena.games import GAMES, find_game
from goatarena.referee.records import Latency, MatchResult, Violation
from goatarena.store.opening import open_store
from goatarena.testing import random_playout

POOL = 25
"""Distinct playouts per game type."""
VIOLATION_RATE = 0.02
"""The share of seats that get a timeout (a random move, not a forfeit)."""


def bot_names(bots: int) -> list[str]:
    """The synthetic bots' names: ``bot0000``, ``bot0001``, ..."""
    return [f"bot{number:04d}" for number in range(bots)]


def synthetic_games(
    count: int,
    *,
    bots: int,
    players: int = 4,
    game_types: Sequence[str] | None = None,
    seed: int = 1,
) -> Iterator[tuple[str, int, MatchResult]]:
    """``count`` finished games (key, round, result), round-robin over the game types:
    each a pooled playout dealt to a random seating of ``players`` of the ``bots`` bots."""
    kinds = list(
        game_types or [name for name, info in GAMES.items() if players <= info.max_players]
    )
    if not kinds:
        raise ValueError(f"no game type is played at {players} players")
    pool = {
        name: [
            random_playout(find_game(name).new_state(players, number), random.Random(number))
            for number in range(POOL)
        ]
        for name in kinds
    }
    chooser = random.Random(seed)
    names = bot_names(bots)
    for number in range(count):
        name = kinds[number % len(kinds)]
        state = pool[name][number // len(kinds) % POOL]
        outcome = state.result()
        seating = chooser.sample(names, players)
        strikes = [
            [Violation("timeout", "synthetic", 1, "random-move")]
            if chooser.random() < VIOLATION_RATE
            else []
            for _ in range(players)
        ]
        latency = [
            Latency(len(state.history) // players, round(chooser.uniform(0.1, 5.0), 3),
                    round(chooser.uniform(5.0, 50.0), 3))
            for _ in range(players)
        ]  # fmt: skip
        result = MatchResult(
            game=name,
            seed=state.seed,
            players=seating,
            scores=outcome.scores,
            ranks=outcome.ranks,
            violations=[None] * players,
            decisions=state.history,
            latency=list(latency),
            all_violations=strikes,
            duration_s=round(chooser.uniform(0.05, 2.0), 3),
        )
        key = f"0.{name}.{players}p/{'+'.join(seating)}/d{number}/r0"
        yield key, 0, result


def build_store(
    path: Path,
    games: int,
    *,
    bots: int,
    players: int = 4,
    game_types: Sequence[str] | None = None,
    seed: int = 1,
) -> int:
    """Write a results database of ``games`` synthetic games at ``path`` (which must not
    exist yet), bound to a round-robin tournament of its bots. Returns the games stored."""
    if path.exists():
        raise FileExistsError(f"{path} exists already")
    store = open_store(path)
    try:
        config = {
            "name": "synthetic",
            "format": "round-robin",
            "bots": dict.fromkeys(bot_names(bots), "none"),
        }
        store.claim(tournament="synthetic", fingerprint="synthetic", config_json=json.dumps(config))
        rows = synthetic_games(games, bots=bots, players=players, game_types=game_types, seed=seed)
        return store.add_games(rows)
    finally:
        store.close()
