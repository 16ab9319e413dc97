"""A greedy bot for every goatarena game: the best immediate outcome by a hand-made score.

For each legal action it rebuilds full states from its observation (dealing what it
cannot see at random), applies the action, finishes its own turn greedily and scores the
position with the game's evaluation in ``goatarena.strategy``. A game without a strategy
is played at random.

    builtin:greedy [--seed N] [--fraction F]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from goatarena.sdk import Request, SeededBot, run
from goatarena.strategy import STRATEGIES, greedy_choice


class GreedyBot(SeededBot):
    """Chooses the action that evaluates best one turn ahead."""

    name = "greedy"

    def __init__(self, seed: int | None = None, fraction: float = 0.5) -> None:
        super().__init__(seed)
        self.fraction = fraction

    def choose(self, request: Request) -> int:
        strategy = STRATEGIES.get(self.game)
        if strategy is None:
            return self.rng.randrange(len(request.actions))
        deadline = time.perf_counter() + request.time_left * self.fraction
        return greedy_choice(
            strategy,
            request.observation,
            request.actions,
            self.rng,
            self.options,
            [event.action for event in request.history],
            deadline=deadline,
        )


def main(argv: Sequence[str] | None = None) -> None:
    """Play games on stdin/stdout until the referee says quit."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seed", type=int, default=None, help="a fixed seed for every game")
    parser.add_argument(
        "--fraction", type=float, default=0.5, help="share of the decision's time to use at most"
    )
    args = parser.parse_args(argv)
    run(GreedyBot(args.seed, args.fraction))


if __name__ == "__main__":
    main()
