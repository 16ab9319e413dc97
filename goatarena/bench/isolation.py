"""Are games in one referee independent? Time an honest game beside a hostile one.

One trio event loop runs every game of a process, so anything a bot can make the referee
do on that loop — decode an expensive line, say — is time taken from every other game.
:func:`worst_beside_hostile` plays an honest game while, in the same loop, a hostile bot
answers every request of its own games with an expensive line (60 KiB of ``1e300``
floats as its action value: on a decoder that parses them, about 0.3 s of CPU each). It
returns the honest game's slowest decision: the test suite checks it stays within the
move time, and ``goatarena bench`` reports it.
"""

from __future__ import annotations

import shlex
import sys

import trio

from goatarena.games import find_game
from goatarena.referee.bot import BotProcess
from goatarena.referee.clock import TimeControl
from goatarena.referee.lineup import open_lineup
from goatarena.referee.match import play_match
from goatarena.referee.policy import Penalty, ViolationPolicy
from goatarena.referee.records import MatchResult

EXPENSIVE_REPLY = b'{"type":"action","action":[' + b",".join([b"1e300"] * 10_000) + b"]}\n"
"""60 KiB, under the line cap: a line that costs a naive decoder about 0.3 s."""

HOSTILE_BOT = f"""\
import sys
out = sys.stdout.buffer
for line in sys.stdin.buffer:
    if line.startswith(b'{{"type":"hello"'):
        out.write(b'{{"type":"hello","name":"hostile"}}\\n')
    elif line.startswith(b'{{"type":"decide"'):
        out.write({EXPENSIVE_REPLY!r})
    elif line.startswith(b'{{"type":"quit"'):
        break
    out.flush()
"""
"""A bot that answers every request with :data:`EXPENSIVE_REPLY`."""

_ENDURE = ViolationPolicy(
    illegal=Penalty.RANDOM_MOVE, malformed=Penalty.RANDOM_MOVE, strikes=1 << 30
)
"""The hostile game's policy: never forfeit, so the hostile bot is asked again and again."""


def hostile_command() -> str:
    """The command line of :data:`HOSTILE_BOT` on this interpreter."""
    return shlex.join([sys.executable, "-c", HOSTILE_BOT])


async def worst_beside_hostile(
    honest: str, *, move_ms: int = 1000, game: str = "mountain-goats", seed: int = 1
) -> tuple[float, MatchResult]:
    """Play ``honest`` against itself while hostile games run beside it, in one loop.

    Returns the honest game's slowest decision in milliseconds, and its result. The
    hostile games (``honest`` against the hostile bot) are played one after another
    until the honest game is over.
    """
    info = find_game(game)
    control = TimeControl(move_ms=move_ms, startup_ms=30_000)
    async with (
        open_lineup([honest, honest], startup_s=30) as pair,
        open_lineup([hostile_command(), honest], startup_s=30) as attacked,
        trio.open_nursery() as nursery,
    ):
        nursery.start_soon(_keep_attacking, info.name, attacked, control)
        result = await play_match(info, pair, seed=seed, time_control=control)
        nursery.cancel_scope.cancel()
    worst = max((latency.max_ms for latency in result.latency if latency), default=0.0)
    return worst, result


async def _keep_attacking(game: str, bots: list[BotProcess], control: TimeControl) -> None:
    info = find_game(game)
    for seed in range(1 << 30):
        await play_match(info, bots, seed=seed, time_control=control, policy=_ENDURE)
