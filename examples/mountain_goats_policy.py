"""Train a Mountain Goats policy by self-play with NumPy, then play it as a goatarena bot.

The policy is linear and softmax over the game's numbered actions (``goatarena.envs``):
the logits of the legal numbers are ``weights[number] . vector + bias[number]``, the
vector being the seat's observation vector. It learns by REINFORCE: both seats play the
current policy, and at the end each seat's choices are made more likely in proportion to
its reward (+1 win, -1 loss, 0 draw). Everything runs in process on the engine: no
referee, no JSON, one core.

    python examples/mountain_goats_policy.py train --games 4000 --out examples/mg-policy.npz
    python examples/mountain_goats_policy.py evaluate examples/mg-policy.npz --games 400
    goatarena play mountain-goats \\
        --bot "python3 examples/mountain_goats_policy.py play mg-policy.npz" --bot builtin:random

As a bot (``play``) the weights' path is taken from this file's folder: a bot's command
may name only its own folder.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from goatarena.envs import numbering
from goatarena.envs.vectors import encoder
from goatarena.games import find_game
from goatarena.sdk import Bot, Request, play_local, run

GAME = "mountain-goats"


@dataclass
class Policy:
    """A linear softmax policy over the numbered actions of one game."""

    weights: np.ndarray
    """One row per action number, one column per number of the observation vector."""
    bias: np.ndarray

    @classmethod
    def zeros(cls, game: str = GAME) -> Policy:
        """The uniform policy (every legal action equally likely)."""
        actions, vectors = numbering(game).size, encoder(game).size
        return cls(np.zeros((actions, vectors)), np.zeros(actions))

    def probabilities(self, vector: np.ndarray, legal: list[int]) -> np.ndarray:
        """The policy's probability of each legal number, in the order given."""
        logits = self.weights[legal] @ vector + self.bias[legal]
        logits -= logits.max()
        odds = np.exp(logits)
        return odds / odds.sum()

    def save(self, path: str) -> None:
        """Write the weights to ``path`` (NumPy's .npz)."""
        np.savez(path, weights=self.weights, bias=self.bias)

    @classmethod
    def load(cls, path: str) -> Policy:
        """A policy written by :meth:`save`."""
        with np.load(path) as saved:
            return cls(saved["weights"], saved["bias"])


def train(games: int, *, seed: int = 0, rate: float = 0.02, players: int = 2) -> Policy:
    """Self-play ``games`` games and return the policy learnt (REINFORCE, see above)."""
    info, actions, vectors = find_game(GAME), numbering(GAME), encoder(GAME)
    policy = Policy.zeros()
    rng = np.random.default_rng(seed)
    for game in range(games):
        state = info.new_state(players, seed * 1_000_003 + game)
        steps: list[list[tuple[np.ndarray, list[int], int, np.ndarray]]] = [
            [] for _ in range(players)
        ]
        while not state.is_over:
            seat = state.to_act
            assert seat is not None
            vector = vectors.encode_state(state, seat)
            legal = actions.legal_numbers(state)  # in the order of legal_actions()
            chances = policy.probabilities(vector, legal)
            index = int(rng.choice(len(legal), p=chances))
            steps[seat].append((vector, legal, index, chances))
            state.apply_index(index)
        ranks = state.result().ranks
        for seat, taken in enumerate(steps):
            reward = sum((other > ranks[seat]) - (other < ranks[seat]) for other in ranks)
            reward /= players - 1
            for vector, legal, index, chances in taken:
                # The gradient of log pi(chosen): (one-hot(chosen) - pi) per legal row.
                step = -chances
                step[index] += 1.0
                step *= rate * reward
                policy.weights[legal] += np.outer(step, vector)
                policy.bias[legal] += step
    return policy


class PolicyBot(Bot):
    """Plays the most likely legal action of a trained :class:`Policy`."""

    name = "mg-policy"

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.actions = numbering(GAME)
        self.vectors = encoder(GAME)

    def choose(self, request: Request) -> int:
        legal = [self.actions.number(action) for action in request.actions]
        chances = self.policy.probabilities(self.vectors.encode(request.observation), legal)
        return int(np.argmax(chances))


def win_rate(policy: Policy, games: int, *, seed: int = 10_000) -> float:
    """The share of 2-player games the policy's bot wins against the random bot (it plays
    first in half of them, second in the other half; a draw counts half)."""
    from goatarena.bots.random_bot import RandomBot

    points = 0.0
    for game in range(games):
        first = game % 2 == 0
        bots = [PolicyBot(policy), RandomBot()] if first else [RandomBot(), PolicyBot(policy)]
        ranks = play_local(bots, GAME, seed=seed + game).ranks
        mine, theirs = (ranks[0], ranks[1]) if first else (ranks[1], ranks[0])
        points += 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0
    return points / games


def main(argv: Sequence[str] | None = None) -> None:
    """The command line: train, evaluate, or play as a bot on stdin/stdout."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    training = commands.add_parser("train", help="self-play and save the policy")
    training.add_argument("--games", type=int, default=4000)
    training.add_argument("--seed", type=int, default=0)
    training.add_argument("--out", default="mg-policy.npz")
    evaluating = commands.add_parser("evaluate", help="play the policy against random")
    evaluating.add_argument("weights")
    evaluating.add_argument("--games", type=int, default=400)
    playing = commands.add_parser("play", help="run as a goatarena bot")
    playing.add_argument("weights")
    args = parser.parse_args(argv)
    if args.command == "train":
        started = time.perf_counter()
        policy = train(args.games, seed=args.seed)
        policy.save(args.out)
        print(
            f"{args.games} games in {time.perf_counter() - started:.0f} s -> {args.out}",
            file=sys.stderr,
        )
    elif args.command == "evaluate":
        rate = win_rate(Policy.load(args.weights), args.games)
        print(f"wins {rate:.1%} of {args.games} games against the random bot")
    else:
        # A bot's command may name only its own folder: the weights are found there.
        run(PolicyBot(Policy.load(str(Path(__file__).resolve().parent / args.weights))))


if __name__ == "__main__":
    main()
