"""A bot that plays every goatarena game with OpenSpiel's Monte Carlo tree search.

Each decision it deals full states consistent with what it sees (goatarena's own
samplers, ``goatarena.strategy``), runs OpenSpiel's MCTS (``open_spiel.python.algorithms
.mcts``) on each through the OpenSpiel registration of the games
(``goatarena.envs.openspiel``), adds up the visits of each action over the deals and plays
the most visited: determinized MCTS, with OpenSpiel doing the search. A leaf is valued by
goatarena's evaluation of the game (each seat's chance to finish ahead of each other,
from the strategy's estimate of the final scores), or with ``--rollouts`` by OpenSpiel's
random playouts to the end. Needs the ``rl`` extra (``pip install 'goatarena[rl]'``).

    python3 bots/python/openspiel_bot.py [--ms 200] [--simulations 40] [--rollouts] [--seed N]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Sequence

import numpy as np
from open_spiel.python.algorithms import mcts

from goatarena.envs import numbering
from goatarena.envs.openspiel import load_game, spiel_state
from goatarena.sdk import GameStart, Request, SeededBot, run
from goatarena.strategy import STRATEGIES, Strategy
from goatarena.strategy.base import value_rewards


class StrategyEvaluator(mcts.Evaluator):
    """OpenSpiel's leaf evaluation from a goatarena strategy: per seat, twice its chance
    of finishing ahead of each other seat, less one (zero-sum, as the returns are)."""

    def __init__(self, strategy: Strategy) -> None:
        self.strategy = strategy

    def evaluate(self, state):
        if state.is_terminal():
            return np.array(state.returns())
        values = self.strategy.values(state.goatarena_state)
        return np.array([2 * chance - 1 for chance in value_rewards(values, self.strategy.scale)])

    def prior(self, state):
        legal = state.legal_actions()
        return [(action, 1 / len(legal)) for action in legal]


class OpenSpielMctsBot(SeededBot):
    """Determinized OpenSpiel MCTS: one search per sampled deal while time remains."""

    name = "openspiel-mcts"

    def __init__(
        self,
        ms: float = 200.0,
        simulations: int = 40,
        seed: int | None = None,
        rollouts: bool = False,
    ) -> None:
        super().__init__(seed)
        self.ms = ms
        self.simulations = simulations
        self.rollouts = rollouts
        self.spiel_game = None

    def start(self, game: GameStart) -> None:
        super().start(game)
        self.spiel_game = load_game(game.game, players=len(game.players), **game.options)

    def choose(self, request: Request) -> int:
        if len(request.actions) == 1:
            return 0
        actions = numbering(self.game)
        numbers = [actions.number(action) for action in request.actions]
        strategy = STRATEGIES[self.game]
        evaluator = (
            mcts.RandomRolloutEvaluator(
                n_rollouts=1, random_state=np.random.RandomState(self.rng.getrandbits(32))
            )
            if self.rollouts
            else StrategyEvaluator(strategy)
        )
        search = mcts.MCTSBot(
            self.spiel_game,
            uct_c=2.0,
            max_simulations=self.simulations,
            evaluator=evaluator,
            solve=False,
            random_state=np.random.RandomState(self.rng.getrandbits(32)),
        )
        history = [event.action for event in request.history]
        stop = time.monotonic() + min(self.ms / 1000, request.time_left / 2)
        visits: Counter[int] = Counter()
        while True:
            deal = strategy.sample_state(request.observation, self.rng, self.options, history)
            root = search.mcts_search(spiel_state(self.spiel_game, deal))
            for child in root.children:
                visits[child.action] += child.explore_count
            if time.monotonic() >= stop:
                break
        best = max(numbers, key=lambda number: visits[number])
        return numbers.index(best)


def main(argv: Sequence[str] | None = None) -> None:
    """Play games on stdin/stdout until the referee says quit."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--ms", type=float, default=200.0, help="search time per decision")
    parser.add_argument(
        "--simulations", type=int, default=40, help="MCTS simulations per sampled deal"
    )
    parser.add_argument("--seed", type=int, default=None, help="a fixed seed for every game")
    parser.add_argument(
        "--rollouts", action="store_true", help="value leaves by random playouts instead"
    )
    args = parser.parse_args(argv)
    run(OpenSpielMctsBot(args.ms, args.simulations, args.seed, args.rollouts))


if __name__ == "__main__":
    main()
