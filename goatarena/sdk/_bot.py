"""What a Python bot is and what it is given: :class:`Bot`, :class:`SeededBot`, and the
:class:`GameStart`, :class:`Request` and :class:`GameEnd` its hooks receive (re-exported
by :mod:`goatarena.sdk`, where bot authors import them from)."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

from goatarena.protocol import Event, TimeInfo
from goatarena.sdk._view import View


@dataclass
class GameStart:
    """A game begins: the game's name, the bot's seat, all players' names, options, clock.

    ``seed`` seeds the bot's own random choices so that games replay exactly; ``match``
    names the game in a tournament ("" outside one).
    """

    game: str
    seat: int
    players: list[str]
    options: dict[str, Any]
    time: TimeInfo
    seed: int = 0
    match: str = ""


@dataclass
class Request:
    """One decision: the seat's observation and the legal actions to choose from.

    ``events`` are the public decisions made since this seat's previous request, and
    ``history`` every public event of the game so far (the SDK accumulates them); an
    event is a :class:`~goatarena.protocol.Event` with ``seat`` and ``action``, where a
    part of an action hidden from this seat is ``None``. ``deadline`` is the
    :func:`time.monotonic` time by which the answer must be written.
    """

    game: str
    seat: int
    decision: int
    observation: dict[str, Any]
    actions: list[Any]
    time_ms: int
    deadline: float
    history: list[Event] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    players: list[str] = field(default_factory=list)

    @property
    def view(self) -> View:
        """The observation with attribute access: ``request.view.hand``."""
        return View(self.observation)

    @property
    def action_count(self) -> int:
        """The number of legal actions: ``len(request.actions)``, but without decoding
        them in a request read from the referee (what a bot that picks at random needs)."""
        return len(self.actions)

    @property
    def time_left(self) -> float:
        """Seconds left before the deadline (negative once it has passed)."""
        return self.deadline - time.monotonic()

    def index_of(self, action: Any) -> int:
        """The index of an action value in :attr:`actions`; ValueError if it is not legal."""
        try:
            return self.actions.index(action)
        except ValueError:
            raise ValueError(f"{action!r} is not among the legal actions") from None


@dataclass
class GameEnd:
    """A game is over: scores and ranks by seat (rank 1 is best), and the bot's own seat."""

    scores: list[float]
    ranks: list[int]
    seat: int


class Bot:
    """Base class of a bot; override :meth:`choose`, and optionally the other hooks.

    One bot object plays many games in a row: reset per-game state in :meth:`start`.
    """

    name = "bot"
    """The name the bot gives in its hello."""

    def start(self, game: GameStart) -> None:
        """Called when a game starts."""

    def choose(self, request: Request) -> int:
        """Return the index of the chosen action in ``request.actions``."""
        raise NotImplementedError

    def end(self, result: GameEnd) -> None:
        """Called when a game is over."""


class SeededBot(Bot):
    """A bot with its own random generator, reseeded for every game so games replay.

    Each game's generator is seeded from the seed the referee gives that seat, unless a
    fixed ``seed`` was passed. ``game`` and ``options`` hold the current game's name and
    rule options. Subclasses that override :meth:`start` call ``super().start(game)``.
    """

    def __init__(self, seed: int | None = None) -> None:
        self.fixed_seed = seed
        self.rng = random.Random(seed)
        self.game = ""
        self.options: dict[str, Any] = {}

    def start(self, game: GameStart) -> None:
        """Remember the game and reseed the generator for it."""
        self.game = game.game
        self.options = game.options
        if self.fixed_seed is None:
            self.rng.seed(game.seed)
