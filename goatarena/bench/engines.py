"""The engines in process: random games, and their decisions, per second."""

from __future__ import annotations

import random
import time

from goatarena.games import GameInfo
from goatarena.testing import random_playout


def playouts_per_second(info: GameInfo, players: int, seconds: float) -> tuple[float, float]:
    """In-process random games of ``info``: (games per second, decisions per game)."""
    rng = random.Random(0)
    games = decisions = 0
    started = time.perf_counter()
    while True:
        state = random_playout(info.new_state(players, games), rng)
        games += 1
        decisions += len(state.history)
        elapsed = time.perf_counter() - started
        if elapsed >= seconds:
            return games / elapsed, decisions / games
