"""Bots' stderr logs across local referee processes: kept by the driver, fed by events.

A bot's log has one cap and one stream of game markers for the whole tournament, while
its processes run under several referee processes. So a referee process does not write
logs: its :class:`ForwardedLog` turns what would be written into :class:`LogEvent` s sent
to the driver with the outcomes, and the driver's :class:`DriverLogs` applies them, in
the order they come, to one :class:`~goatarena.referee.stderr_log.StderrLog` per bot.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Literal

import msgspec

from goatarena.errors import BotError
from goatarena.referee.stderr_log import StderrLog


class LogEvent(msgspec.Struct, tag="log"):
    """One call on a bot's log, made in a referee process, to be replayed by the driver."""

    bot: str
    op: Literal["attach", "mark", "write", "detach"]
    pid: int = 0
    game: str = ""
    data: bytes = b""


class ForwardedLog(StderrLog):
    """The log of one bot as a referee process sees it: every call becomes an event.

    What a process forwards is capped like the log itself, so a bot that floods its
    stderr costs the pipe to the driver no more than one log's worth per process (with a
    cap per game, one game's worth per game).
    """

    def __init__(
        self,
        bot: str,
        cap_bytes: int,
        send: Callable[[LogEvent], None],
        game_cap_bytes: int = 0,
    ) -> None:
        super().__init__(Path(f"{bot}.log"), cap_bytes, game_cap_bytes)
        self._bot = bot
        self._send = send
        self._forwarded = 0

    def attach(self) -> None:
        """A process of the bot starts (the driver opens the file)."""
        self._send(LogEvent(self._bot, "attach"))

    def detach(self, pid: int) -> None:
        """A process of the bot has stopped writing."""
        self._games.pop(pid, None)
        self._forget_ended_games()
        self._send(LogEvent(self._bot, "detach", pid))

    def mark_game(self, pid: int, game: str) -> None:
        """Process ``pid`` now plays ``game``."""
        super().mark_game(pid, game)  # counts its game's output here too
        self._send(LogEvent(self._bot, "mark", pid, game=game))

    def write(self, pid: int, data: bytes | bytearray) -> None:
        """Forward what the process wrote, up to the cap."""
        if self.game_cap_bytes:
            allowed, _ = self._game_room(pid, len(data))
            if allowed:
                self._send(LogEvent(self._bot, "write", pid, data=bytes(data[:allowed])))
            return
        room = self.cap_bytes - self._forwarded
        if room > 0:
            chunk = bytes(data[:room])
            self._forwarded += len(chunk)
            self._send(LogEvent(self._bot, "write", pid, data=chunk))


class DriverLogs:
    """The driver's logs of every bot, in ``folder``, each capped at ``cap_bytes`` (or
    rotating there, with ``game_cap_bytes`` a cap per game)."""

    def __init__(self, folder: Path, cap_bytes: int, game_cap_bytes: int = 0) -> None:
        self._folder = folder
        self._cap = cap_bytes
        self._game_cap = game_cap_bytes
        self._logs: dict[str, StderrLog] = {}

    def apply(self, event: LogEvent) -> None:
        """Replay one event on the bot's log; a log that cannot be opened is skipped (a
        log is never worth a game)."""
        log = self._logs.get(event.bot)
        if log is None:
            log = self._logs[event.bot] = StderrLog(
                self._folder / f"{event.bot}.log", self._cap, self._game_cap
            )
        if event.op == "attach":
            with suppress(BotError):
                log.attach()
        elif event.op == "mark":
            log.mark_game(event.pid, event.game)
        elif event.op == "write":
            log.write(event.pid, event.data)
        else:
            log.detach(event.pid)
