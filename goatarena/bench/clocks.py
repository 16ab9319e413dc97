"""Bot start-up (process and handshake) and how late the referee cuts off a silent bot."""

from __future__ import annotations

import time

import trio

from goatarena import protocol
from goatarena.bench.bots import (
    BENCH_GAME,
    BENCH_TIME,
    MINIMAL_BOT,
    RANDOM_BOT,
    SILENT_BOT,
    python_command,
)
from goatarena.bench.decisions import check_started
from goatarena.errors import GoatArenaError
from goatarena.games import GAMES
from goatarena.referee.bot import BotProcess, BotViolation, open_bot
from goatarena.referee.clock import TimeControl
from goatarena.referee.latency import clocks_first
from goatarena.referee.lineup import open_lineup
from goatarena.referee.match import play_match
from goatarena.referee.seat import Connection


async def spawn_times(samples: int) -> list[float]:
    """Seconds from starting a random bot's process to the end of its handshake."""
    times = []
    for _ in range(samples):
        started = time.perf_counter()
        async with open_bot(python_command(RANDOM_BOT)) as bot:
            name = await bot.greet(BENCH_TIME.startup_ms / 1000)
            times.append(time.perf_counter() - started)
        if name is None:
            raise GoatArenaError(f"benchmark bot did not start: {bot.broken}")
    return times


class Stopwatch:
    """A connection that notes when the decide was sent and when its wait was cut off."""

    def __init__(self, bot: BotProcess) -> None:
        self._bot = bot
        self.name = bot.name
        self.sent: float | None = None
        self.cut_off: float | None = None

    @property
    def broken(self) -> BotViolation | None:
        return self._bot.broken

    def mark_broken(self, violation: BotViolation) -> None:
        self._bot.mark_broken(violation)

    async def send_bytes(self, line: bytes) -> None:
        if self.sent is None and line.startswith(b'{"type":"decide"'):
            self.sent = time.perf_counter()
        await self._bot.send_bytes(line)

    async def receive(self) -> protocol.BotHello | protocol.Action:
        try:
            return await self._bot.receive()
        except trio.Cancelled:
            self.cut_off = time.perf_counter()
            raise


async def deadline_overshoots(samples: int, move_ms: int) -> list[float]:
    """Seconds by which a silent bot's cut-off came after its hard deadline, measured by a
    referee thread as a run's are (:func:`~goatarena.referee.latency.clocks_first`)."""
    with clocks_first():
        return await _deadline_overshoots(samples, move_ms)


async def _deadline_overshoots(samples: int, move_ms: int) -> list[float]:
    control = TimeControl(move_ms=move_ms, startup_ms=BENCH_TIME.startup_ms)
    deadline_s = (control.move_ms + control.bank_ms + control.margin_ms) / 1000
    overshoots = []
    startup_s = control.startup_ms / 1000
    async with open_lineup([python_command(MINIMAL_BOT)], startup_s=startup_s) as partner:
        check_started(partner)
        for number in range(samples):
            async with open_lineup([python_command(SILENT_BOT)], startup_s=startup_s) as silent:
                check_started(silent)
                watched = Stopwatch(silent[0])
                seats: list[Connection] = [watched, partner[0]]
                result = await play_match(
                    GAMES[BENCH_GAME], seats, seed=number, time_control=control
                )
            violation = result.violations[0]
            if watched.sent is None or watched.cut_off is None or violation is None:
                raise GoatArenaError(f"the silent bot was not cut off: {result.violations}")
            overshoots.append(watched.cut_off - watched.sent - deadline_s)
    return overshoots
