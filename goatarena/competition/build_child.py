"""The process that runs one build in the bots' sandbox: ``python -m
goatarena.competition.build_child SETTINGS`` from the folder to build.

The launcher shows a bot the folder it runs from (its working folder) and nothing else
of its parent: a build runs from the submission's folder, so it is started in a process of
its own with that folder as its working folder, and a server building several
submissions never changes its own. The build runs, with all it starts, at the
machine's idle priority (:mod:`goatarena.referee.idle`): it uses what the games leave,
and its time limit does not count its wait for a CPU (:class:`_Clock`); this process,
which keeps that time, stays at its parent's. Its last line on stdout is the outcome as
JSON (:class:`BuildOutcome`); the build's own output goes to the capped log.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path

import msgspec
import trio

from goatarena.referee.cgroups import BotCgroup
from goatarena.referee.idle import idle_cgroups
from goatarena.referee.launcher import launch
from goatarena.referee.sandbox import SandboxPolicy

CUT_NOTE = b"\n[the build log is cut here: it reached its cap]\n"
ORPHAN_POLL_S = 0.5
DISK_POLL_S = 0.5
TIME_POLL_S = 0.1
BUSY_TIMES = 10
"""A build that waits for the CPU so long that this many times its time limit passes is
stopped all the same: a machine whose games never leave a CPU free builds nothing."""


class BuildSettings(msgspec.Struct, frozen=True, kw_only=True):
    """What the child is told: the command, its limits, the log, what to hide."""

    command: str
    seconds: float
    memory_bytes: int
    processes: int
    file_bytes: int
    log: str
    log_bytes: int
    hidden: list[str] = []
    hidden_where_possible: list[str] = []
    sandbox: str = "bwrap"
    parent: int = 0
    """The process that started the build (0: whichever is its parent when it starts)."""
    disk_bytes: int = 1 << 30
    disk_entries: int = 100_000


class BuildOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """How a build ended: its exit status (None when it was stopped), and why not 0."""

    status: int | None
    reason: str
    seconds: float


class _CappedLog:
    """The build's output, merged, kept up to ``cap`` bytes; the rest read and dropped."""

    def __init__(self, path: Path, cap: int) -> None:
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC
        self.file = os.fdopen(os.open(path, flags, 0o600), "wb")
        self.left = cap
        self.cut = False

    def write(self, data: bytes) -> None:
        if self.left > 0:
            kept = data[: self.left]
            self.file.write(kept)
            self.file.flush()
            self.left -= len(kept)
        if self.left <= 0 and not self.cut and data:
            self.cut = True
            self.file.write(CUT_NOTE)
            self.file.flush()


async def run_build(settings: BuildSettings) -> BuildOutcome:
    """Run ``settings.command`` with ``sh -c`` in the sandbox from this folder."""
    folder = Path.cwd()
    policy = SandboxPolicy(
        mode=settings.sandbox,
        tmp_bytes=settings.file_bytes,
        write_paths=(str(folder),),
        hidden=tuple(settings.hidden),
        hidden_where_possible=tuple(settings.hidden_where_possible),
    )
    log = _CappedLog(Path(settings.log), settings.log_bytes)
    started = time.monotonic()
    process, confinement = await launch(
        ["sh", "-c", settings.command],
        memory_bytes=settings.memory_bytes,
        processes=settings.processes,
        open_files=1024,
        file_bytes=settings.file_bytes,
        policy=policy,
        idle=True,
    )
    reason = ""
    try:
        await process.stdin.aclose()
        stopped: list[str] = []
        async with trio.open_nursery() as watching:
            parent = settings.parent or os.getppid()
            clock = _Clock(started, _pressure_file(confinement.cgroup))
            watching.start_soon(_timed, clock, settings.seconds, watching.cancel_scope, stopped)
            watching.start_soon(_orphaned, parent, watching.cancel_scope, stopped)
            watching.start_soon(_disk, folder, settings, watching.cancel_scope, stopped)
            async with trio.open_nursery() as copying:
                for stream in (process.stdout, process.stderr):
                    copying.start_soon(_copy, stream, log)
                await process.wait_exited()
            watching.cancel_scope.cancel()  # built: the output is all in the log
        if stopped:
            reason = stopped[0]
    finally:
        confinement.kill_all()
        code = await process.wait()
        await confinement.release()
        log.file.close()
    status = None if reason else confinement.exit_status(code)
    if not reason and status != 0:
        if confinement.exceeded_memory():
            reason = "the build ran out of memory"
        elif status is not None and status < 0:
            reason = f"the build was killed by signal {-status}"
        else:
            reason = f"the build failed (exit status {status})"
    return BuildOutcome(status=status, reason=reason, seconds=time.monotonic() - started)


class _Clock:
    """A build's time: the wall clock's, less the time it waited for a CPU that others
    had (the build runs at idle priority: the games come first). That is the ``full``
    line of its cgroup's CPU pressure (``cpu.pressure``: time when tasks of it were ready
    to run and none was running; not ``some``, which a parallel build on fewer CPUs than
    its jobs counts against itself), where the kernel keeps one (a cgroup v2 folder, or
    the unified hierarchy beside v1); elsewhere the wall clock's alone."""

    def __init__(self, started: float, pressure: Path | None) -> None:
        self.started = started
        self.pressure = pressure
        self.waited_at_start = self._waited()

    def _waited(self) -> float:
        if self.pressure is None:
            return 0.0
        try:
            lines = self.pressure.read_text().splitlines()
            full = next(line for line in lines if line.startswith("full "))
            return int(full.rsplit("total=", 1)[1]) / 1e6
        except (OSError, StopIteration, IndexError, ValueError):
            return 0.0

    def wall(self) -> float:
        """Seconds since the build started."""
        return time.monotonic() - self.started

    def ran(self) -> float:
        """Seconds the build had to run: its wall time less its wait for a CPU."""
        return self.wall() - (self._waited() - self.waited_at_start)


def _pressure_file(cgroup: BotCgroup | None) -> Path | None:
    if cgroup is None:
        return None
    found = [folder / "cpu.pressure" for folder in dict.fromkeys(cgroup.folders.values())]
    return next((path for path in found if path.exists()), None)


async def _timed(clock: _Clock, seconds: float, scope: trio.CancelScope, why: list[str]) -> None:
    """Stop the build once it has had ``seconds`` to run, or once it has waited for the
    CPU so long that the server is too busy to build (:data:`BUSY_TIMES` its time)."""
    while True:
        await trio.sleep(TIME_POLL_S)
        if clock.ran() > seconds:
            why.append(f"the build took longer than {seconds:g} s and was stopped")
        elif clock.wall() > seconds * BUSY_TIMES:
            why.append(
                f"the server was too busy to give the build {seconds:g} s within"
                f" {clock.wall():.0f} s; it was stopped"
            )
        else:
            continue
        scope.cancel()
        return


async def _orphaned(parent: int, scope: trio.CancelScope, why: list[str]) -> None:
    """Stop the build when the server that started it is gone (killed, say): a server
    started again builds the submission anew, and two builds must never share its folder."""
    while os.getppid() == parent:
        await trio.sleep(ORPHAN_POLL_S)
    why.append("the server that started the build has gone")
    scope.cancel()


async def _disk(
    folder: Path, settings: BuildSettings, scope: trio.CancelScope, why: list[str]
) -> None:
    """Stop the build once its folder holds more than ``disk_bytes`` or ``disk_entries``
    (each file is capped by ``RLIMIT_FSIZE`` too, and ``/tmp`` by its size)."""
    while True:
        await trio.sleep(DISK_POLL_S)
        size, entries = await trio.to_thread.run_sync(_usage, folder, settings.disk_entries)
        if size > settings.disk_bytes:
            mib = settings.disk_bytes / (1 << 20)
            why.append(f"the build wrote more than {mib:g} MiB to its folder and was stopped")
        elif entries > settings.disk_entries:
            why.append(f"the build made more than {settings.disk_entries} files and was stopped")
        else:
            continue
        scope.cancel()
        return


def _usage(folder: Path, most_entries: int) -> tuple[int, int]:
    """The bytes and entries under ``folder`` (counting stops past ``most_entries``)."""
    size = entries = 0
    for root, folders, files in os.walk(folder):
        entries += len(folders) + len(files)
        for name in files:
            with contextlib.suppress(OSError):
                size += os.lstat(os.path.join(root, name)).st_blocks * 512
        if entries > most_entries:
            break
    return size, entries


async def _copy(stream: trio.abc.ReceiveStream, log: _CappedLog) -> None:
    with trio.move_on_after(86_400):
        while data := await stream.receive_some(1 << 16):
            log.write(bytes(data))


def main() -> None:
    """Run the build the one argument describes; print its outcome as the last line."""
    settings = msgspec.json.decode(sys.argv[1].encode(), type=BuildSettings)
    said = idle_cgroups()
    if said:
        print(f"the build's priority: {said}", file=sys.stderr)
    try:
        outcome = trio.run(run_build, settings)
    except OSError as error:
        outcome = BuildOutcome(status=None, reason=f"the build could not start: {error}", seconds=0)
    sys.stdout.write(msgspec.json.encode(outcome).decode() + "\n")


if __name__ == "__main__":
    main()
