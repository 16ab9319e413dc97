"""A submission built inside the same sandbox as games, its log kept.

The language's build command (``make`` for every kit) runs with ``sh -c`` in the
submitted folder, under bubblewrap as a bot would: a uid of its own (for a root runner),
no network, nothing of the machine but its programs and libraries, the submitted folder
its only writable place besides a capped ``/tmp``, a time limit, a memory limit (its
cgroup), a cap on processes and on each file's size. The log (stdout and stderr merged)
is kept up to ``build_log_kib``. A build that succeeds leaves its folder read-only, owned
by the runner: the bot that plays is the one that was built.

The build runs in a child process (:mod:`.build_child`) started in the folder, since the
launcher shows a bot the folder it runs from.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import msgspec
import trio

from goatarena.competition.build_child import BuildOutcome, BuildSettings
from goatarena.formats.competition import CompetitionSettings
from goatarena.referee.bot_uids import BOT_GID
from goatarena.referee.sandbox import runs_as_root

PYTHON_LAUNCHER = "exec python3 "
"""How the Python kit's ``./bot`` starts its interpreter; the build points it at the
interpreter goatarena runs on, which has the SDK (as ``goatarena new-bot`` does)."""


@dataclass(frozen=True)
class BuildLimits:
    """A build's limits: seconds, memory, processes, the largest file, the log, and what
    its folder may hold in all (bytes and entries)."""

    seconds: float
    memory_bytes: int
    processes: int
    file_bytes: int
    log_bytes: int
    disk_bytes: int = 1 << 30
    disk_entries: int = 100_000

    @classmethod
    def of(cls, settings: CompetitionSettings) -> BuildLimits:
        """The limits a competition's settings set."""
        return cls(
            seconds=settings.build_s,
            memory_bytes=settings.build_memory_mib << 20,
            processes=settings.build_processes,
            file_bytes=settings.build_file_mib << 20,
            log_bytes=settings.build_log_kib << 10,
            disk_bytes=settings.build_disk_mib << 20,
            disk_entries=settings.build_files,
        )


@dataclass(frozen=True)
class BuildResult:
    """A finished build: whether it worked, why not, its log, its bot's command."""

    ok: bool
    reason: str
    log: str
    command: str
    seconds: float


def pin_python(folder: Path) -> None:
    """Make a Python kit's ``./bot`` run goatarena's own interpreter (it has the SDK)."""
    launcher = folder / "bot"
    if launcher.is_file() and not launcher.is_symlink():
        text = launcher.read_text(encoding="utf-8", errors="replace")
        if PYTHON_LAUNCHER in text:
            pinned = text.replace(PYTHON_LAUNCHER, f"exec {shlex.quote(sys.executable)} ")
            launcher.write_text(pinned, encoding="utf-8")


def _walk(folder: Path) -> list[Path]:
    found = [folder]
    for root, folders, files in os.walk(folder):
        found += [Path(root, name) for name in (*folders, *files)]
    return found


def open_to_build(folder: Path) -> None:
    """Let the build's uid write ``folder`` (a root runner's builds run in group
    :data:`~goatarena.referee.bot_uids.BOT_GID`)."""
    if not runs_as_root():
        return
    for path in _walk(folder):
        if not path.is_symlink():
            os.chown(path, 0, BOT_GID)
            path.chmod(path.stat().st_mode | 0o060 | (0o010 if path.is_dir() else 0))


def close_after_build(folder: Path, *, owner: tuple[int, int] | None = None) -> None:
    """Take ``folder`` back from the build: owned by ``owner`` (the runner by default),
    nobody's to write; links the build left are removed (never followed)."""
    uid, gid = owner if owner is not None else (os.getuid(), os.getgid())
    for path in reversed(_walk(folder)):
        if path.is_symlink():
            path.unlink()
            continue
        if runs_as_root():
            os.chown(path, uid, gid, follow_symlinks=False)
        keep = 0o755 if path.is_dir() or path.stat().st_mode & 0o100 else 0o644
        path.chmod(keep & ~0o222 if owner is None else keep)


async def build_folder(
    folder: Path,
    build_command: str,
    run_command: str | None,
    limits: BuildLimits,
    log: Path,
    *,
    hidden: tuple[str, ...] = (),
    hidden_where_possible: tuple[str, ...] = (),
    sandbox: str = "bwrap",
    in_folder: bool = False,
) -> BuildResult:
    """Build ``folder`` with ``build_command`` in the sandbox; the log goes to ``log``.
    A build that leaves no ``run_command`` to run has failed (None: not asked). With
    ``in_folder`` (an organiser's own language), the bot's command runs from ``folder``
    (see :func:`run_in_folder`); otherwise its first word is made absolute in it (a kit's
    ``./bot``, which finds its files from where it lies)."""
    settings = BuildSettings(
        command=build_command,
        seconds=limits.seconds,
        memory_bytes=limits.memory_bytes,
        processes=limits.processes,
        file_bytes=limits.file_bytes,
        log=str(log.absolute()),
        log_bytes=limits.log_bytes,
        hidden=list(hidden),
        hidden_where_possible=list(hidden_where_possible),
        sandbox=sandbox,
        parent=os.getpid(),
        disk_bytes=limits.disk_bytes,
        disk_entries=limits.disk_entries,
    )
    child = await trio.run_process(
        [sys.executable, "-m", "goatarena.competition.build_child", msgspec.json.encode(settings)],
        cwd=folder,
        capture_stdout=True,
        capture_stderr=True,
        check=False,
    )
    log_text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
    lines = child.stdout.decode(errors="replace").strip().splitlines()
    try:
        outcome = msgspec.json.decode(lines[-1], type=BuildOutcome)
    except (IndexError, msgspec.DecodeError):
        said = child.stderr.decode(errors="replace").strip().splitlines()
        reason = said[-1] if said else f"exit status {child.returncode}"
        return BuildResult(False, f"the build could not run: {reason}", log_text, "", 0.0)
    if run_command is None:
        return BuildResult(outcome.status == 0, outcome.reason, log_text, "", outcome.seconds)
    words = _run_words(folder, run_command)
    command = run_in_folder(folder, words) if in_folder else shlex.join(words)
    if outcome.status == 0 and not _runnable(words[0] if words else ""):
        missing = f"the build left no {run_command} to run"
        return BuildResult(False, missing, log_text, command, outcome.seconds)
    return BuildResult(outcome.status == 0, outcome.reason, log_text, command, outcome.seconds)


def _run_words(folder: Path, run_command: str) -> list[str]:
    """The bot's command's words, the first made absolute in ``folder`` where it names a
    file there (or is written ``./NAME``); a program on ``PATH`` (``java``) is left."""
    words = shlex.split(run_command)
    if words and (words[0].startswith("./") or "/" not in words[0]):
        first = folder.absolute() / words[0].removeprefix("./")
        if first.exists() or words[0].startswith("./"):
            words[0] = str(first)
    return words


def _runnable(program: str) -> bool:
    """Whether ``program`` (a path, or a name looked up on ``PATH``) exists."""
    return Path(program).exists() if "/" in program else shutil.which(program) is not None


def run_in_folder(folder: Path, words: list[str]) -> str:
    """A command that runs ``words`` from ``folder``: ``sh -c 'cd "$0" && exec ...'
    FOLDER``. The bot's other words (``java -cp build Main``, ``python3 -m mybot``) then
    mean its own build wherever the runner was started; and the folder, a word of the
    command, is the bot's own folder to the sandbox and tells each version's command
    apart from every other's."""
    script = f'cd "$0" && exec {shlex.join(words)} "$@"'
    return shlex.join(["sh", "-c", script, str(folder.absolute())])


def log_tail(log: str, lines: int = 20) -> str:
    """The last ``lines`` lines of a log."""
    return "\n".join(log.rstrip("\n").splitlines()[-lines:])
