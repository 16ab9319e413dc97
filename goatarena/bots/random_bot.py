"""A bot that picks a uniformly random legal action: plays every goatarena game.

Its choices are seeded from the seed the referee gives each game, so a game replays
exactly; ``--seed N`` (or the number alone, as older commands give it) fixes the seed
for every game instead.

    goatarena play mountain-goats --bot builtin:random --bot "builtin:random --seed 7"
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from goatarena.sdk import Request, SeededBot, run


class RandomBot(SeededBot):
    """Chooses uniformly among the legal actions."""

    name = "random"

    def choose(self, request: Request) -> int:
        """A uniformly random index into the legal actions."""
        return self.rng.randrange(request.action_count)


def parse_seed(argv: Sequence[str] | None = None) -> int | None:
    """The fixed seed the command line gives (``--seed N`` or a bare ``N``), else None."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seed", type=int, default=None, help="a fixed seed for every game")
    parser.add_argument("bare_seed", type=int, nargs="?", metavar="N", help="same as --seed N")
    args = parser.parse_args(argv)
    if args.seed is not None and args.bare_seed is not None and args.seed != args.bare_seed:
        parser.error("two different seeds: give --seed N once")
    return args.seed if args.seed is not None else args.bare_seed


def main(argv: Sequence[str] | None = None) -> None:
    """Play games on stdin/stdout until the referee says quit."""
    run(RandomBot(parse_seed(argv)))


if __name__ == "__main__":
    main()
