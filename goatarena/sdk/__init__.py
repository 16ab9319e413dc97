"""Write a goatarena bot in Python: subclass :class:`Bot`, then call :func:`run`.

The SDK speaks protocol v1 on stdin/stdout so a bot only chooses actions::

    from goatarena.sdk import Bot, Request, run

    class FirstChoice(Bot):
        name = "first"

        def choose(self, request: Request) -> int:
            return 0                      # an index into request.actions

    run(FirstChoice())

What a bot gets:

- :class:`GameStart` when a game begins (game, seat, players, options, clock, seed);
- a :class:`Request` per decision: the observation as plain dicts
  (``request.observation``) or with attribute access (``request.view``, a read-only
  :class:`View`), the legal ``actions``, the public ``events`` since its last decision
  and the whole ``history`` of the game, and ``time_left``;
- :class:`GameEnd` with the scores and ranks.

stdout belongs to the protocol: under :func:`run`, whatever a bot prints goes to stderr,
its log (as :func:`log` does). :func:`play_local` plays bots against each other in this
process, with the real game engines and no referee, which is the quick way to test one.
No trio is needed.
``docs/sdk.md`` is the guide.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterable
from typing import IO

from goatarena import protocol
from goatarena.protocol import Event, TimeInfo, bot_seed
from goatarena.sdk._bot import Bot, GameEnd, GameStart, Request, SeededBot
from goatarena.sdk._local import LocalPlayError, LocalResult, play_local
from goatarena.sdk._stdout import private_stdout
from goatarena.sdk._view import View, view
from goatarena.sdk._wire import EventLog, WireDecide, WireRequest, parse_line

__all__ = [
    "Bot",
    "Event",
    "GameEnd",
    "GameStart",
    "LocalPlayError",
    "LocalResult",
    "Request",
    "SeededBot",
    "TimeInfo",
    "View",
    "bot_seed",
    "log",
    "play_local",
    "run",
    "serve",
    "view",
]


# -- logging ---------------------------------------------------------------------------------


def log(*parts: object) -> None:
    """Print to stderr, the bot's own log (stdout is reserved for the protocol)."""
    print(*parts, file=sys.stderr, flush=True)


# -- the protocol loop -----------------------------------------------------------------------


def serve(bot: Bot, lines: Iterable[bytes], output: IO[bytes]) -> None:
    """Answer referee messages read from ``lines`` on ``output`` until quit or end of input.

    Message types this SDK does not know are skipped, as the protocol asks.
    """
    current: GameStart | None = None
    events = EventLog()
    write, flush = output.write, output.flush
    for line in lines:
        received = time.monotonic()
        message, tail = parse_line(line)
        # Decisions first: they are nearly every line.
        if isinstance(message, WireDecide):
            decides = events.add(message.events)
            deadline = received + message.time_ms / 1000
            request = WireRequest.wire(message, tail, current, events, decides, deadline)
            index = bot.choose(request)
            if type(index) is int:  # the usual answer, without building a message for it
                write(b'{"type":"action","index":%d,"decision":%d}\n' % (index, message.decision))
            else:  # encoded as it is, for the referee to judge
                write(protocol.encode(protocol.Action(index=index, decision=message.decision)))
            flush()
        elif isinstance(message, protocol.Hello):
            _write(output, protocol.BotHello(name=bot.name))
        elif isinstance(message, protocol.Start):
            current = GameStart(
                message.game,
                message.seat,
                message.players,
                message.options,
                message.time,
                message.seed,
                message.match,
            )
            events = EventLog()  # a new one: requests of the last game keep theirs
            bot.start(current)
        elif isinstance(message, protocol.End):
            bot.end(GameEnd(message.scores, message.ranks, message.seat))
        elif isinstance(message, protocol.Quit):
            return


def _write(output: IO[bytes], message: protocol.BotHello | protocol.Action) -> None:
    output.write(protocol.encode(message))
    output.flush()


def run(bot: Bot) -> None:
    """Run ``bot`` on this process's stdin and stdout until the referee says quit.

    The answers go out on a private copy of stdout: from here on, whatever the bot prints
    (``print``, a C extension, a subprocess) goes to stderr, its log, with a one-time
    note there, and can never corrupt an answer (see :mod:`goatarena.sdk._stdout`).
    """
    stdin = sys.stdin.buffer
    output = private_stdout()
    # A referee that goes away (broken pipe) or an interrupt ends the bot quietly.
    with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):
        serve(bot, iter(stdin.readline, b""), output)
