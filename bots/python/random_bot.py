"""A bot that picks a uniformly random legal action: plays every goatarena game.

Its choices are seeded from the seed the referee gives each game, so a game replays
exactly; pass a number as the first argument to use a fixed seed instead.
"""

import sys

from goatarena.sdk import Request, SeededBot, run


class RandomBot(SeededBot):
    """Chooses uniformly among the legal actions."""

    name = "random"

    def choose(self, request: Request) -> int:
        return self.rng.randrange(request.action_count)


if __name__ == "__main__":
    run(RandomBot(int(sys.argv[1]) if len(sys.argv) > 1 else None))
