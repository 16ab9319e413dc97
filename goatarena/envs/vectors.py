"""Observation vectors: :func:`encoder` gives a game's encoder, :func:`encode` a vector.

Each game's layout is in :mod:`goatarena.envs.vector_layouts` (and docs/games.md); what
all share (relative seats, scales) is in :mod:`goatarena.envs.vector_base`.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from goatarena.envs.state_vectors import STATE_FILLS
from goatarena.envs.vector_base import Encoder
from goatarena.envs.vector_layouts import ENCODERS
from goatarena.games import find_game
from goatarena.games.base import Observation


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
