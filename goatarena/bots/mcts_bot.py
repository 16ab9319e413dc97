"""A Monte Carlo tree search bot for every goatarena game (information-set MCTS).

Each decision it samples full states consistent with its observation, simulates them
with goatarena's own engines in process and picks the move the search visited most
(``goatarena.strategy.mcts`` explains the method). A game without a strategy is played
at random.

Time: each decision searches for min(--ms, --fraction x the time left for it); the clock
is checked after every iteration, and one iteration is a fraction of a millisecond to a
few milliseconds, so the answer is written well before the deadline.

    builtin:mcts [--ms 100] [--fraction 0.5] [--seed N]
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from goatarena.sdk import Request, SeededBot, log, run
from goatarena.strategy import STRATEGIES
from goatarena.strategy.mcts import search


class MctsBot(SeededBot):
    """Searches each decision for a fixed share of its time."""

    name = "mcts"

    def __init__(
        self,
        ms: float = 100.0,
        fraction: float = 0.5,
        seed: int | None = None,
        verbose: bool = False,
    ) -> None:
        super().__init__(seed)
        self.ms = ms
        self.fraction = fraction
        self.verbose = verbose

    def choose(self, request: Request) -> int:
        strategy = STRATEGIES.get(self.game)
        if strategy is None:
            return self.rng.randrange(len(request.actions))
        seconds = min(self.ms / 1000, request.time_left * self.fraction)
        result = search(
            strategy,
            request.observation,
            request.actions,
            self.rng,
            options=self.options,
            history=[event.action for event in request.history],
            seconds=max(0.0, seconds),
        )
        if self.verbose:
            log(
                f"decision {request.decision}: {result.iterations} iterations"
                f" in {result.elapsed * 1000:.1f} ms, chose {result.index}"
            )
        return result.index


def main(argv: Sequence[str] | None = None) -> None:
    """Play games on stdin/stdout until the referee says quit."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--ms", type=float, default=100.0, help="search time per decision, at most")
    parser.add_argument(
        "--fraction", type=float, default=0.5, help="share of the decision's time to use at most"
    )
    parser.add_argument("--seed", type=int, default=None, help="a fixed seed for every game")
    parser.add_argument("--verbose", action="store_true", help="log every search to stderr")
    args = parser.parse_args(argv)
    run(MctsBot(args.ms, args.fraction, args.seed, args.verbose))


if __name__ == "__main__":
    main()
