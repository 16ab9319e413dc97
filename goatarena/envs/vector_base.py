"""Observation vectors, the common part: layouts, the encoder base class, helpers.

A seat's JSON observation becomes a fixed-size ``float32`` vector.

Each game has an :class:`Encoder` whose :class:`Layout` names the vector's fields (their
places, sizes and meanings, listed in docs/games.md). The vector is computed from the
JSON observation alone (``state.observation(seat)``), so it tells a seat nothing that
observation does not: two states with equal observations give equal vectors.

Seats appear relative to the observer: in every per-seat field the first slot is the
observer, the next the seat after it, and so on; slots past the player count stay 0.
The size of a game's vector does not depend on the player count.
"""

from __future__ import annotations

from array import array
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from goatarena.games import find_game
from goatarena.games.base import Observation, State

Numbers = defaultdict[int, float]
"""A vector being filled: its numbers that are not 0, by place."""


@dataclass(frozen=True)
class Field:
    """One named stretch of a vector: where it starts, how long it is, what it holds."""

    name: str
    start: int
    size: int
    meaning: str


@dataclass
class Layout:
    """The fields of a vector in order; :meth:`add` appends one and returns its start."""

    fields: list[Field] = field(default_factory=list)
    size: int = 0

    def add(self, name: str, size: int, meaning: str) -> int:
        """Append a field of ``size`` numbers; return the place of its first number."""
        self.fields.append(Field(name, self.size, size, meaning))
        self.size += size
        return self.fields[-1].start

    def __getitem__(self, name: str) -> Field:
        for each in self.fields:
            if each.name == name:
                return each
        raise KeyError(name)


class Encoder:
    """Turns one game's observations into vectors; subclasses fill :meth:`_fill`."""

    game: str = ""

    def __init__(self) -> None:
        info = find_game(self.game)
        self.max_players = info.max_players
        self.min_players = info.min_players
        self.layout = Layout()
        self.layout.add(
            "players", info.max_players - info.min_players + 1, "one-hot: the player count"
        )
        self.layout.add("to_act", info.max_players, "one-hot by relative seat: who decides now")
        self._build(self.layout)
        self.at = {each.name: each.start for each in self.layout.fields}
        """Where each field starts, by name."""
        self.state_fill: Callable[[array, dict[str, int], Any, Seats, int], None] | None = None
        """The game's fill straight from a state (:mod:`goatarena.envs.state_vectors`)."""
        self._blank = array("f", bytes(4 * self.layout.size))

    @property
    def size(self) -> int:
        """The length of every vector of this game."""
        return self.layout.size

    def _build(self, layout: Layout) -> None:
        raise NotImplementedError

    def _fill(self, out: Numbers, observation: Observation, seats: Seats) -> None:
        raise NotImplementedError

    def encode(self, observation: Observation) -> np.ndarray:
        """The vector of ``observation`` (a new ``float32`` array of :attr:`size`)."""
        out: Numbers = defaultdict(float)
        seats = Seats(observation["seat"], self._player_count(observation))
        out[seats.players - self.min_players] = 1.0
        if observation["to_act"] is not None:
            out[self.layout.fields[1].start + seats.relative(observation["to_act"])] = 1.0
        self._fill(out, observation, seats)
        # Most numbers are 0: only the others are converted (a list of thousands of
        # floats would cost more to convert than the rest of the encoding).
        vector = np.zeros(self.layout.size, dtype=np.float32)
        count = len(out)
        vector[np.fromiter(out.keys(), np.intp, count)] = np.fromiter(
            out.values(), np.float32, count
        )
        return vector

    def encode_state(self, state: State, seat: int) -> np.ndarray:
        """The vector of ``state.observation(seat)``, equal to
        ``encode(state.observation(seat))`` but read from the state's fields where the
        game has a fill for that (every game has: :mod:`goatarena.envs.state_vectors`),
        without making the JSON observation: several times faster."""
        fill = self.state_fill
        if fill is None:
            return self.encode(state.observation(seat))
        out = self._blank[:]
        seats = Seats(seat, state.players)
        out[seats.players - self.min_players] = 1.0
        to_act = state.to_act
        if to_act is not None:
            out[self.layout.fields[1].start + seats.relative(to_act)] = 1.0
        fill(out, self.at, state, seats, self.max_players)
        return np.frombuffer(out, dtype=np.float32)

    def _player_count(self, observation: Observation) -> int:
        return len(observation["scores"])


class Seats:
    """The observer's seat and the player count, to place seats relative to the observer."""

    __slots__ = ("players", "seat")

    def __init__(self, seat: int, players: int) -> None:
        self.seat = seat
        self.players = players

    def relative(self, other: int) -> int:
        """``other``'s slot: 0 for the observer, 1 for the seat after it, ..."""
        return (other - self.seat) % self.players

    def relative_slots(self) -> tuple[int, ...]:
        """Every seat's slot, by seat: ``relative`` of each."""
        return tuple(map(self.relative, range(self.players)))

    def order(self) -> range:
        """Slot by slot, the absolute seats: ``[seat, seat + 1, ...]`` modulo players."""
        return range(self.seat, self.seat + self.players)


def put_counts(out: Numbers, start: int, index: dict[Any, int], items: Any, scale: float) -> None:
    """Add ``1 / scale`` at ``start + index[item]`` for every item (a count per kind)."""
    step = 1.0 / scale
    if len(items) > _COUNT_IN_C:
        for item, count in Counter(items).items():
            out[start + index[item]] += count * step
        return
    for item in items:
        out[start + index[item]] += step


_COUNT_IN_C = 6
"""Past this many items, Counter (which counts in C) beats a loop in Python."""


def put_one_hot(out: Numbers, start: int, place: int | None) -> None:
    """Set ``out[start + place]`` to 1, unless ``place`` is None."""
    if place is not None:
        out[start + place] = 1.0
