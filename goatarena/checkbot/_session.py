"""The bot process ``goatarena check-bot`` talks to, and the games it plays with it.

:class:`BotSession` starts the bot, greets it, plays one game at a time with the bot in
one seat and uniform random choices in the others, and watches how it answers, reads and
exits. :mod:`goatarena.checkbot` builds the checks and the report on it.
"""

from __future__ import annotations

import random
import shlex
from collections.abc import Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
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
from goatarena.referee.limits import BotLimits
from goatarena.referee.sandbox import SandboxPolicy
from goatarena.referee.stderr_log import StderrLog

QUIT_GRACE_S = 1.0
"""How long a bot may take to exit after ``quit`` or after its input closes."""
SEND_LIMIT_S = 1.0
"""How long a bot may leave a message that needs no answer unread."""
QUIET_WINDOW_S = 0.1
"""How long the checker listens for output nobody asked for after the probe game."""

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


PRINTS_ADVICE = (
    "print to stderr, the bot's log, instead (Python: goatarena.sdk's run() sends print()"
    " there, or print(..., file=sys.stderr); a kit: its README's Printing section)"
)
"""What to do about prints that reach stdout, said where they are found."""


LOG_NAME = "bot.log"
"""The file of ``--log-dir`` that keeps the checked bot's stderr."""


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
    log_dir: Path | None = None
    """Where the bot's stderr is kept (``bot.log``, every process of the check in turn)."""

    @property
    def infos(self) -> list[GameInfo]:
        """The games to check, in the registry's order."""
        return [find_game(self.game)] if self.game else list(GAMES.values())


class CheckFailure(Exception):
    """A check failed; the message says where and why."""


@dataclass(frozen=True)
class CheckTable:
    """One game to play: the deal, the player count and the bot's seat."""

    info: GameInfo
    players: int
    seat: int
    seed: int
    label: str

    def where(self, decision: int | None = None) -> str:
        at = f", decision {decision}" if decision is not None else ""
        return f"{self.label} ({self.players} players, seat {self.seat}, seed {self.seed}){at}"


class BotSession:
    """One bot under check: its current process and the conversation with it.

    A broken process is replaced by a fresh one (:meth:`open_process`); every process
    opened is closed with ``stack``, the exit stack of the whole check.
    """

    def __init__(self, command: str | Sequence[str], settings: CheckSettings) -> None:
        self.command = command if isinstance(command, str) else shlex.join(command)
        self.settings = settings
        self.stack = AsyncExitStack()
        self.process_stack: AsyncExitStack | None = None
        self.bot: BotProcess | None = None
        self.games_in_process = 0
        self.most_games_in_process = 0
        self.decisions = 0
        """Decisions the bot has answered, over every process of the check."""
        self.stray: str | None = None
        """The first output on stdout that no message asked for, and when it came."""
        self.log: StderrLog | None = None
        if settings.log_dir is not None:
            self.log = StderrLog(settings.log_dir / LOG_NAME, BotLimits().stderr_log_bytes)

    # -- processes ---------------------------------------------------------------------------

    def usable(self) -> bool:
        return self.bot is not None and self.bot.is_usable

    async def open_process(self, *, again: bool = False) -> float:
        """Start the bot and greet it; the milliseconds its hello took."""
        self.process_stack = AsyncExitStack()
        await self.stack.enter_async_context(self.process_stack)
        try:
            self.bot = await self.process_stack.enter_async_context(
                open_bot(self.command, sandbox=self.settings.sandbox, log=self.log)
            )
        except BotError as error:
            raise CheckFailure(str(error)) from None
        self.games_in_process = 0
        prefix = "a fresh process of the bot failed its hello: " if again else ""
        started = trio.current_time()
        try:
            with trio.fail_after(self.settings.startup_ms / 1000):
                name = await self.greet(self.bot, prefix)
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

    async def greet(self, bot: BotProcess, prefix: str) -> str:
        """The handshake, as the referee makes it, but a line that is no message at all
        before the hello is named for what it nearly always is: a print."""
        await bot.send(protocol.Hello())
        line = await bot.receive_line()
        try:
            reply = protocol.decode_reply(line, max_depth=bot.limits.max_depth)
        except protocol.MalformedLine as error:
            if not _looks_like_a_message(line):
                shown = self.note_stray(line, "before its hello")
                raise CheckFailure(
                    f"{prefix}the bot printed {shown} on stdout before its hello: {PRINTS_ADVICE}"
                ) from None
            raise BotViolation(Cause.MALFORMED, str(error)) from None
        if not isinstance(reply, protocol.BotHello):
            raise BotViolation(Cause.MALFORMED, "expected a hello message")
        bot.name = protocol.printable(reply.name)
        return bot.name

    async def close_process(self) -> None:
        if self.process_stack is not None:
            await self.process_stack.aclose()
        self.process_stack = None
        self.bot = None

    # -- playing -----------------------------------------------------------------------------

    def current(self) -> BotProcess:
        assert self.bot is not None
        return self.bot

    async def play(self, table: CheckTable, *, probe: bool) -> tuple[int, list[float]]:
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
                answer = await bot.receive_line()
        except trio.TooSlowError:
            raise BotViolation(
                Cause.TIMEOUT, f"no answer within {clock.available_ms:.0f} ms"
            ) from None
        used_ms = (trio.current_time() - started) * 1000
        try:
            reply = protocol.decode_reply(answer, max_depth=bot.limits.max_depth)
        except protocol.MalformedLine as error:
            if not _looks_like_a_message(answer):
                shown = self.note_stray(answer, "in place of an answer")
                raise BotViolation(
                    Cause.MALFORMED, f"{shown} is no message: a print on stdout? (see below)"
                ) from None
            raise BotViolation(Cause.MALFORMED, str(error)) from None
        self.decisions += 1
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

    async def expect_quiet(self, table: CheckTable) -> None:
        """Fail if the bot writes a line nobody asked for (an answer to an unknown message)."""
        with trio.move_on_after(QUIET_WINDOW_S):
            try:
                line = await self.current().receive_line()
            except BotViolation:
                return  # it exited after the game: the next check finds out
            if not _looks_like_a_message(line):
                shown = self.note_stray(line, "between two requests")
                raise CheckFailure(f"{table.where()}: the bot printed {shown} on stdout")
            shown = repr(line[:80].decode("utf-8", "replace"))
            raise CheckFailure(
                f"{table.where()}: the bot wrote a line nobody asked for: {shown}"
                " (did it answer an unknown message?)"
            )

    def note_stray(self, line: bytes, when: str) -> str:
        """Keep the first output on stdout that nobody asked for; ``line`` as shown."""
        shown = repr(protocol.printable(line[:60].decode("utf-8", "replace"), limit=60))
        if self.stray is None:
            self.stray = f"{shown} {when}"
        return shown

    async def note_output_after_exit(self, bot: BotProcess, after: str) -> None:
        """Look for what the bot wrote on stdout on its way out: what a buffered stdout
        held, which a bot that prints to it flushes at exit."""
        with trio.move_on_after(QUIET_WINDOW_S):
            try:
                while not (line := await bot.receive_line()).strip():
                    pass
            except BotViolation:
                return  # nothing more: its stdout is closed
            self.note_stray(line, f"after {after}")

    async def expect_exit(self, bot: BotProcess, after: str) -> str:
        started = trio.current_time()
        with trio.move_on_after(QUIT_GRACE_S):
            code = await bot.wait()
            took = (trio.current_time() - started) * 1000
            if code != 0 and after == "quit":
                raise CheckFailure(f"exited with status {code} after quit: {_stderr_tail(bot)}")
            await self.note_output_after_exit(bot, after)
            return f"exited {took:.0f} ms after {after}, status {code}"
        raise CheckFailure(f"still running {QUIT_GRACE_S * 1000:.0f} ms after {after}")


def _looks_like_a_message(line: bytes) -> bool:
    """Whether ``line`` starts as a JSON object does: if not, a print put it there."""
    return line.lstrip().startswith(b'{"')


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
