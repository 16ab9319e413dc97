"""Bot processes for a tournament: started on demand, reused across games, replaced
after a crash, and disqualified after repeated failures to start.

No process plays the same deal twice: a deal's seat rotations would otherwise let a bot
remember its hand from one rotation, which is its opponent's hand in the next. A process
that has played a deal is kept for other deals, and a fresh one is started for the next
rotation of that deal.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable, Mapping
from pathlib import Path

import trio

from goatarena import protocol
from goatarena.errors import BotError, user_error_in
from goatarena.referee.bot import BotLimits, BotProcess, BotViolation, Cause, open_bot
from goatarena.referee.sandbox import SandboxPolicy
from goatarena.referee.stderr_log import StderrLog

MAX_START_FAILURES = 3
"""Consecutive failures to start or greet after which a bot is disqualified."""


class AbsentBot:
    """The seat of a disqualified bot: broken from the start, so it forfeits every game."""

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self._violation = BotViolation(Cause.CRASH, f"disqualified: {reason}")

    @property
    def broken(self) -> BotViolation:
        """Always the disqualification."""
        return self._violation

    def mark_broken(self, violation: BotViolation) -> None:
        """Nothing to mark: an absent bot is broken already."""

    def pin(self, cpu: int | None) -> None:
        """Nothing to pin: there is no process."""

    async def send_bytes(self, line: bytes) -> None:
        """Refuse: there is no process."""
        raise self._violation

    async def receive(self) -> protocol.BotHello | protocol.Action:
        """Refuse: there is no process."""
        raise self._violation


Connection = BotProcess | AbsentBot


class BotPool:
    """Idle bot processes by bot name; every process is owned by a task of ``nursery``."""

    def __init__(
        self,
        nursery: trio.Nursery,
        commands: Mapping[str, str],
        *,
        startup_s: float,
        limits: BotLimits | None = None,
        log_dir: Path | None = None,
        disqualified: Mapping[str, str] | None = None,
        on_disqualify: Callable[[str, str], None] | None = None,
        log_factory: Callable[[str], StderrLog] | None = None,
        sandboxes: Mapping[str, SandboxPolicy] | None = None,
    ) -> None:
        self._nursery = nursery
        self._log_factory = log_factory
        self._commands = dict(commands)
        self._startup_s = startup_s
        self._limits = limits
        self._log_dir = log_dir
        self._sandboxes = dict(sandboxes or {})
        self._idle: dict[str, list[BotProcess]] = defaultdict(list)
        self._deals: dict[BotProcess, set[str]] = defaultdict(set)
        self._logs: dict[str, StderrLog] = {}
        self._retire: dict[BotProcess, trio.Event] = {}
        self._failures: dict[str, int] = defaultdict(int)
        self.disqualified: dict[str, str] = dict(disqualified or {})
        self._on_disqualify = on_disqualify
        # Starting an interpreter is CPU-heavy; capping start-ups at one per two CPUs
        # keeps them from starving bots that are on the clock in other games.
        self._startups = trio.CapacityLimiter(max(1, (os.cpu_count() or 2) // 2))
        self.started = 0
        self.started_for_deals = 0
        """Processes started only because every idle one had played the deal already."""

    def add_bots(
        self, commands: Mapping[str, str], sandboxes: Mapping[str, SandboxPolicy] | None = None
    ) -> None:
        """Learn the commands (and sandboxes) of more bots (a referee learns them from the
        jobs it gets)."""
        self._commands.update(commands)
        self._sandboxes.update(sandboxes or {})

    async def acquire(self, name: str, deal: str | None = None) -> Connection:
        """A ready process of bot ``name`` that has never played ``deal``; broken (or
        absent) if it cannot be had."""
        if name in self.disqualified:
            return AbsentBot(name, self.disqualified[name])
        idle = self._idle[name]
        for index in range(len(idle) - 1, -1, -1):
            if deal is None or deal not in self._deals[idle[index]]:
                process = idle.pop(index)
                if deal is not None:
                    self._deals[process].add(deal)
                return process
        if idle:
            self.started_for_deals += 1
        try:
            async with self._startups:
                bot: BotProcess = await self._nursery.start(self._hold, name)
        except (BotError, BaseExceptionGroup) as error:
            found = user_error_in(error)
            if found is None:
                raise
            self._start_failed(name, str(found))
            return AbsentBot(name, str(found))
        bot.name = name
        if bot.broken is not None:
            self._start_failed(name, bot.broken.detail)
            self._retire_process(bot)
        else:
            self._failures[name] = 0
            if deal is not None:
                self._deals[bot].add(deal)
        return bot

    def release(self, connection: Connection, *, reusable: bool = True) -> None:
        """Give a process back after a game; a broken one is stopped instead."""
        if not isinstance(connection, BotProcess):
            return
        if reusable and connection.is_usable and connection.name not in self.disqualified:
            self._idle[connection.name].append(connection)
        else:
            self._retire_process(connection)

    def close(self) -> None:
        """Stop every process the pool owns."""
        for event in self._retire.values():
            event.set()
        self._idle.clear()

    def _retire_process(self, bot: BotProcess) -> None:
        self._deals.pop(bot, None)
        event = self._retire.pop(bot, None)
        if event is not None:
            event.set()

    def _start_failed(self, name: str, reason: str) -> None:
        self._failures[name] += 1
        if self._failures[name] >= MAX_START_FAILURES and name not in self.disqualified:
            detail = f"failed to start {self._failures[name]} times in a row: {reason}"
            self.disqualified[name] = detail
            if self._on_disqualify is not None:
                self._on_disqualify(name, detail)

    def _log(self, name: str) -> StderrLog | None:
        """The one log of bot ``name`` for the whole tournament: one cap for all its
        processes, so that restarts get no fresh allowance."""
        if name not in self._logs:
            if self._log_factory is not None:
                self._logs[name] = self._log_factory(name)  # kept elsewhere (by a driver)
            elif self._log_dir is not None:
                limits = self._limits or BotLimits()
                path = self._log_dir / f"{name}.log"
                self._logs[name] = StderrLog(
                    path, limits.stderr_log_bytes, limits.stderr_game_bytes
                )
            else:
                return None
        return self._logs[name]

    async def _hold(self, name: str, *, task_status: trio.TaskStatus[BotProcess]) -> None:
        async with open_bot(
            self._commands[name],
            limits=self._limits,
            log=self._log(name),
            sandbox=self._sandboxes.get(name),
        ) as bot:
            self.started += 1
            await bot.greet(self._startup_s)
            retire = trio.Event()
            self._retire[bot] = retire
            task_status.started(bot)
            await retire.wait()
