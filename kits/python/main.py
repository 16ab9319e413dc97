"""A goatarena bot on the Python SDK (docs/sdk.md): replace choose() with your own.

The SDK speaks the protocol, gives typed views of each game and a seeded generator; the
engines are there to search with (goatarena.games). Run it: ./bot
"""

from goatarena.sdk import Request, SeededBot, log, run


class MyBot(SeededBot):
    """Chooses uniformly among the legal actions, from the game's seed."""

    name = "python-example"

    def choose(self, request: Request) -> int:
        log(f"decision {request.decision}: {request.action_count} actions")
        return self.rng.randrange(request.action_count)


if __name__ == "__main__":
    run(MyBot())
