"""Observation vectors: :func:`encoder` gives a game's encoder, :func:`encode` a vector.

Each game's layout is in :mod:`goatarena.envs.vector_layouts` (and docs/games.md); what
all share (relative seats, scales) is in :mod:`goatarena.envs.vector_base`.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from goatarena.envs import state_vectors, state_vectors_herr_der_ziegen
from goatarena.envs.vector_base import Encoder
from goatarena.envs.vector_layouts import ENCODERS
from goatarena.games import find_game
from goatarena.games.base import Observation

STATE_FILLS: dict[str, state_vectors.StateFill] = {
    **state_vectors.FILLS,
    "herr-der-ziegen": state_vectors_herr_der_ziegen.fill_herr_der_ziegen,
}
"""Every game's fill of its vector straight from the state, by game name."""


@cache
def encoder(game: str) -> Encoder:
    """The encoder of ``game`` (made once per process), with its fill from the state."""
    name = find_game(game).name
    made = ENCODERS[name]()
    made.state_fill = STATE_FILLS.get(name)
    return made


def encode(game: str, observation: Observation) -> np.ndarray:
    """The observation vector of ``observation`` of ``game``."""
    return encoder(game).encode(observation)
