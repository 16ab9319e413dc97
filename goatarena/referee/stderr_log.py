"""A bot's stderr log: one file and one size cap for every process of the bot.

A tournament restarts a bot after a crash and runs several processes of one bot at once,
all into the same log. The cap is the log's, not a process's: a bot that fills its
allowance and crashes gets no fresh allowance from its next process, and the log ends
with one line saying it was cut. Lines from different games are told apart by a marker
line naming the game and seat (and process), written before the first output of a
process in a game and again whenever another process's output comes in between. Marker
lines count towards the cap.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO

from goatarena.errors import BotError

CUT_LINE = b"\n[goatarena: log truncated]\n"
"""The log's last line once it reaches its cap; later output of the bot is discarded."""
PARTIAL_LINE_BYTES = 4096
"""How much of an unfinished line is held back to be written with its end."""


class StderrLog:
    """The log of one bot, shared by its processes; a process attaches while it runs."""

    def __init__(self, path: Path, cap_bytes: int) -> None:
        self.path = path
        self.cap_bytes = cap_bytes
        self.written = 0
        self._file: BinaryIO | None = None
        self._users = 0
        self._games: dict[int, str] = {}
        self._partial: dict[int, bytes] = {}
        self._last: tuple[int, str] | None = None
        self._failed = False

    @property
    def is_cut(self) -> bool:
        """Whether the cap has been reached (or writing failed): nothing more is written."""
        return self._failed or self.written >= self.cap_bytes

    def attach(self) -> None:
        """A process starts writing here; the file is opened for the first one."""
        if self._file is None and not self._failed:
            try:
                # The runner's alone: 0600 (bots never read another's log).
                flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC
                self._file = os.fdopen(os.open(self.path, flags, 0o600), "ab")
            except OSError as error:
                raise BotError(
                    f"cannot open the log {str(self.path)!r}: {error.strerror}"
                ) from None
        self._users += 1

    def detach(self, pid: int) -> None:
        """A process has stopped writing; the file is closed after the last one."""
        rest = self._partial.pop(pid, b"")
        if rest and not self.is_cut and self._file is not None:
            self._emit(pid, rest + b"\n")
        self._games.pop(pid, None)
        self._users -= 1
        if self._users <= 0 and self._file is not None:
            self._file.close()
            self._file = None

    def mark_game(self, pid: int, game: str) -> None:
        """Process ``pid`` now plays ``game`` (a key and seat, say): its next output in
        the log is preceded by a line naming it."""
        self._games[pid] = game

    def write(self, pid: int, data: bytes | bytearray) -> None:
        """Append what fits of process ``pid``'s output, whole lines at a time so that a
        marker never splits a line (a partial line waits, up to :data:`PARTIAL_LINE_BYTES`,
        for its end or for the process to stop). A full disk costs the log, not the game:
        the log just stops."""
        if self.is_cut or self._file is None:
            return
        pending = self._partial.pop(pid, b"") + data
        end = pending.rfind(b"\n") + 1
        if end == 0:
            if len(pending) < PARTIAL_LINE_BYTES:
                self._partial[pid] = pending
                return
            end = len(pending)
        if end < len(pending):
            self._partial[pid] = pending[end:]
        self._emit(pid, pending[:end])

    def _emit(self, pid: int, data: bytes | bytearray) -> None:
        assert self._file is not None
        game = self._games.get(pid, "")
        try:
            last, self._last = self._last, (pid, game)
            # A process writing alone outside any game (a single game's seat) needs no
            # marker; a new game, or output of another process in between, does.
            if (game and last != (pid, game)) or (last is not None and last[0] != pid):
                where = f"{game}, " if game else ""
                self._put(f"[goatarena: {where}pid {pid}]\n".encode())
            self._put(data)
            self._file.flush()
        except OSError:
            self._failed = True

    def _put(self, data: bytes | bytearray) -> None:
        assert self._file is not None
        room = self.cap_bytes - self.written
        if room <= 0:
            return
        self._file.write(data[:room])
        self.written += min(len(data), room)
        if self.written >= self.cap_bytes:
            self._file.write(CUT_LINE)
