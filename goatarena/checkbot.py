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
- ``stdin closed``: the bot exits soon after its input closes (the referee went away).

A check that breaks the bot (a timeout, a crash, garbage) is failed with where it
happened; the next check starts a fresh process, so one fault does not hide the others.
"""

from __future__ import annotations

import hashlib
import random
import shlex
import statistics
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass
from functools import partial
from typing import Any

import msgspec
import trio

from goatarena import protocol
from goatarena.errors import BotError
from goatarena.games import GAMES, find_game
from goatarena.games.base import GameInfo
from goatarena.protocol import bot_seed
from goatarena.referee import BotProcess, BotViolation, Cause, Clock, TimeControl, choose_index
from goatarena.referee.bot import open_bot
from goatarena.referee.sandbox import SandboxPolicy, explain_denial

QUIT_GRACE_S = 1.0
"""How long a bot may take to exit after ``quit`` or after its input closes."""
SEND_LIMIT_S = 1.0
"""How long a bot may leave a message that needs no answer unread."""
QUIET_WINDOW_S = 0.1
"""How long the checker listens for output nobody asked for after the probe game."""

STARTUP = "start-up"
UNKNOWN = "unknown messages"
SEVERAL = "several games"
QUIT = "quit"
STDIN_CLOSED = "stdin closed"

UNKNOWN_MESSAGE = {
    "type": "x-notice",
    "text": "a message type from a later protocol version: skip it",
    "detail": {"type": "decide", "decision": 0, "actions": [0]},
}
"""A message of a type no bot knows; its nested ``type`` catches bots that search lines."""
EXTRA_FIELDS = {"x_future": {"type": "quit", "note": "a field from a later version"}}
"""Unknown fields put right after ``type`` in every message of the probe game."""
TRAILING_FIELDS = {"x_more": [1, "two", None, {"three": 3.5}]}
"""Unknown fields put at the end of every message of the probe game."""


@dataclass(frozen=True)
class CheckResult:
    """One line of the report: the check's name, whether it passed, and why."""

    check: str
    passed: bool
    detail: str


@dataclass(frozen=True, kw_only=True)
class CheckSettings:
    """What to check: ``games`` games of each game (or only ``game``), at ``move_ms``."""

    games: int = 10
    move_ms: int = 1000
    startup_ms: int = 10_000
    seed: int = 1
    game: str | None = None
    sandbox: SandboxPolicy | None = None
    """The sandbox the bot runs in, as in a tournament (None: unsandboxed)."""

    @property
    def infos(self) -> list[GameInfo]:
        """The games to check, in the registry's order."""
        return [find_game(self.game)] if self.game else list(GAMES.values())


class CheckFailure(Exception):
    """A check failed; the message says where and why."""


@dataclass(frozen=True)
class _Table:
    """One game to play: the deal, the player count and the bot's seat."""

    info: GameInfo
    players: int
    seat: int
    seed: int
    label: str

    def where(self, decision: int | None = None) -> str:
        at = f", decision {decision}" if decision is not None else ""
        return f"{self.label} ({self.players} players, seat {self.seat}, seed {self.seed}){at}"


def check_names(settings: CheckSettings) -> list[str]:
    """The names of the checks, in the order they run."""
    return [STARTUP, UNKNOWN, *(info.name for info in settings.infos), SEVERAL, QUIT, STDIN_CLOSED]


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


class _Checker:
    def __init__(
        self,
        command: str | Sequence[str],
        settings: CheckSettings,
        on_result: Callable[[CheckResult], None] | None,
    ) -> None:
        self.command = command if isinstance(command, str) else shlex.join(command)
        self.settings = settings
        self.on_result = on_result
        self.results: list[CheckResult] = []
        self.stack = AsyncExitStack()
        self.process_stack: AsyncExitStack | None = None
        self.bot: BotProcess | None = None
        self.games_in_process = 0
        self.most_games_in_process = 0

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

    # -- processes ---------------------------------------------------------------------------

    def usable(self) -> bool:
        return self.bot is not None and self.bot.is_usable

    async def open_process(self, *, again: bool = False) -> float:
        """Start the bot and greet it; the milliseconds its hello took."""
        self.process_stack = AsyncExitStack()
        await self.stack.enter_async_context(self.process_stack)
        try:
            self.bot = await self.process_stack.enter_async_context(
                open_bot(self.command, sandbox=self.settings.sandbox)
            )
        except BotError as error:
            raise CheckFailure(str(error)) from None
        self.games_in_process = 0
        prefix = "a fresh process of the bot failed its hello: " if again else ""
        started = trio.current_time()
        try:
            with trio.fail_after(self.settings.startup_ms / 1000):
                name = await self.bot.handshake()
        except trio.TooSlowError:
            raise CheckFailure(
                f"{prefix}no hello within {self.settings.startup_ms} ms (the start-up limit);"
                " a bot that runs but never answers often buffers its input or output"
                " (mawk needs -W interactive; see docs/bots.md)"
            ) from None
        except BotViolation as violation:
            # The end of its stderr says why (a traceback, a syntax error), not just the last line.
            words = "".join(f"\n    | {line}" for line in self.bot.last_words(10))
            raise CheckFailure(f"{prefix}{violation}{words}") from None
        if not name.strip():
            raise CheckFailure(f"{prefix}the hello gives an empty name")
        return (trio.current_time() - started) * 1000

    async def close_process(self) -> None:
        if self.process_stack is not None:
            await self.process_stack.aclose()
        self.process_stack = None
        self.bot = None

    # -- the checks --------------------------------------------------------------------------

    async def check_unknown_messages(self) -> str:
        info = self.settings.infos[0]
        players = info.min_players
        table = _Table(
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
            table = _Table(info, players, seat, self.deal(info.name, number), label)
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
                await self.play(_Table(info, info.min_players, 0, seed, label), probe=False)
        return f"played {self.most_games_in_process} games in one process"

    async def check_quit(self) -> str:
        bot = self.current()
        await self.send(bot, protocol.encode(protocol.Quit()), "quit")
        return await self.expect_exit(bot, "quit")

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

    # -- playing -----------------------------------------------------------------------------

    def current(self) -> BotProcess:
        assert self.bot is not None
        return self.bot

    async def play(self, table: _Table, *, probe: bool) -> tuple[int, list[float]]:
        """Play one game with the bot in ``table.seat``: its decisions and their times."""
        bot = self.current()
        info = table.info
        state = info.new_state(table.players, table.seed)
        control = TimeControl(move_ms=self.settings.move_ms)
        clock = Clock(control)
        names = [
            bot.name if seat == table.seat else f"random#{seat}" for seat in range(table.players)
        ]
        start = protocol.Start(
            game=info.name,
            seat=table.seat,
            players=names,
            time=control.to_info(),
            options=state.options,
            match=f"check-bot {table.seed}",
            seed=bot_seed(table.seed, table.seat),
        )
        if probe:
            await self.send(bot, _encode_dict(UNKNOWN_MESSAGE), table.where())
        await self.send(bot, _with_unknown_fields(start, probe), table.where())
        chooser = random.Random(table.seed ^ 0x5EED)
        events: list[protocol.Event] = []
        seen = 0
        times: list[float] = []
        while (seat := state.to_act) is not None:
            actions = state.legal_actions()
            if seat != table.seat:
                index = chooser.randrange(len(actions))
            else:
                decision = len(state.history)
                request = protocol.Decide(
                    decision=decision,
                    observation=state.observation(seat),
                    actions=actions,
                    time_ms=int(clock.available_ms),
                    events=events[seen:],
                )
                seen = len(events)
                if probe:
                    await self.send(bot, _encode_dict(UNKNOWN_MESSAGE), table.where(decision))
                try:
                    index, used_ms = await self.ask(bot, request, clock, probe)
                except BotViolation as violation:
                    raise CheckFailure(f"{table.where(decision)}: {violation}") from None
                clock.charge(used_ms)
                times.append(used_ms)
            action = actions[index]
            events.append(protocol.Event(seat=seat, action=state.public_action(seat, action)))
            state.apply_index(index)
        result = state.result()
        end = protocol.End(scores=result.scores, ranks=result.ranks, seat=table.seat)
        if probe:
            await self.send(bot, _encode_dict(UNKNOWN_MESSAGE), table.where())
        await self.send(bot, _with_unknown_fields(end, probe), f"{table.where()}, end")
        self.games_in_process += 1
        self.most_games_in_process = max(self.most_games_in_process, self.games_in_process)
        return len(times), times

    async def ask(
        self, bot: BotProcess, request: protocol.Decide, clock: Clock, probe: bool
    ) -> tuple[int, float]:
        """The index the bot chooses and the milliseconds it took; BotViolation if none."""
        line = _with_unknown_fields(request, probe)
        started = trio.current_time()
        try:
            with trio.fail_after(clock.deadline_s):
                await bot.send_bytes(line)
                reply = await bot.receive()
        except trio.TooSlowError:
            raise BotViolation(
                Cause.TIMEOUT, f"no answer within {clock.available_ms:.0f} ms"
            ) from None
        used_ms = (trio.current_time() - started) * 1000
        if not isinstance(reply, protocol.Action):
            raise BotViolation(Cause.MALFORMED, "expected an action, got a hello")
        if reply.decision is not None and reply.decision != request.decision:
            raise BotViolation(
                Cause.MALFORMED,
                f"the answer names decision {reply.decision}, not {request.decision}",
            )
        return choose_index(reply, request.actions), used_ms

    async def send(self, bot: BotProcess, line: bytes, where: str) -> None:
        """Write a message that needs no answer."""
        try:
            with trio.fail_after(SEND_LIMIT_S):
                await bot.send_bytes(line)
        except trio.TooSlowError:
            raise CheckFailure(f"{where}: the bot does not read its input") from None
        except BotViolation as violation:
            raise CheckFailure(f"{where}: {violation}") from None

    async def expect_quiet(self, table: _Table) -> None:
        """Fail if the bot writes a line nobody asked for (an answer to an unknown message)."""
        with trio.move_on_after(QUIET_WINDOW_S):
            try:
                line = await self.current().receive_line()
            except BotViolation:
                return  # it exited after the game: the next check finds out
            shown = line[:80].decode("utf-8", "replace")
            raise CheckFailure(
                f"{table.where()}: the bot wrote a line nobody asked for: {shown!r}"
                " (did it answer an unknown message?)"
            )

    async def expect_exit(self, bot: BotProcess, after: str) -> str:
        started = trio.current_time()
        with trio.move_on_after(QUIT_GRACE_S):
            code = await bot.wait()
            took = (trio.current_time() - started) * 1000
            if code != 0 and after == "quit":
                raise CheckFailure(f"exited with status {code} after quit: {_stderr_tail(bot)}")
            return f"exited {took:.0f} ms after {after}, status {code}"
        raise CheckFailure(f"still running {QUIT_GRACE_S * 1000:.0f} ms after {after}")


# -- helpers -------------------------------------------------------------------------------


def _encode_dict(message: dict[str, Any]) -> bytes:
    return msgspec.json.encode(message) + b"\n"


def _with_unknown_fields(message: msgspec.Struct, probe: bool) -> bytes:
    """The encoded message; in the probe game with unknown fields at both ends and inside."""
    if not probe:
        return protocol.encode(message)
    fields = msgspec.json.decode(protocol.encode(message))
    first = {"type": fields.pop("type"), **EXTRA_FIELDS}
    if isinstance(fields.get("time"), dict):
        fields["time"] = {**fields["time"], "x_reserve_ms": 0}
    if isinstance(fields.get("events"), list):
        fields["events"] = [{**event, "x_seen": True} for event in fields["events"]]
    return _encode_dict({**first, **fields, **TRAILING_FIELDS})


def _stderr_tail(bot: BotProcess) -> str:
    lines = bot.stderr_tail.decode("utf-8", "replace").strip().splitlines()
    return lines[-1][:200] if lines else "(nothing on stderr)"


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
