"""Golden traces of the Goat Lords and Goat 'n' Goat engines: seeded random games, hashed.

A trace covers everything a bot or a search can see of an engine: at every decision the
seat to act, the legal actions (their JSON bytes, so order and shape count), every seat's
observation, what every seat learns of the chosen action, and at the end the result and
the record. Every few decisions the game goes on from a clone, and a determinized copy
and a state rebuilt by the game's strategy sampler are traced too, so clone, resampling
and the samplers' use of the engine's fields are covered as well. Full traces are costly
(every observation of every seat), so many more games are traced lightly: the seat to
act and the legal actions at every decision, the result and the record.

The expected hashes in ``tests/data/<game>-traces.json`` were written by this module from
the engines as they were before they were optimised; the test compares against them.
Regenerate (only after a deliberate rule change) with::

    .venv/bin/python -m tests.card_engine_traces
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import msgspec

from goatarena.games import find_game
from goatarena.strategy import find_strategy

GAMES = ("goat-lords", "goat-n-goat")
FULL_GAMES = 40
"""Seeded games fully traced per player count."""
LIGHT_GAMES = 300
"""Seeded games per player count traced lightly: seat to act, legal actions, result, record."""
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


def trace_hash(game: str, players: int, seed: int, *, full: bool = True) -> str:
    """The hash of one seeded random game's trace (``full``: with observations and probes)."""
    info = find_game(game)
    strategy = find_strategy(game)
    digest = hashlib.sha256()

    def feed(value: object) -> None:
        digest.update(_encode(value))
        digest.update(b"\n")

    def feed_state(state: object) -> None:
        feed(state.to_act)  # type: ignore[attr-defined]
        feed(state.legal_actions())  # type: ignore[attr-defined]
        if full:
            for seat in range(players):
                feed(state.observation(seat))  # type: ignore[attr-defined]

    chooser = random.Random(seed * 7919 + players)
    state = info.new_state(players, seed)
    decision = 0
    while not state.is_over:
        feed_state(state)
        if full and decision % PROBE_EVERY == PROBE_EVERY - 1:
            seat = state.to_act
            twin = state.determinize(seat, random.Random(seed + decision))
            feed_state(twin)
            sampled = strategy.sample_state(
                state.observation(seat), random.Random(seed - decision), state.options
            )
            feed_state(sampled)
            feed([round(value, 9) for value in strategy.values(sampled)])
            feed(strategy.rollout(sampled, random.Random(decision)))
        legal = state.legal_actions()
        action = legal[chooser.randrange(len(legal))]
        if full:
            for seat in range(players):
                feed(state.public_action(seat, action))
        state.apply(_decode(_encode(action)))
        decision += 1
        if full and decision % CLONE_EVERY == 0:
            state = state.clone()
    feed_state(state)
    feed(state.result())
    feed(state.to_record())
    return digest.hexdigest()[:16]


def traces(game: str, *, full: bool) -> dict[str, list[str]]:
    """Per player count, the trace hashes of seeds 0, 1, ... (full or light)."""
    info = find_game(game)
    games = FULL_GAMES if full else LIGHT_GAMES
    return {
        str(players): [trace_hash(game, players, seed, full=full) for seed in range(games)]
        for players in info.player_counts
    }


def main() -> None:
    """Write the expected traces of every game here from the engines as they are now."""
    DATA.mkdir(exist_ok=True)
    for game in GAMES:
        expected = {"full": traces(game, full=True), "light": traces(game, full=False)}
        trace_path(game).write_text(json.dumps(expected, indent=0) + "\n")
        print(f"wrote {trace_path(game)}")


if __name__ == "__main__":
    main()
