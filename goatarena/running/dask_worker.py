"""The process ``goatarena worker`` becomes: Dask's worker command, ended at once.

Dask's ``dask worker`` command (its signal handling, nanny and options) runs here as it
is, and once it has returned — every game stopped, every bot reaped, the worker process
joined, and the copies of bots' folders its worker processes left removed — this process
exits without the interpreter's teardown of the modules Dask loads, which takes a good
part of a second of CPU (several seconds on a loaded machine) while the machine's
supervisor waits for the worker to go. The exit status is the command's.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys

import click


def run(args: list[str]) -> int:
    """Run ``dask worker ARGS``; its exit status."""
    from distributed.cli.dask_worker import main as dask_worker

    try:
        dask_worker.main(args=args, prog_name="dask worker", standalone_mode=False)
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else 1
    except click.exceptions.Abort:
        return 1
    except click.ClickException as error:
        error.show()
        return error.exit_code
    return 0


def exit_at_once(status: int) -> None:
    """End the process with ``status`` after flushing the logs and standard streams."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            with contextlib.suppress(OSError, ValueError):  # closed, or gone
                stream.flush()
    os._exit(status)


def main() -> None:
    """Run the worker command; once it has returned, remove the copies of bots' folders
    that its worker processes left (one killed, say: a closing worker removes its own),
    and end."""
    status = run(sys.argv[1:])
    from goatarena.referee.readable_copy import sweep_copies

    sweep_copies()
    exit_at_once(status)


if __name__ == "__main__":
    main()
