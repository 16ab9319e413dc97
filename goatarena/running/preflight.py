"""Pre-flight: start every bot of a tournament once before its first game.

A bot whose command names a missing file, that dies of a syntax error or never says
hello would otherwise forfeit game after game and end disqualified in a results
database that must then be deleted. Started here, through the same launcher as the
games, it stops the run before anything is written, with its name, its command and the
end of what it wrote to stderr.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import trio

from goatarena.errors import BotError, user_error_in
from goatarena.referee.bot import BotLimits, open_bot
from goatarena.referee.bot_copies import with_copies
from goatarena.referee.sandbox import SandboxPolicy, explain_denial

STDERR_LINES = 10
"""How many of the last lines of a failed bot's stderr are shown."""


async def start_failure(
    command: str,
    *,
    startup_s: float,
    limits: BotLimits | None,
    sandbox: SandboxPolicy | None = None,
) -> str | None:
    """Why ``command`` cannot start and say hello within ``startup_s``, or None if it can.

    The reason is the launcher's or the handshake's, followed by the last lines the bot
    wrote to stderr, one per line, indented.
    """
    failure, _ = await start_and_greet(command, startup_s=startup_s, limits=limits, sandbox=sandbox)
    return failure


async def start_and_greet(
    command: str,
    *,
    startup_s: float,
    limits: BotLimits | None,
    sandbox: SandboxPolicy | None = None,
) -> tuple[str | None, str]:
    """Why ``command`` cannot start and greet (see :func:`start_failure`), or None; and
    the name the bot gave in its hello ("" if it gave none)."""
    try:
        async with open_bot(command, limits=limits, sandbox=sandbox) as bot:
            announced = await bot.greet(startup_s) or ""
            if bot.broken is None:
                return None, announced
            reason = bot.broken.detail
            lines = bot.last_words(STDERR_LINES)
    except (BotError, BaseExceptionGroup) as error:
        found = user_error_in(error)
        if found is None:
            raise
        return str(found), ""
    sandboxed = sandbox is not None and sandbox.enabled
    denied = explain_denial("\n".join([reason, *lines])) if sandboxed else None
    if lines and reason.endswith(": " + lines[-1]):
        reason = reason[: -len(lines[-1]) - 2]  # shown below with the lines before it
    if denied is not None:
        reason = f"{reason} ({denied})"
    if not lines:
        return f"{reason} (nothing on stderr)", ""
    tail = "\n".join(f"    | {line}" for line in lines)
    return reason + "; the end of its stderr:\n" + tail, ""


async def preflight(
    commands: Mapping[str, str],
    *,
    startup_s: float,
    limits: BotLimits | None = None,
    sandboxes: Mapping[str, SandboxPolicy] | None = None,
) -> dict[str, str]:
    """Start every bot once and greet it; raise :class:`BotError` naming each that fails.
    Returns the name each bot gave in its hello (by its name in the tournament file),
    which the report shows beside its command.

    Each bot starts in its sandbox from ``sandboxes`` (by name; none listed: unsandboxed).

    Bots start a few at a time (one per two CPUs), as in a tournament, so that a slow
    interpreter start is not mistaken for a bot that never answers. A root runner's
    readable copies of their folders are made first, in a worker thread
    (:mod:`goatarena.referee.bot_copies`).
    """
    if sandboxes:
        sandboxes = await with_copies(sandboxes, commands)
    failures: dict[str, str] = {}
    announced: dict[str, str] = {}
    limiter = trio.CapacityLimiter(max(1, (os.cpu_count() or 2) // 2))

    async def check(name: str, command: str) -> None:
        async with limiter:
            reason, announced[name] = await start_and_greet(
                command,
                startup_s=startup_s,
                limits=limits,
                sandbox=(sandboxes or {}).get(name),
            )
        if reason is not None:
            failures[name] = reason

    async with trio.open_nursery() as nursery:
        for name, command in commands.items():
            nursery.start_soon(check, name, command)
    if failures:
        lines = [
            f"bot {name!r} did not start (command: {commands[name]}): {failures[name]}"
            for name in commands
            if name in failures
        ]
        raise BotError("\n".join(lines) + "\nnothing was played or written")
    return {name: announced[name] for name in commands}
