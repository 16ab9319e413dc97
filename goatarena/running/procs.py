"""Local referee processes: games spread over CPUs without a cluster.

One trio loop plays every game of a run in one process, and with fast bots that loop is
the bottleneck. The driver therefore starts a referee process per CPU
(``python -m goatarena.running.procs``), each with its own loop and bot pool, and
talks to it over its stdin and stdout: one JSON line per call out (jobs), one back
(outcomes). The child ignores Ctrl-C and SIGTERM: the driver, which owns the store,
decides when it ends, by closing its input.
"""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from types import FrameType

import msgspec
import trio

from goatarena.errors import ClusterError
from goatarena.referee.latency import clocks_first
from goatarena.referee.limits import BotLimits
from goatarena.referee.readable_copy import remove_copies
from goatarena.referee.stderr_log import StderrLog
from goatarena.running.forwarded_log import DriverLogs, ForwardedLog, LogEvent
from goatarena.running.host import JobHost
from goatarena.running.job import (
    GameJob,
    JobOutcome,
    decode_jobs,
    decode_outcomes,
    encode_jobs,
    encode_outcomes,
)

STOP_GRACE_S = 5.0
"""How long a referee process has to stop its bots and exit once its input is closed."""
READ_CHUNK = 1 << 16
FORWARD_LOGS = "--forward-logs"
"""The flag that makes a referee process send its bots' stderr to the driver."""


class _Call(msgspec.Struct):
    id: int
    jobs: msgspec.Raw


class _Reply(msgspec.Struct, tag="reply"):
    id: int
    outcomes: msgspec.Raw


_from_referee = msgspec.json.Decoder(_Reply | LogEvent)


async def _lines(stream: trio.abc.ReceiveStream) -> AsyncIterator[bytes]:
    """The lines of ``stream`` without their newlines, until it ends."""
    buffer = bytearray()
    while data := await stream.receive_some(READ_CHUNK):
        buffer += data
        while (end := buffer.find(b"\n")) >= 0:
            yield bytes(buffer[:end])
            del buffer[: end + 1]


class _Referee:
    """One referee process seen from the driver: its pipes and the calls still out."""

    def __init__(self, process: trio.Process, logs: DriverLogs | None) -> None:
        self.process = process
        self.logs = logs
        self.waiting: dict[int, trio.MemorySendChannel[list[JobOutcome]]] = {}
        self.sending = trio.Lock()
        self.stopping = False

    async def read_replies(self) -> None:
        """Hand each reply to its caller and keep the bots' logs; a process that ends with
        calls out is an error."""
        assert self.process.stdout is not None
        async for line in _lines(self.process.stdout):
            message = _from_referee.decode(line)
            if isinstance(message, LogEvent):
                if self.logs is not None:
                    self.logs.apply(message)
                continue
            channel = self.waiting.pop(message.id)
            channel.send_nowait(decode_outcomes(message.outcomes))
        if self.waiting and not self.stopping:
            code = await self.process.wait()
            raise ClusterError(
                f"a referee process exited (status {code}) in the middle of"
                f" {len(self.waiting)} games; finished games are stored: run the same"
                " command again to resume"
            )


class ProcessExecutor:
    """Plays jobs on local referee processes, each call on the least busy one."""

    groups_deals = False

    def __init__(self, referees: Sequence[_Referee], capacity: int) -> None:
        self._referees = list(referees)
        self.capacity = capacity
        self._next_id = 0

    async def play(self, jobs: Sequence[GameJob]) -> list[JobOutcome]:
        """Send the jobs to a referee process and wait for their outcomes."""
        referee = min(self._referees, key=lambda one: len(one.waiting))
        self._next_id += 1
        call = _Call(id=self._next_id, jobs=msgspec.Raw(encode_jobs(jobs)))
        send, receive = trio.open_memory_channel[list[JobOutcome]](1)
        referee.waiting[call.id] = send
        assert referee.process.stdin is not None
        async with referee.sending:
            await referee.process.stdin.send_all(msgspec.json.encode(call) + b"\n")
        return await receive.receive()

    async def slots(self) -> int:
        """How many calls to keep out: the games played at once and one queued per referee."""
        return self.capacity


@asynccontextmanager
async def open_process_executor(
    processes: int,
    *,
    capacity: int,
    log_dir: Path | None = None,
    log_cap: int = 0,
    log_game_cap: int = 0,
    cpus: Sequence[int] = (),
) -> AsyncIterator[ProcessExecutor]:
    """Start ``processes`` referee processes; on leaving, stop them and their bots.

    With a ``log_dir`` the bots' stderr logs are kept there, by this process, each
    capped at ``log_cap`` bytes over the whole run (or each game's at ``log_game_cap``,
    the log rotating). The i-th referee pins the bots of
    its games to ``cpus[i]``, if given.
    """
    argv = [sys.executable, "-m", "goatarena.running.procs"]
    slots = -(-capacity // processes)
    logs = None
    if log_dir is not None:
        argv.append(FORWARD_LOGS)
        logs = DriverLogs(log_dir, log_cap, log_game_cap)
    async with trio.open_nursery() as nursery:
        referees: list[_Referee] = []
        try:
            for number in range(processes):
                env = dict(os.environ)
                env[REFEREE_SLOTS] = str(slots)
                if number < len(cpus):
                    env[REFEREE_CPU] = str(cpus[number])
                process = await trio.lowlevel.open_process(
                    argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
                )
                referee = _Referee(process, logs)
                referees.append(referee)
                nursery.start_soon(referee.read_replies)
            # One call more than each referee plays at once waits in its queue, so that
            # a referee that finishes a game starts the next at once rather than after a
            # round trip to this process (that wait left about a sixth of the CPUs idle).
            yield ProcessExecutor(referees, capacity + processes * QUEUED_PER_REFEREE)
        finally:
            with trio.CancelScope(shield=True):
                for referee in referees:
                    referee.stopping = True
                # All at once: each takes a moment to stop its bots.
                async with trio.open_nursery() as stopping:
                    for referee in referees:
                        stopping.start_soon(_stop, referee.process)
            nursery.cancel_scope.cancel()


REFEREE_CPU = "GOATARENA_REFEREE_CPU"
"""Tells a referee process the CPU to pin its games' bots to."""
REFEREE_SLOTS = "GOATARENA_REFEREE_SLOTS"
"""Tells a referee process how many of its calls to play at once (the rest wait)."""
QUEUED_PER_REFEREE = 1
"""Calls each referee process holds beyond those it plays."""


async def _stop(process: trio.Process) -> None:
    """Close the referee's input (it stops its bots and exits); kill it if it does not."""
    if process.stdin is not None:
        with suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            await process.stdin.aclose()
    with trio.move_on_after(STOP_GRACE_S):
        await process.wait()
    if process.returncode is None:
        process.kill()
        await process.wait()


# -- the referee process ---------------------------------------------------------------------


async def serve(forward_logs: bool) -> None:
    """Play the jobs that come in on stdin, concurrently, until stdin ends; with
    ``forward_logs``, send the bots' stderr to the driver as log events."""
    stdin = trio.lowlevel.FdStream(sys.stdin.fileno())
    stdout = trio.lowlevel.FdStream(sys.stdout.fileno())
    writing = trio.Lock()
    # Unbounded, but each bot's process forwards at most one log's cap.
    send_event, events = trio.open_memory_channel[LogEvent](math.inf)

    async def put(message: msgspec.Struct) -> None:
        # A driver that is gone (killed) wants nothing more: its input ends soon too.
        with suppress(trio.BrokenResourceError, trio.ClosedResourceError):
            async with writing:
                await stdout.send_all(msgspec.json.encode(message) + b"\n")

    slots = os.environ.get(REFEREE_SLOTS, "")
    playing = trio.Semaphore(int(slots) if slots.isdigit() and int(slots) > 0 else 1 << 30)

    async def answer(call: _Call) -> None:
        async with playing:
            outcomes = await host.play(decode_jobs(call.jobs))
        await put(_Reply(id=call.id, outcomes=msgspec.Raw(encode_outcomes(outcomes))))

    async def forward_events() -> None:
        async for event in events:
            await put(event)

    def forwarded(bot: str, limits: BotLimits) -> StderrLog:
        return ForwardedLog(
            bot, limits.stderr_log_bytes, send_event.send_nowait, limits.stderr_game_bytes
        )

    async with trio.open_nursery() as outer:
        outer.start_soon(forward_events)
        # The events end once every bot is stopped: ``send_event`` closes after them.
        async with send_event, trio.open_nursery() as nursery:
            cpu = os.environ.get(REFEREE_CPU, "")
            host = JobHost(
                nursery,
                folder_per_tournament=False,
                log_factory=forwarded if forward_logs else None,
                cpus=[int(cpu)] if cpu.isdigit() else [],
            )
            async with trio.open_nursery() as games:
                async for line in _lines(stdin):
                    games.start_soon(answer, msgspec.json.decode(line, type=_Call))
                # The driver closes our input when it wants no more answers.
                games.cancel_scope.cancel()
            host.close()


def _out_of_memory(error: BaseException) -> bool:
    """Whether ``error`` is a MemoryError, or holds one in its exception groups."""
    if isinstance(error, BaseExceptionGroup):
        return any(_out_of_memory(inner) for inner in error.exceptions)
    return isinstance(error, MemoryError)


def _absorb(signum: int, frame: FrameType | None) -> None:
    """A signal this process leaves to the driver."""


def main() -> None:
    """Entry point of a referee process (started by :func:`open_process_executor`)."""
    # Ctrl-C and SIGTERM reach the whole process group; the driver, which owns the
    # store, decides when this process ends, by closing its input. Absorbed by a handler,
    # not ignored: an ignored signal stays ignored in the bots this process starts, and a
    # bot that ignores SIGTERM can only be killed, after a grace, when its game stops.
    signal.signal(signal.SIGINT, _absorb)
    signal.signal(signal.SIGTERM, _absorb)
    try:
        with clocks_first():  # this process's one thread keeps its bots' clocks
            trio.run(serve, FORWARD_LOGS in sys.argv[1:])
    except BaseException as error:
        if not _out_of_memory(error):
            raise
        remove_copies()
        # One line on the terminal the driver shares, which then stops the run in one
        # line of its own (a referee that exited mid-game), keeping every stored game.
        sys.stderr.write("goatarena: a referee process ran out of memory\n")
        sys.stderr.flush()
        os._exit(1)
    # Every bot is stopped and reaped and every answer written (to the unbuffered pipe):
    # nothing is left that the interpreter's own teardown (a good part of a second on a
    # loaded machine, while the driver waits) would do for anyone. Only the readable
    # copies of bots' folders it made (normally none: the driver made them at pre-flight).
    remove_copies()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
