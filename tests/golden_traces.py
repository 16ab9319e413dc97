"""Golden traces of the Herr der Ziegen and Mountain Goats engines: seeded random games, hashed.

A trace covers everything a bot or a search can see of an engine: at every decision the
seat to act, the legal actions (their JSON bytes, so order and shape count), the acting
seat's observation (every seat's every few decisions), what every seat learns of the
chosen action, and at the end every observation, the result and the record. Every few
decisions the game goes on from a clone, and a determinized copy and a state rebuilt by
the game's strategy sampler are traced too (with the strategy's evaluation and playout
choice), so clone, resampling and the strategies' use of the engine's fields count.

The expected hashes in ``tests/data/<game>-traces.json`` were written by this module from
the engines as they were before they were optimised; the test compares against them.
Regenerate (only after a deliberate rule change) with::

    .venv/bin/python -m tests.golden_traces
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import msgspec

from goatarena.games import find_game
from goatarena.games.base import State
from goatarena.strategy import find_strategy

GAMES = {"herr-der-ziegen": 200, "mountain-goats": 300}
"""The games traced, with the number of seeded games per player count."""
CLONE_EVERY = 7
"""Every this many decisions the game continues from a clone of its state."""
PROBE_EVERY = 11
"""Every this many decisions a determinized copy and a sampled state are traced."""
DATA = Path(__file__).resolve().parent / "data"

_encode = msgspec.json.encode
_decode = msgspec.json.decode


def trace_path(game: str) -> Path:
    """Where the expected hashes of ``game`` are stored."""
    return DATA / f"{game}-traces.json"


def trace_hash(game: str, players: int, seed: int) -> str:
    """The hash of one seeded random game's full trace."""
    info = find_game(game)
    strategy = find_strategy(game)
    digest = hashlib.sha256()

    def feed(value: Any) -> None:
        digest.update(_encode(value))
        digest.update(b"\n")

    def feed_state(state: State, *, every_seat: bool) -> None:
        feed(state.to_act)
        feed(state.legal_actions())
        seats = range(players) if every_seat or state.to_act is None else [state.to_act]
        for seat in seats:
            feed(state.observation(seat))

    chooser = random.Random(seed * 7919 + players)
    state = info.new_state(players, seed)
    decision = 0
    while not state.is_over:
        probe = decision % PROBE_EVERY == PROBE_EVERY - 1
        feed_state(state, every_seat=probe)
        if probe:
            seat = state.to_act
            assert seat is not None
            twin = state.determinize(seat, random.Random(seed + decision))
            feed_state(twin, every_seat=True)
            sampled = strategy.sample_state(
                state.observation(seat), random.Random(seed - decision), state.options
            )
            feed_state(sampled, every_seat=True)
            feed([round(value, 9) for value in strategy.values(sampled)])
            feed(strategy.rollout(sampled, random.Random(decision)))
            # The sampled state must play on like a real one.
            feed(sampled.apply_index(0))
            feed_state(sampled, every_seat=False)
        legal = state.legal_actions()
        action = legal[chooser.randrange(len(legal))]
        for seat in range(players):
            feed(state.public_action(seat, action))
        state.apply(_decode(_encode(action)))
        decision += 1
        if decision % CLONE_EVERY == 0:
            state = state.clone()
    feed_state(state, every_seat=True)
    feed(state.result())
    feed(state.to_record())
    return digest.hexdigest()[:16]


def traces(game: str, games: int) -> dict[str, list[str]]:
    """Per player count, the trace hashes of seeds 0 .. games-1."""
    info = find_game(game)
    return {
        str(players): [trace_hash(game, players, seed) for seed in range(games)]
        for players in info.player_counts
    }


def main() -> None:
    """Write the expected traces of every game here from the engines as they are now."""
    DATA.mkdir(exist_ok=True)
    for game, games in GAMES.items():
        trace_path(game).write_text(json.dumps(traces(game, games), indent=0) + "\n")
        print(f"wrote {trace_path(game)}")


if __name__ == "__main__":
    main()
