"""Check that a bot program speaks protocol v1 correctly: ``goatarena check-bot``.

The checker runs the bot as the referee would and plays real games with it: the bot takes
one seat, the other seats are played in process by uniform random choice, and every seat
and player count of every game comes up in turn. It reports one pass/fail line per check:

- ``start-up``: the bot answers ``hello`` with a name within the start-up limit;
- ``unknown messages``: a game in which every message carries fields the bot does not
  know and messages of a type it does not know arrive between them; it must play on, and
  write nothing it was not asked for;
- one line per game: many games from random states, each answer legal and in time;
- ``several games``: one process plays game after game;
- ``quit``: the bot exits soon after ``quit``;
- ``stdin closed``: the bot exits soon after its input closes (the referee went away);
- ``stdout``: nothing but answers came on stdout, in any check, nor on the way out after
  ``quit`` or the end of input: a bot whose prints reach its stdout fails here, with what
  to do, even when its buffer held them through every game (they are flushed at exit).

A check that breaks the bot (a timeout, a crash, garbage) is failed with where it
happened; the next check starts a fresh process, so one fault does not hide the others.
"""

from __future__ import annotations

import hashlib
import statistics
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass
from functools import partial

from goatarena import protocol
from goatarena.checkbot._session import PRINTS_ADVICE, BotSession, CheckFailure, CheckTable
from goatarena.checkbot._session import CheckSettings as CheckSettings  # re-exported
from goatarena.games.base import GameInfo
from goatarena.referee import BotViolation, Cause, TimeControl
from goatarena.referee.sandbox import explain_denial

STARTUP = "start-up"
UNKNOWN = "unknown messages"
SEVERAL = "several games"
QUIT = "quit"
STDIN_CLOSED = "stdin closed"
STDOUT = "stdout"


@dataclass(frozen=True)
class CheckResult:
    """One line of the report: the check's name, whether it passed, and why."""

    check: str
    passed: bool
    detail: str


def check_names(settings: CheckSettings) -> list[str]:
    """The names of the checks, in the order they run."""
    games = (info.name for info in settings.infos)
    return [STARTUP, UNKNOWN, *games, SEVERAL, QUIT, STDIN_CLOSED, STDOUT]


async def check_bot(
    command: str | Sequence[str],
    settings: CheckSettings | None = None,
    *,
    on_result: Callable[[CheckResult], None] | None = None,
) -> list[CheckResult]:
    """Run every check on the bot ``command``; ``on_result`` sees each result as it comes."""
    checker = _Checker(command, settings or CheckSettings(), on_result)
    async with AsyncExitStack() as stack:
        checker.stack = stack
        await checker.run()
    return checker.results


class _Checker(BotSession):
    """The checks, run in order on a :class:`BotSession`, and their results."""

    def __init__(
        self,
        command: str | Sequence[str],
        settings: CheckSettings,
        on_result: Callable[[CheckResult], None] | None,
    ) -> None:
        super().__init__(command, settings)
        self.on_result = on_result
        self.results: list[CheckResult] = []

    def deal(self, *where: object) -> int:
        """The seed of one game, from the settings' seed and the game's place alone.

        A game is dealt the same whatever failed before it, and with or without ``game``.
        """
        text = ":".join(map(str, (self.settings.seed, *where)))
        return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=4).digest(), "big")

    def record(self, check: str, passed: bool, detail: str) -> None:
        if not passed and self.settings.sandbox is not None and self.settings.sandbox.enabled:
            denied = explain_denial(detail)
            detail = f"{detail} — {denied}" if denied else detail
        result = CheckResult(check, passed, detail)
        self.results.append(result)
        if self.on_result is not None:
            self.on_result(result)

    async def run(self) -> None:
        try:
            hello_ms = await self.open_process()
        except CheckFailure as failure:
            self.record(STARTUP, False, str(failure))
            for name in check_names(self.settings)[1:]:
                self.record(name, False, "not run: the bot did not start")
            return
        assert self.bot is not None
        self.record(STARTUP, True, f"name {self.bot.name!r}, hello answered in {hello_ms:.0f} ms")
        await self.run_check(UNKNOWN, self.check_unknown_messages)
        for info in self.settings.infos:
            await self.run_check(info.name, partial(self.check_game, info))
        await self.run_check(SEVERAL, self.check_several_games)
        await self.run_check(QUIT, self.check_quit)
        await self.run_check(STDIN_CLOSED, self.check_stdin_closed, new_process=True)
        await self.close_process()
        self.check_stdout()

    async def run_check(
        self, name: str, check: Callable[[], Awaitable[str]], *, new_process: bool = False
    ) -> None:
        """Run one check on a usable process (a fresh one if the last check broke it)."""
        fresh = ""
        try:
            if new_process or not self.usable():
                if not new_process:
                    fresh = " (in a fresh process: an earlier check broke the last one)"
                await self.close_process()
                await self.open_process(again=True)
            detail = await check() + fresh
        except CheckFailure as failure:
            if self.bot is not None:
                self.bot.mark_broken(BotViolation(Cause.CRASH, "failed a check"))
            self.record(name, False, str(failure) + fresh)
        else:
            self.record(name, True, detail)

    # -- the checks --------------------------------------------------------------------------

    async def check_unknown_messages(self) -> str:
        info = self.settings.infos[0]
        players = info.min_players
        table = CheckTable(
            info, players, 1 % players, self.deal(UNKNOWN, info.name), f"{info.name} game"
        )
        decisions, _ = await self.play(table, probe=True)
        await self.expect_quiet(table)
        return (
            f"played {info.name} with an unknown message type before start, every decide"
            f" and end, and unknown fields in them ({decisions} decisions)"
        )

    async def check_game(self, info: GameInfo) -> str:
        counts = list(info.player_counts)
        latencies: list[float] = []
        seats = set()
        for number in range(self.settings.games):
            players = counts[number % len(counts)]
            # The last seat first: it is the one a bot that assumes seat 0 gets wrong.
            seat = (players - 1 - number // len(counts)) % players
            label = f"game {number + 1} of {self.settings.games}"
            table = CheckTable(info, players, seat, self.deal(info.name, number), label)
            _, times = await self.play(table, probe=False)
            latencies += times
            seats.add(seat)
        slowest = max(latencies, default=0.0)
        median = statistics.median(latencies) if latencies else 0.0
        played = f"{counts[0]}-{counts[-1]}" if len(counts) > 1 else f"{counts[0]}"
        games = _plural(self.settings.games, "game")
        seats_shown = f"{_plural(len(seats), 'seat', number=False)} {_ranges(sorted(seats))}"
        return (
            f"{games} ({played} players, {seats_shown}),"
            f" {len(latencies)} decisions, median {median:.1f} ms, slowest {slowest:.1f} ms"
            f" of {self.settings.move_ms}"
        )

    async def check_several_games(self) -> str:
        if self.most_games_in_process < 2:
            # Not shown yet (earlier checks broke processes early): play two games now.
            info = self.settings.infos[0]
            while self.games_in_process < 2:
                number = self.games_in_process + 1
                label = f"{info.name} game {number} in one process"
                seed = self.deal(SEVERAL, number)
                await self.play(CheckTable(info, info.min_players, 0, seed, label), probe=False)
        return f"played {self.most_games_in_process} games in one process"

    async def check_quit(self) -> str:
        bot = self.current()
        await self.send(bot, protocol.encode(protocol.Quit()), "quit")
        return await self.expect_exit(bot, "quit")

    def check_stdout(self) -> None:
        """Whether anything but answers came on stdout, in any check (no process of its own:
        the others' output, their last output on the way out included, tells)."""
        if self.stray is None:
            detail = f"nothing but answers in {_plural(self.decisions, 'decision')}, nor at exit"
            self.record(STDOUT, True, detail)
        else:
            self.record(
                STDOUT,
                False,
                f"the bot's prints reach its stdout ({self.stray}) and corrupt its answers"
                f" there, at once or once a buffer fills: {PRINTS_ADVICE}",
            )

    async def check_stdin_closed(self) -> str:
        bot = self.current()
        info = self.settings.infos[0]
        start = protocol.Start(
            game=info.name,
            seat=0,
            players=[bot.name, "random"],
            time=TimeControl(move_ms=self.settings.move_ms).to_info(),
            options=dict(info.default_options),
        )
        await self.send(bot, protocol.encode(start), "start")
        await bot.close_input()
        return await self.expect_exit(bot, "its input closed mid-game")


# -- helpers -------------------------------------------------------------------------------


def _plural(count: int, noun: str, *, number: bool = True) -> str:
    word = noun if count == 1 else f"{noun}s"
    return f"{count} {word}" if number else word


def _ranges(numbers: list[int]) -> str:
    """``[0, 1, 2, 4]`` as ``"0-2, 4"``."""
    parts: list[str] = []
    for number in numbers:
        if parts and number == int(parts[-1].split("-")[-1]) + 1:
            parts[-1] = f"{parts[-1].split('-')[0]}-{number}"
        else:
            parts.append(str(number))
    return ", ".join(parts)


def format_result(result: CheckResult, width: int = 0) -> str:
    """One report line: ``PASS  name  detail``."""
    return f"{'PASS' if result.passed else 'FAIL'}  {result.check:<{width}}  {result.detail}"


def summary(results: Sequence[CheckResult]) -> str:
    """The closing line of a report."""
    failed = sum(1 for result in results if not result.passed)
    if not failed:
        return f"all {len(results)} checks passed"
    return f"{failed} of {len(results)} checks failed"
