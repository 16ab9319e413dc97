"""Write every kit's JSON fixtures: the lines one seat is sent in a real game of each game.

    python kits/fixtures.py

Each ``kits/<kit>/fixtures/<game>.json`` holds ``lines`` (hello, start, every decide of
seat 0 of a seeded two-player game between random choices, end and quit, each exactly as
the referee encodes it) and ``seed``, the seed of start as text: it is above 2^63, to
test that a kit reads it without losing digits. The kits' unit tests read them.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

KITS = Path(__file__).resolve().parent
sys.path.insert(0, str(KITS.parent))

import msgspec  # noqa: E402

from goatarena import protocol  # noqa: E402
from goatarena.games import GAMES  # noqa: E402

SEED = 2**64 - 59
"""The seed the fixtures' start carries: the largest 64-bit prime, above 2^63 and 2^53."""
GAME_SEED = 3
TIME = protocol.TimeInfo(move_ms=1000)
OPTIONS = {"goat-lords": {"rounds": 1}}
"""Rule options that keep a fixture short (a whole Goat Lords game is long)."""


def seat_lines(game: str, seat: int = 0, players: int = 2) -> list[str]:
    """The referee's lines to ``seat`` in a seeded game of random choices."""
    info = GAMES[game]
    state = info.new_state(players, GAME_SEED, OPTIONS.get(game))
    rng = random.Random(GAME_SEED)
    names = protocol.unique_names(["random"] * players)
    messages: list[msgspec.Struct] = [
        protocol.Hello(),
        protocol.Start(
            game=game,
            seat=seat,
            players=names,
            time=TIME,
            options=state.options,
            seed=SEED,
        ),
    ]
    events: list[protocol.Event] = []
    while not state.is_over:
        acting = state.to_act
        assert acting is not None
        legal = state.legal_actions()
        if acting == seat:
            messages.append(
                protocol.Decide(
                    decision=len(state.history),
                    actions=list(legal),
                    time_ms=TIME.move_ms,
                    events=events,
                    observation=state.observation(seat),
                )
            )
            events = []
        chosen = legal[rng.randrange(len(legal))]
        events.append(protocol.Event(seat=acting, action=state.public_action(seat, chosen)))
        state.apply(chosen)
    result = state.result()
    messages += [protocol.End(scores=result.scores, ranks=result.ranks, seat=seat), protocol.Quit()]
    return [protocol.encode(message).decode().rstrip("\n") for message in messages]


def main() -> None:
    """Write the fixtures into every kit folder."""
    for kit in sorted(path.parent for path in KITS.glob("*/kit.toml")):
        folder = kit / "fixtures"
        folder.mkdir(exist_ok=True)
        for game in GAMES:
            fixture = {"game": game, "seed": str(SEED), "lines": seat_lines(game)}
            (folder / f"{game}.json").write_text(json.dumps(fixture, indent=1) + "\n")
        print(f"wrote {len(GAMES)} fixtures into {folder.relative_to(KITS.parent)}")


if __name__ == "__main__":
    main()
