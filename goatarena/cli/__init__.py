"""The ``goatarena`` command line: a thin click group over the package.

Each command lives in a module of its own; importing them registers them on :func:`main`.
"""

from __future__ import annotations

import io
import sys
from typing import TextIO

import click


@click.group()
@click.version_option(package_name="goatarena")
def main() -> None:
    """goatarena: tournaments between bots for four goat games.

    \b
    Example:
        goatarena run tournaments/demo.toml
    """
    readable_anywhere(sys.stdout)


def readable_anywhere(stream: TextIO | None) -> None:
    """Let ``stream`` print what its encoding cannot show (boards and tables on a
    Latin-1 terminal, a file name that is not UTF-8) as ``?`` rather than fail."""
    if isinstance(stream, io.TextIOWrapper) and stream.errors == "strict":
        stream.reconfigure(errors="replace")


# The command modules register themselves on ``main``; imported last on purpose.
from goatarena.cli import (  # noqa: E402
    bench,
    check_bot,
    doctor,
    export,
    ladder,
    list_games,
    new_bot,
    play,
    replay,
    report,
    run,
    schema,
    standings,
    worker,
)

__all__ = [
    "bench",
    "check_bot",
    "doctor",
    "export",
    "ladder",
    "list_games",
    "main",
    "new_bot",
    "play",
    "replay",
    "report",
    "run",
    "schema",
    "standings",
    "worker",
]
