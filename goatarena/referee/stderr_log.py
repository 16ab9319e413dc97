"""A bot's stderr log: one file and one size cap for every process of the bot.

A tournament restarts a bot after a crash and runs several processes of one bot at once,
all into the same log. The cap is the log's, not a process's: a bot that fills its
allowance and crashes gets no fresh allowance from its next process, and the log ends
with one line saying it was cut. Lines from different games are told apart by a marker
line naming the game and seat (and process), written before the first output of a
process in a game and again whenever another process's output comes in between. Marker
lines count towards the cap.

A log with a cap per game (``game_cap_bytes``, a competition's) is never cut as a whole:
each game's output is capped instead (ending with a line saying so), and when the file
reaches ``cap_bytes`` it is renamed ``NAME.log.1`` (replacing the one before) and a fresh
file begun. So the disk holds at most about twice the cap per bot, and the recent games'
logs, about ``cap_bytes // game_cap_bytes`` of them (less their marker lines), are always
there whole.
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

    def __init__(self, path: Path, cap_bytes: int, game_cap_bytes: int = 0) -> None:
        self.path = path
        self.cap_bytes = cap_bytes
        self.game_cap_bytes = game_cap_bytes
        self._game_used: dict[str, int] = {}
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
        if self.game_cap_bytes:
            return self._failed  # it rotates instead
        return self._failed or self.written >= self.cap_bytes

    @property
    def older_path(self) -> Path:
        """Where a rotating log's previous file is kept."""
        return self.path.with_name(self.path.name + ".1")

    def attach(self) -> None:
        """A process starts writing here; the file is opened for the first one."""
        if self._file is None and not self._failed:
            try:
                self._file = _open_log(self.path)
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
        self._forget_ended_games()
        self._users -= 1
        if self._users <= 0 and self._file is not None:
            self._file.close()
            self._file = None

    def mark_game(self, pid: int, game: str) -> None:
        """Process ``pid`` now plays ``game`` (a key and seat, say): its next output in
        the log is preceded by a line naming it."""
        self._games[pid] = game
        self._forget_ended_games()

    def _forget_ended_games(self) -> None:
        # Only games some process still plays keep a count: the counts stay few.
        playing = set(self._games.values())
        for game in [game for game in self._game_used if game not in playing]:
            del self._game_used[game]

    def _game_room(self, pid: int, size: int) -> tuple[int, bool]:
        """How much of ``size`` bytes of ``pid``'s output its game's cap lets through,
        and whether that reaches the cap just now (counted as spent)."""
        game = self._games.get(pid, "")
        if not self.game_cap_bytes:
            return size, False
        used = self._game_used.get(game, 0)
        allowed = max(0, min(size, self.game_cap_bytes - used))
        self._game_used[game] = used + allowed
        return allowed, allowed > 0 and used + allowed >= self.game_cap_bytes

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
        allowed, reached = self._game_room(pid, len(data))
        if allowed == 0:
            return
        data = data[:allowed]
        if reached:
            where = f"{game}, " if game else ""
            data += f"\n[goatarena: {where}this game's log truncated]\n".encode()
        try:
            # Rotate before the marker, so that every file's lines follow their marker.
            full = self.written and self.written + len(data) > self.cap_bytes
            if self.game_cap_bytes and full:
                self._rotate()
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
        if self.game_cap_bytes:  # rotates in _emit instead of cutting
            self._file.write(data)
            self.written += len(data)
            return
        room = self.cap_bytes - self.written
        if room <= 0:
            return
        self._file.write(data[:room])
        self.written += min(len(data), room)
        if self.written >= self.cap_bytes:
            self._file.write(CUT_LINE)

    def _rotate(self) -> None:
        assert self._file is not None
        self._file.close()
        self._file = None
        os.replace(self.path, self.older_path)
        self._file = _open_log(self.path)
        self.written = 0
        self._last = None  # the fresh file's first output names its game


def _open_log(path: Path) -> BinaryIO:
    # The runner's alone: 0600 (bots never read another's log).
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC
    return os.fdopen(os.open(path, flags, 0o600), "ab")
