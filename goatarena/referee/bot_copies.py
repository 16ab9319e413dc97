"""Making a root runner's readable copies of the bots' folders off the event loop.

A bot's own folder that the bots' group cannot read is shown as a copy
(:mod:`goatarena.referee.readable_copy`). Walking and copying a folder takes a while (one
of 100,000 files, seconds), so it is done here, in a worker thread, once per run at
pre-flight, and the copy is written into the bot's
:class:`~goatarena.referee.sandbox.SandboxPolicy` (``shown_as``), which every game's
start then uses as it is. A start whose policy names no copy (a cluster worker's, whose
driver's copies are on another machine) makes or finds its own, in a thread too.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import trio

from goatarena.errors import BotError
from goatarena.referee.bot_uids import BOT_GID
from goatarena.referee.command import parse_command
from goatarena.referee.command_paths import own_folder
from goatarena.referee.readable_copy import readable_folder, sweep_copies
from goatarena.referee.sandbox import SandboxPolicy, runs_as_root


def with_copy(policy: SandboxPolicy, argv: Sequence[str], cwd: Path) -> SandboxPolicy:
    """``policy`` with the folder shown in place of the bot's own (a copy, or the folder
    itself where the bots' group can read it), made now unless it names one that exists.
    Walks the folder: run it in a worker thread. :class:`BotError` for a folder too large
    to copy."""
    if not (policy.enabled and runs_as_root()):
        return policy
    own = own_folder(argv, cwd)
    if own is None or not os.path.isdir(own):
        return policy
    shown = dict(policy.shown_as).get(own)
    if shown is not None and os.path.isdir(shown):
        return policy
    left_out = [os.path.realpath(path) for path in (*policy.hidden, *policy.hidden_where_possible)]
    try:
        copy = readable_folder(own, BOT_GID, left_out)
    except OSError as error:
        raise BotError(error.strerror or str(error)) from None
    kept = tuple(pair for pair in policy.shown_as if pair[0] != own)
    return replace(policy, shown_as=(*kept, (own, copy)))


async def with_copies(
    policies: Mapping[str, SandboxPolicy],
    commands: Mapping[str, str],
    cwd: Path | None = None,
    *,
    strict: bool = True,
) -> dict[str, SandboxPolicy]:
    """Every bot's policy :func:`with_copy`, made in one worker thread; the copies that
    killed runs left behind are swept first. :class:`BotError` names every bot whose
    folder cannot be copied, one line each; not ``strict`` (a ladder, which runs on
    without a bot that cannot start), such a bot keeps its policy, and its start says why."""
    where = cwd or Path.cwd()

    def make() -> tuple[dict[str, SandboxPolicy], list[str]]:
        if runs_as_root():
            sweep_copies()
        made, refused = dict(policies), []
        for name, policy in policies.items():
            try:
                made[name] = with_copy(policy, parse_command(commands[name]), where)
            except BotError as error:
                if strict:
                    refused.append(f"bot {name!r}: {error}")
        return made, refused

    made, refused = await trio.to_thread.run_sync(make)
    if refused:
        raise BotError("\n".join(refused))
    return made


async def with_copies_for(
    policy: SandboxPolicy, commands: Sequence[str], cwd: Path | None = None
) -> SandboxPolicy:
    """One ``policy`` shared by the bots of ``commands`` (``play``'s seats), naming the
    copies of all their folders (see :func:`with_copies`)."""
    seats = {f"seat {seat}": command for seat, command in enumerate(commands)}
    made = await with_copies(dict.fromkeys(seats, policy), seats, cwd)
    pairs = {pair for one in made.values() for pair in one.shown_as}
    return replace(policy, shown_as=tuple(sorted(pairs)))
