"""A bot's two pipes: lines written to its stdin, lines read from its stdout.

:class:`BotPipes` is the conversation half of :class:`goatarena.referee.bot.BotProcess`:
every request and answer of a game passes here, so the common case (the answer is already
in the pipe) takes no trip through the scheduler. A pipe that closes, a line past the cap
and an exit while waiting end as a :class:`~goatarena.referee.violations.BotViolation`
that leaves the process unusable.
"""

from __future__ import annotations

import os
import signal

import msgspec
import trio

from goatarena import protocol
from goatarena.referee.confinement import Confinement
from goatarena.referee.limits import BotLimits
from goatarena.referee.spawn import ChildProcess
from goatarena.referee.violations import BotViolation, Cause

READ_CHUNK = 1 << 16
EXIT_WAIT_S = 0.1
"""How long a bot whose pipe has closed is given to exit, for its status to explain it."""
LAST_WORDS_WAIT_S = 0.05
"""How long an exited bot's crash waits for the end of its stderr, for its last words."""
SMALL_READ_BYTES = 4096
"""A read of less than a page is small: on stdout, one that leaves its line incomplete is
counted; on stderr, each is followed by a pause (see ``BotProcess._drain_stderr``)."""
PROMPT_SMALL_READS = 16
"""Small reads of one line that are each followed at once by the next wait. Reads of a
page or more need no bound of their own: a line holds at most 16 of them."""
SMALL_READ_PAUSE_S = 0.01
"""After that many, how long the referee lets a line's bytes gather before it reads on.
Without it, a bot writing its line a byte per ``write()`` wakes the referee for every byte
(some 40 us of the event loop each: the better part of a core for as long as it
dribbles); with it, one wake-up per pause at most. The pause is in the bot's turn, so on
its clock: only a bot that dribbles can be read up to this much later."""


class BotPipes:
    """Writing requests to a bot and reading its answers (the base of ``BotProcess``)."""

    process: ChildProcess
    confinement: Confinement
    limits: BotLimits
    stderr_tail: bytes
    _lines: protocol.LineBuffer
    _exited: trio.Event
    _stderr_done: trio.Event
    _waiting_for_output: bool
    _output_wanted: trio.Event
    _output_abandoned: bool
    _stdin: trio.abc.SendStream | None
    _stdout: trio.abc.ReceiveStream | None
    _broken: BotViolation | None

    async def send(self, message: msgspec.Struct) -> None:
        """Write one message; a bot that no longer reads it has crashed."""
        await self.send_bytes(protocol.encode(message))

    async def send_bytes(self, line: bytes) -> None:
        """Write one encoded line.

        The pipe is non-blocking, so a line that fits is written at once, without the
        trip through the scheduler that ``send_all`` takes first; only the rest of a line
        that finds the pipe full waits, in ``send_all``. Not a checkpoint, then, unless
        it has to wait.
        """
        if self._broken is not None:
            raise self._broken
        assert isinstance(self._stdin, trio.lowlevel.FdStream)
        try:
            # fileno() is -1 once the stream is closed: never a stale descriptor.
            written = os.write(self._stdin.fileno(), line)
        except BlockingIOError:
            written = 0
        except OSError:  # EPIPE: the bot is gone, or at least its input
            raise await self._crash("stopped reading its input") from None
        if written == len(line):
            return
        try:
            await self._stdin.send_all(line[written:])
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            raise await self._crash("stopped reading its input") from None

    async def receive(self) -> protocol.BotHello | protocol.Action:
        """Read and decode the next line; a violation for garbage, EOF or an exit.

        A line that does not decode leaves the process usable: the line is consumed, so
        the conversation stays in step and the caller may decide to go on. Decoding costs
        at most about a millisecond whatever the line holds (see
        :func:`~goatarena.protocol.decode_reply`), so it stays on the event loop.
        """
        line = self._line_at_once()
        if line is None:
            line = await self._line_after_waiting()
        try:
            return protocol.decode_reply(line, max_depth=self.limits.max_depth)
        except protocol.MalformedLine as error:
            raise BotViolation(Cause.MALFORMED, str(error)) from None

    async def receive_line(self) -> bytes:
        """The next line the bot writes, without its newline.

        The pipe is read at once and waited on only while it is empty, so a line already
        written costs no trip through the scheduler (and is no checkpoint). Once the bot
        has exited, what it left in the pipe is read and nothing more is waited for.
        """
        line = self._line_at_once()
        if line is None:
            line = await self._line_after_waiting()
        return line

    def _line_at_once(self) -> bytes | None:
        """The next line if it is buffered or already in the pipe; None if it is not
        (yet, or ever: :meth:`_line_after_waiting` tells which). Not a coroutine: this is
        every answer's path, and an answer is usually there by the time it is read."""
        if self._broken is not None:
            raise self._broken
        line = self._next_line()
        if line is None:
            data = self._read_at_once()
            if data:
                line = self._next_line(data)
        return line

    async def _line_after_waiting(self) -> bytes:
        """The next line, once the bot has written it (the pipe was found empty).

        The referee's work is bounded by the bot's time, not by how it writes: past
        :data:`PROMPT_SMALL_READS` small reads that leave the line incomplete, each
        further read waits :data:`SMALL_READ_PAUSE_S` first, while the bytes gather.
        """
        small_reads = 0
        paused = False
        while True:
            data = await self._read_after_waiting(look_first=paused)
            if not data:
                raise await self._crash("closed its stdout")
            line = self._next_line(data)
            if line is not None:
                return line
            if len(data) < SMALL_READ_BYTES:
                small_reads += 1
            paused = small_reads > PROMPT_SMALL_READS
            if paused:
                await trio.sleep(SMALL_READ_PAUSE_S)

    def _read_at_once(self) -> bytes | None:
        """What the bot has written, up to a chunk: None if nothing yet, ``b""`` if it will
        write nothing more (or the stream is closed)."""
        assert isinstance(self._stdout, trio.lowlevel.FdStream)
        try:
            # fileno() is -1 once the stream is closed: never a stale descriptor.
            return os.read(self._stdout.fileno(), READ_CHUNK)
        except BlockingIOError:
            return None
        except OSError:  # closed: no more output either way
            return b""

    async def _read_after_waiting(self, *, look_first: bool = False) -> bytes:
        """What the bot writes next, up to a chunk, waiting for it; ``b""`` once it will
        write no more. ``look_first``: read before waiting (after a pause, something has
        usually gathered, and a wait would cost a trip through the scheduler for nothing)."""
        assert isinstance(self._stdout, trio.lowlevel.FdStream)
        while True:
            if self._exited.is_set() or self._output_abandoned:
                # Do not wait for an end of file: a child of the bot may hold the pipe
                # open without ever writing, and in a sandbox bubblewrap always does.
                return self._read_at_once() or b""
            if look_first:
                look_first = False
                data = self._read_at_once()
                if data is not None:
                    return data
            await self._wait_for_output(self._stdout.fileno())
            data = self._read_at_once()
            if data is not None:
                return data

    async def _wait_for_output(self, fd: int) -> None:
        """Wait until ``fd`` is readable or the bot has exited (``_watch_exit`` wakes us).

        No cancel scope of its own (this runs on every decision): ``_watch_exit`` ends the
        wait with :func:`trio.lowlevel.notify_closing`, which the wait reports as closed.
        """
        self._waiting_for_output = True
        self._output_wanted.set()  # wakes the sandbox's watch over the pipe's holders
        try:
            await trio.lowlevel.wait_readable(fd)
        except trio.ClosedResourceError:
            pass  # woken by _watch_exit (or the stream is closing): the caller reads
        finally:
            self._waiting_for_output = False
            if self._output_wanted.is_set():
                self._output_wanted = trio.Event()

    async def _crash(self, if_running: str) -> BotViolation:
        """The process is unusable: a crash, explained as well as a moment allows.

        A closed pipe usually means that the bot is exiting, and then its exit status and
        its last words on stderr (a traceback, say) tell more; ``if_running`` is the
        detail if it does not exit.
        """
        with trio.move_on_after(EXIT_WAIT_S):
            await self._exited.wait()
        if not self._exited.is_set():
            return self._fail(BotViolation(Cause.CRASH, if_running))
        with trio.move_on_after(LAST_WORDS_WAIT_S):
            await self._stderr_done.wait()  # a child of the bot may hold stderr open
        return self._fail(BotViolation(Cause.CRASH, self._exit_detail()))

    def _next_line(self, data: bytes = b"") -> bytes | None:
        """The next whole line with ``data`` added to what is buffered, or None."""
        try:
            return self._lines.take(data) if data else self._lines.next_line()
        except protocol.LineTooLong as error:
            # The rest of the line may still be coming: the stream cannot be resynchronised.
            self._lines = protocol.LineBuffer(self.limits.max_line_bytes)
            raise self._fail(BotViolation(Cause.MALFORMED, str(error))) from None

    def _fail(self, violation: BotViolation) -> BotViolation:
        self._broken = violation
        return violation

    def _exit_detail(self) -> str:
        """How the process ended, and the last line of its stderr."""
        code = self.process.returncode
        assert code is not None, "the process has exited"
        code = self.confinement.exit_status(code)
        if code == -signal.SIGKILL and self.confinement.exceeded_memory():
            return "killed for exceeding its memory limit"
        detail = f"exited with signal {-code}" if code < 0 else f"exited with code {code}"
        tail = self.stderr_tail.decode("utf-8", "replace").strip().splitlines()
        return f"{detail}: {protocol.printable(tail[-1], limit=200)}" if tail else detail
