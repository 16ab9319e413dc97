"""Start the bots of one table together: spawn every process, then greet them at once."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager, nullcontext
from pathlib import Path

import trio

from goatarena.referee.bot import BotLimits, BotProcess, open_bot
from goatarena.referee.sandbox import SandboxPolicy


@asynccontextmanager
async def open_lineup(
    commands: Sequence[str],
    *,
    startup_s: float,
    limits: BotLimits | None = None,
    log_dir: Path | None = None,
    startup_limiter: trio.CapacityLimiter | None = None,
    sandbox: SandboxPolicy | None = None,
) -> AsyncIterator[list[BotProcess]]:
    """Start one bot per command and greet them concurrently within ``startup_s``.

    Every bot runs under ``sandbox`` (None: unsandboxed). A bot that fails its greeting
    is returned broken (see ``BotProcess.broken``); every
    process is stopped and reaped when the block is left.

    Starting a process (an interpreter loading its libraries, say) burns a burst of CPU.
    When several games run at once, share one ``startup_limiter`` between their lineups
    so that few start at a time: otherwise bots that are playing may be starved of CPU
    and lose on time. One start at a time per two CPUs keeps them safe.
    """
    async with AsyncExitStack() as stack:
        bots = []
        async with startup_limiter or nullcontext():
            for seat, command in enumerate(commands):
                log_path = log_dir / f"seat{seat}.log" if log_dir else None
                bots.append(
                    await stack.enter_async_context(
                        open_bot(command, limits=limits, log_path=log_path, sandbox=sandbox)
                    )
                )
            async with trio.open_nursery() as nursery:
                for bot in bots:
                    nursery.start_soon(bot.greet, startup_s)
        yield bots
