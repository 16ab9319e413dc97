"""One bot process: spawn, handshake, stderr log, and certain cleanup.

A bot runs in its own process group with a memory limit and, given a sandbox policy (as
``play``, ``run`` and ``check-bot`` give by default), in a sandbox: see
:mod:`goatarena.referee.sandbox` and :mod:`goatarena.referee.launcher`, which starts it.
Its pipes are :class:`~goatarena.referee.bot_pipes.BotPipes` (stdout read through a
:class:`~goatarena.protocol.LineBuffer` with a cap); its stderr is drained all the
time into a size-capped log so that a chatty bot can never block. When the owner leaves
:func:`open_bot`, the bot is asked to quit, then the whole group is terminated, killed
and reaped — also on cancellation. Deadlines are the caller's: wrap calls in
``trio.fail_after``.
"""

from __future__ import annotations

import os
import shlex
import signal
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager, suppress
from pathlib import Path

import trio

from goatarena import protocol
from goatarena.errors import BotError
from goatarena.referee._pipe_holders import holds_pipe, pipe_name
from goatarena.referee.bot_pipes import READ_CHUNK, SMALL_READ_BYTES, SMALL_READ_PAUSE_S, BotPipes
from goatarena.referee.command import parse_command as parse_command  # re-exported
from goatarena.referee.confinement import Confinement
from goatarena.referee.latency import ask_prompt_wakeups
from goatarena.referee.launcher import launch
from goatarena.referee.limits import BotLimits as BotLimits  # re-exported
from goatarena.referee.sandbox import NO_SANDBOX, SandboxPolicy
from goatarena.referee.spawn import ChildProcess
from goatarena.referee.stderr_log import StderrLog
from goatarena.referee.violations import BotViolation as BotViolation  # re-exported
from goatarena.referee.violations import Cause as Cause

STDERR_TAIL_BYTES = 2048
WAITING_STDERR_READS = 4
"""Reads of a pipe's waiting stderr when a process moves to its next game (64 KiB each:
more than a pipe holds; a bot that writes on without end goes on through the drain)."""
HOLDERS_CHECK_S = 0.05
"""How often a sandboxed bot that is being waited for is checked for still holding its
stdout (see ``BotProcess._watch_output_holders``)."""


class BotProcess(BotPipes):
    """A running bot. Create it with :func:`open_bot`; never directly."""

    def __init__(
        self,
        process: ChildProcess,
        command: str,
        limits: BotLimits,
        log_path: Path | None,
        log: StderrLog | None = None,
        confinement: Confinement | None = None,
    ) -> None:
        self.process = process
        self.confinement = confinement or Confinement(NO_SANDBOX, None)
        self.command = command
        self.limits = limits
        self.log_path = log_path
        self._log = log
        self.name = ""
        self.stderr_tail = b""
        self._lines = protocol.LineBuffer(limits.max_line_bytes)
        self._exited = trio.Event()
        self._stderr_done = trio.Event()
        self._waiting_for_output = False
        self._output_wanted = trio.Event()
        """Set while the referee waits for output: the holders' watch sleeps until then."""
        self._stdin = process.stdin
        self._stdout = process.stdout
        self._broken: BotViolation | None = None
        self._output_abandoned = False
        self._holder_seen = False
        """Whether a process of the bot's own was seen holding its stdout (sandboxed)."""
        self.confinement.on_escape = self._escaped

    def _escaped(self, detail: str) -> None:
        """The confinement killed the bot for waking itself from its pauses."""
        self.mark_broken(BotViolation(Cause.ESCAPE, detail))

    @property
    def pid(self) -> int:
        """The process id, which is also the id of the bot's process group."""
        return self.process.pid

    @property
    def pauses(self) -> bool:
        """Whether :meth:`pause` freezes this bot (False: unsandboxed or pondering, so the
        referee need not call it around every decision)."""
        return self.confinement.pauses

    def pause(self) -> None:
        """Between its turns: a sandboxed bot gets no CPU (no-op unsandboxed or pondering)."""
        self.confinement.pause()

    def resume(self) -> None:
        """Its turn: let the bot run again."""
        self.confinement.resume()

    async def resume_async(self) -> None:
        """:meth:`resume`, off the event loop for a bot of many processes, whose waking
        would hold up every other game of the referee."""
        await self.confinement.resume_async()

    def pin(self, cpu: int | None) -> None:
        """Run a sandboxed bot only on ``cpu`` (None: anywhere); no-op unsandboxed."""
        self.confinement.pin(cpu)

    @property
    def broken(self) -> BotViolation | None:
        """The violation that made this process unusable, if any."""
        return self._broken

    @property
    def returncode(self) -> int | None:
        """The exit status once the process has exited (negative: killed by that signal)."""
        return self.process.returncode

    async def close_input(self) -> None:
        """Close the bot's stdin, as a referee that is done with it would."""
        with suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            if self._stdin is not None:
                await self._stdin.aclose()

    async def wait(self) -> int:
        """Wait for the process to exit and return its status (deadline is the caller's).

        It is reaped only when the bot is closed, so that its process group cannot be
        mistaken for another until the last signal has been sent to it."""
        return await self.process.wait_exited()

    @property
    def is_usable(self) -> bool:
        """True while the bot may be given another game: not broken and still running.

        A tournament replaces a bot that is not usable by opening a new one with the
        same command (and log path, to which the new process's stderr is appended).
        """
        return self._broken is None and not self._exited.is_set()

    def mark_broken(self, violation: BotViolation) -> None:
        """Record that the process must not be used again (for example after a timeout)."""
        self._broken = self._broken or violation

    def last_words(self, count: int = 10) -> list[str]:
        """The last ``count`` non-blank lines the bot wrote to stderr (a traceback, say),
        each cut to its printable characters: they are shown on the runner's terminal,
        where a bot's escape sequences could set the clipboard or forge output."""
        text = self.stderr_tail.decode("utf-8", "replace")
        lines = (protocol.printable(line.rstrip(), limit=200) for line in text.splitlines())
        return [line for line in lines if line.strip()][-count:]

    async def handshake(self) -> str:
        """Greet the bot and return the name it gives; deadline is the caller's."""
        await self.send(protocol.Hello())
        reply = await self.receive()
        if not isinstance(reply, protocol.BotHello):
            raise self._fail(BotViolation(Cause.MALFORMED, "expected a hello message"))
        # The bot chooses its name: keep it to one printable line wherever it is shown.
        self.name = protocol.printable(reply.name)
        return self.name

    async def greet(self, startup_s: float) -> str | None:
        """Handshake within ``startup_s`` seconds; None (and the process broken) on failure.

        The CPU time a sandboxed bot uses before its hello counts too (where its cgroup
        counts it): more than ``startup_s`` of it, in many threads, fails like a slow
        start. Once greeted, the bot is paused until the referee asks it for a decision.
        """
        try:
            with trio.fail_after(startup_s):
                name = await self.handshake()
            if self.confinement.sandboxed and isinstance(self._stdout, trio.lowlevel.FdStream):
                # It has just written its hello: its holder is seen now, so a bot that
                # answers fast and then closes its stdout is caught at the next wait.
                self._holder_seen = self._holds(pipe_name(self._stdout.fileno()))
            self.pause()
            used_ms = self.confinement.cpu_ms()
            if used_ms is not None and used_ms > startup_s * 1000:
                # Many busy threads start within the time but take more than their share.
                raise BotViolation(
                    Cause.TIMEOUT,
                    f"used {used_ms:.0f} ms of CPU before its hello, more than the"
                    f" {startup_s * 1000:.0f} ms it has to start",
                )
            return name
        except trio.TooSlowError:
            self.mark_broken(
                BotViolation(Cause.TIMEOUT, f"no hello within {startup_s * 1000:.0f} ms")
            )
        except BotViolation as violation:
            self.mark_broken(violation)
        return None

    # -- background tasks ------------------------------------------------------------------

    async def _watch_exit(self) -> None:
        await self.process.wait_exited()
        self._exited.set()
        if self._waiting_for_output and self._stdout is not None:
            # The pipe may never turn readable (a child of the bot may hold it open): the
            # reader reads what is left instead. This wakes its wait without closing.
            assert isinstance(self._stdout, trio.lowlevel.FdStream)
            with suppress(OSError, ValueError):
                trio.lowlevel.notify_closing(self._stdout.fileno())

    async def _watch_output_holders(self) -> None:
        """Sandboxed: end a wait for output once no process of the bot holds its stdout.

        bubblewrap's monitor, and its init in the bot's pid namespace, keep their own
        copies of the pipe for as long as the sandbox lives, so a bot that closes its
        stdout and runs on would never show an end of file: while the referee waits for
        an answer, it looks every :data:`HOLDERS_CHECK_S` (in a worker thread) for a
        process of the bot's own that has the pipe open; once one has been seen and none
        is left, the wait ends as if the pipe had closed.
        """
        assert isinstance(self._stdout, trio.lowlevel.FdStream)
        fd = self._stdout.fileno()
        pipe = pipe_name(fd)
        while True:
            # Asleep between turns: a thousand idle bots cost the loop nothing.
            await self._output_wanted.wait()
            await trio.sleep(HOLDERS_CHECK_S)
            if not self._waiting_for_output or self._exited.is_set():
                continue
            held = await trio.to_thread.run_sync(self._holds, pipe)
            if held:
                self._holder_seen = True
            elif self._holder_seen and self._waiting_for_output:
                self._output_abandoned = True
                with suppress(OSError, ValueError):
                    trio.lowlevel.notify_closing(fd)
                return

    def _holds(self, pipe: str) -> bool:
        """Whether a process of the bot's own (not bubblewrap's monitor or its init) has
        ``pipe`` open."""
        return holds_pipe(self.confinement.members(), self.pid, pipe)

    async def _drain_stderr(self) -> None:
        stream = self.process.stderr
        assert stream is not None
        log, pid = self._log, self.process.pid
        try:
            while data := await stream.receive_some(READ_CHUNK):
                self.stderr_tail = (self.stderr_tail + data)[-STDERR_TAIL_BYTES:]
                if log is not None:
                    log.write(pid, data)
                if len(data) < SMALL_READ_BYTES:
                    # The bot's bytes gather meanwhile: one wake-up per pause, however
                    # few bytes each write() brings (the pipe holds far more than that).
                    await trio.sleep(SMALL_READ_PAUSE_S)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        finally:
            self._take_waiting_stderr()  # what gathered in a pause that shutdown cut short
            self._stderr_done.set()

    def mark_game(self, game: str) -> None:
        """Say in the bot's log that this process now plays ``game`` (a key and a seat):
        its next output there is preceded by a line naming it. What it wrote before and
        is still in the pipe is logged first, under the game it was written in: a game
        can start the moment the last one ends, before the drain has run."""
        if self._log is not None:
            self._take_waiting_stderr()
            self._log.mark_game(self.process.pid, game)

    def _take_waiting_stderr(self) -> None:
        """Log what the process's stderr holds now, without waiting (its pipe is
        non-blocking: trio's). The drain task reads on from there."""
        log, pid = self._log, self.process.pid
        if self._stderr_done.is_set():
            return
        try:
            fd = self.process.stderr.fileno()
            # At most a pipe's worth or so: a bot writing without end must not hold the loop.
            for _ in range(WAITING_STDERR_READS):
                data = os.read(fd, READ_CHUNK)
                if not data:
                    break
                self.stderr_tail = (self.stderr_tail + data)[-STDERR_TAIL_BYTES:]
                if log is not None:
                    log.write(pid, data)
        except (BlockingIOError, OSError, ValueError):
            pass  # nothing more now, or the pipe is gone

    # -- shutting down ---------------------------------------------------------------------

    async def _shutdown(self) -> None:
        """Ask the bot to quit, then terminate and kill its whole group, and reap it."""
        await self.resume_async()  # a frozen process can neither quit nor die
        if self._broken is None and not self._exited.is_set():
            with trio.move_on_after(self.limits.quit_grace_s):
                with suppress(BotViolation):
                    await self.send(protocol.Quit())
                await self._exited.wait()
        await self.close_input()
        if not self._exited.is_set():
            self._signal_group(signal.SIGTERM)
            with trio.move_on_after(self.limits.terminate_grace_s):
                await self._exited.wait()
        # Children may outlive the leader; the group id stays valid while any is alive.
        self._signal_group(signal.SIGKILL)
        await self.process.wait()

    def _signal_group(self, signum: int) -> None:
        if signum == signal.SIGKILL:
            self.confinement.kill_all()
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signum)


@asynccontextmanager
async def open_bot(
    command: str | Sequence[str],
    *,
    limits: BotLimits | None = None,
    log_path: Path | None = None,
    log: StderrLog | None = None,
    sandbox: SandboxPolicy | None = None,
) -> AsyncIterator[BotProcess]:
    """Start a bot process and own it: it is always stopped and reaped on leaving.

    Its stderr goes to ``log`` (shared with the bot's other processes, under one cap), or
    to a log of its own at ``log_path``. ``sandbox`` isolates it (see
    :mod:`goatarena.referee.sandbox`); None runs it unsandboxed. Raises
    :class:`BotError` when the command cannot be started at all, and
    :class:`~goatarena.referee.sandbox.SandboxUnavailable` when the sandbox it asks for
    cannot be had here.

    The calling thread, which keeps the bot's clock, asks to be woken promptly (see
    :mod:`goatarena.referee.latency`).
    """
    ask_prompt_wakeups()
    limits = limits or BotLimits()
    argv = parse_command(command)
    shown = command if isinstance(command, str) else shlex.join(command)
    if log is None and log_path is not None:
        log = StderrLog(log_path, limits.stderr_log_bytes, limits.stderr_game_bytes)
    if log is not None:
        log.attach()
    try:
        process, confinement = await launch(
            argv,
            memory_bytes=limits.memory_bytes,
            processes=limits.processes,
            open_files=limits.open_files,
            file_bytes=limits.file_bytes,
            policy=sandbox or NO_SANDBOX,
        )
    except BaseException as error:
        if log is not None:
            log.detach(0)
        if not isinstance(error, OSError):
            raise
        raise BotError(f"cannot start bot {shown!r}: {error.strerror or error}") from None
    bot = BotProcess(process, shown, limits, log.path if log else None, log, confinement)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(bot._drain_stderr)
            nursery.start_soon(bot._watch_exit)
            if confinement.sandboxed:
                nursery.start_soon(bot._watch_output_holders)
            if confinement.stops_by_signal:
                nursery.start_soon(confinement.keep_stopped)
            try:
                yield bot
            finally:
                with trio.CancelScope(shield=True):
                    await bot._shutdown()
                nursery.cancel_scope.cancel()
    finally:
        with trio.CancelScope(shield=True):
            if not process.reaped:  # once reaped, its pid may be another's
                bot._signal_group(signal.SIGKILL)
            await process.wait()
            await confinement.release()
            # Close our ends now: an escaped grandchild holding the pipes gets EOF/EPIPE.
            for stream in (process.stdin, process.stdout, process.stderr):
                if stream is not None:
                    with suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                        await stream.aclose()
            if log is not None:
                log.detach(process.pid)
