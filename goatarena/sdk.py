"""Write a goatarena bot in Python: subclass :class:`Bot`, then call :func:`run`.

The SDK speaks protocol v1 on stdin/stdout so a bot only chooses actions::

    from goatarena.sdk import Bot, Request, run

    class FirstChoice(Bot):
        name = "first"

        def choose(self, request: Request) -> int:
            return 0                      # an index into request.actions

    run(FirstChoice())

No trio is needed. Everything a bot prints must go to stderr (use :func:`log`): stdout
belongs to the protocol.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import IO, Any

from goatarena import protocol

__all__ = ["Bot", "GameStart", "GameEnd", "Request", "log", "run", "serve"]


@dataclass
class GameStart:
    """A game begins: the game's name, the bot's seat, all players' names, options, clock.

    ``seed`` seeds the bot's own random choices so that games replay exactly.
    """

    game: str
    seat: int
    players: list[str]
    options: dict[str, Any]
    time: protocol.TimeInfo
    seed: int = 0


@dataclass
class Request:
    """One decision: the seat's observation and the legal actions to choose from.

    ``history`` holds every public event of the game so far (the SDK accumulates the
    referee's ``events``), ``deadline`` is the :func:`time.monotonic` time by which the
    answer must be written.
    """

    game: str
    seat: int
    decision: int
    observation: dict[str, Any]
    actions: list[Any]
    time_ms: int
    deadline: float
    history: list[protocol.Event] = field(default_factory=list)

    @property
    def time_left(self) -> float:
        """Seconds left before the deadline."""
        return self.deadline - time.monotonic()


@dataclass
class GameEnd:
    """A game is over: scores and ranks by seat, and the bot's own seat."""

    scores: list[float]
    ranks: list[int]
    seat: int


class Bot:
    """Base class of a bot; override :meth:`choose`, and optionally the other hooks."""

    name = "bot"

    def start(self, game: GameStart) -> None:
        """Called when a game starts."""

    def choose(self, request: Request) -> int:
        """Return the index of the chosen action in ``request.actions``."""
        raise NotImplementedError

    def end(self, result: GameEnd) -> None:
        """Called when a game is over."""


def log(*parts: object) -> None:
    """Print to stderr, the bot's own log (stdout is reserved for the protocol)."""
    print(*parts, file=sys.stderr, flush=True)


def serve(bot: Bot, lines: Iterable[bytes], output: IO[bytes]) -> None:
    """Answer referee messages read from ``lines`` on ``output`` until quit or end of input."""
    current: GameStart | None = None
    history: list[protocol.Event] = []
    for line in lines:
        received = time.monotonic()
        message = protocol.parse_referee_message(line)
        if isinstance(message, protocol.Hello):
            _write(output, protocol.BotHello(name=bot.name))
        elif isinstance(message, protocol.Start):
            current = GameStart(
                message.game,
                message.seat,
                message.players,
                message.options,
                message.time,
                message.seed,
            )
            history = []
            bot.start(current)
        elif isinstance(message, protocol.Decide):
            history.extend(message.events)
            request = Request(
                game=current.game if current else "",
                seat=current.seat if current else 0,
                decision=message.decision,
                observation=message.observation,
                actions=message.actions,
                time_ms=message.time_ms,
                deadline=received + message.time_ms / 1000,
                history=history,
            )
            index = bot.choose(request)
            _write(output, protocol.Action(index=index, decision=message.decision))
        elif isinstance(message, protocol.End):
            bot.end(GameEnd(message.scores, message.ranks, message.seat))
        elif isinstance(message, protocol.Quit):
            return


def _write(output: IO[bytes], message: protocol.BotHello | protocol.Action) -> None:
    output.write(protocol.encode(message))
    output.flush()


def run(bot: Bot) -> None:
    """Run ``bot`` on this process's stdin and stdout until the referee says quit."""
    stdin = sys.stdin.buffer
    # A referee that goes away (broken pipe) or an interrupt ends the bot quietly.
    with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):
        serve(bot, iter(stdin.readline, b""), sys.stdout.buffer)
