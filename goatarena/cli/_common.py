"""What every command shares: one-line errors, the log folder, finding the database."""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

import click

from goatarena.errors import ConfigError, GoatArenaError, user_error_in
from goatarena.interrupt import Interrupted, handling_signals
from goatarena.referee.readable_copy import remove_copies
from goatarena.store.database import Store
from goatarena.store.opening import open_store

F = TypeVar("F", bound=Callable[..., Any])

OUT_OF_MEMORY = (
    "goatarena: error: out of memory (the machine, or a limit such as ulimit -v, gave no"
    " more); every result stored before is kept"
)
"""The one line a command that runs out of memory ends with."""


def reports_errors(command: F) -> F:
    """Turn a :class:`GoatArenaError` into one line on stderr and exit status 2, output
    that cannot be written (a full disk) into one line and exit status 2, a reader that
    stopped reading (``| head``) into a quiet exit status 141, and Ctrl-C or SIGTERM into
    one line and exit status 130 or 143 (see :mod:`goatarena.interrupt`), and running out
    of memory into one line and exit status 2. However it ends, the readable copies of
    bots' folders it made are removed (:mod:`goatarena.referee.readable_copy`)."""

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return _reporting(*args, **kwargs)
        finally:
            remove_copies()

    def _reporting(*args: Any, **kwargs: Any) -> Any:
        try:
            with handling_signals():
                returned = command(*args, **kwargs)
                # Output still buffered is written now, where a failure is reported,
                # rather than at exit, where Python can only print a traceback.
                if sys.stdout is not None:  # None: started with its output closed
                    sys.stdout.flush()
                return returned
        except Interrupted as interrupted:
            tell(f"goatarena: {interrupted.verb}")
            sys.exit(interrupted.exit_status)
        except MemoryError:
            _drop_output()  # what is buffered may be half a line
            tell(OUT_OF_MEMORY)
            sys.exit(2)
        except (GoatArenaError, BaseExceptionGroup, OSError) as error:
            if _found_in(error, _is_out_of_memory):  # inside trio: wrapped in groups
                _drop_output()
                tell(OUT_OF_MEMORY)
                sys.exit(2)
            found = user_error_in(error)
            if found is not None and not _found_in(error, _is_broken_pipe):
                tell(f"goatarena: error: {found}")
                sys.exit(2)
            stop_for_output(error)
            raise

    return wrapper  # type: ignore[return-value]


def sandbox_options(command: F) -> F:
    """The ``--sandbox``, ``--ponder``, ``--read`` and ``--write`` options of the commands
    that run bots."""
    command = click.option(
        "--write",
        "write_paths",
        multiple=True,
        type=click.Path(path_type=str),
        help="A path sandboxed bots may read and write (repeatable).",
    )(command)
    command = click.option(
        "--read",
        "read_paths",
        multiple=True,
        type=click.Path(path_type=str),
        help="A path sandboxed bots may read, beyond their own folder (repeatable).",
    )(command)
    command = click.option(
        "--ponder",
        is_flag=True,
        help="Let sandboxed bots compute between their turns (trusted bots only).",
    )(command)
    return click.option(
        "--sandbox",
        type=click.Choice(["bwrap", "none"]),
        default="bwrap",
        show_default=True,
        help="Isolate each bot (bwrap), or run bots unprotected (none: trusted bots only).",
    )(command)


def tell(message: str) -> None:
    """Say ``message`` on the standard error, if it can be written at all: a note or a
    progress line that cannot be shown (a full disk, a closed terminal) must never stop
    the work it is about, nor lose a tournament's results."""
    with contextlib.suppress(OSError):
        click.echo(message, err=True)


OUTPUT_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})
"""Why writing the standard output can fail where the user can act: a full disk or
quota (``> file``), a file past its size limit, a terminal or device that went away."""


def is_output_error(error: BaseException) -> bool:
    """Whether ``error`` is a failed write of a stream (no file name: files that
    goatarena opens itself report their own errors, naming the file)."""
    return isinstance(error, OSError) and error.filename is None and error.errno in OUTPUT_ERRNOS


def stop_for_output(error: BaseException) -> None:
    """End the process if ``error`` is about the output, else return: a reader that
    stopped (``| head``) ends it quietly, as a shell's SIGPIPE would (status 141); output
    that cannot be written (a full disk) in one line and status 2. Inside trio (a live
    board, a run) the error comes wrapped in exception groups."""
    if _found_in(error, _is_broken_pipe):
        _drop_output()
        sys.exit(128 + signal.SIGPIPE)
    failed = _found_in(error, is_output_error)
    if isinstance(failed, OSError):
        _drop_output()
        tell(f"goatarena: error: cannot write the output: {failed.strerror}")
        sys.exit(2)


def _is_out_of_memory(error: BaseException) -> bool:
    return isinstance(error, MemoryError)


def _is_broken_pipe(error: BaseException) -> bool:
    return isinstance(error, BrokenPipeError)


def _drop_output() -> None:
    """Point the standard output at /dev/null, so that what is still buffered is not
    written again at exit (which would end in Python's own error message)."""
    # ValueError: no file descriptor (a test's captured output); AttributeError: none.
    with contextlib.suppress(OSError, ValueError, AttributeError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _found_in(error: BaseException, wanted: Callable[[Any], bool]) -> BaseException | None:
    """The first exception in ``error`` (itself, or inside its exception groups) that is
    ``wanted``, if any."""
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            found = _found_in(inner, wanted)
            if found is not None:
                return found
        return None
    return error if wanted(error) else None


def make_log_dir(path: Path) -> None:
    """Create the folder for bots' stderr logs; one clear error if it cannot be."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)  # the runner's alone
    except OSError as error:
        raise ConfigError(f"cannot create log folder {path}: {error.strerror or error}") from None


database_option = click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Results database (default: the only one under results/).",
)
"""The ``--db`` option of the commands that read a stored tournament."""


def open_results(db: Path | None) -> Store:
    """The results database ``db`` (else :func:`only_database`), opened read-only: the
    commands that read a tournament never create or alter a file. A database of an older
    version (without the games' summaries) is read all the same, more slowly, and the
    command says so."""
    store = open_store(db or only_database(), create=False)
    try:
        if not store.has_summaries:
            tell(
                f"goatarena: note: {store.path} is from an older goatarena: its full records"
                " are read (slower); the next run into it adds the fast summaries"
            )
    except BaseException:
        store.close()
        raise
    return store


def only_database() -> Path:
    """The one results database under ``results/``; a clear error if there are none or several."""
    found = sorted(Path("results").glob("*.sqlite"))
    if len(found) == 1:
        return found[0]
    if not found:
        raise ConfigError("no results database under results/; pass --db")
    names = ", ".join(path.name for path in found)
    raise ConfigError(
        f"several results databases under results/ ({names}): choose one with --db,"
        f" e.g. --db {found[0]}"
    )
