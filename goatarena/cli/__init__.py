"""The ``goatarena`` command line: a thin click group over the package.

Each command lives in a module of its own; importing them registers them on :func:`main`.
"""

from __future__ import annotations

import click


@click.group()
@click.version_option(package_name="goatarena")
def main() -> None:
    """goatarena: tournaments between bots for four goat games.

    \b
    Example:
        goatarena run tournaments/demo.toml
    """


# The command modules register themselves on ``main``; imported last on purpose.
from goatarena.cli import (  # noqa: E402
    bench,
    check_bot,
    doctor,
    export,
    list_games,
    play,
    replay,
    report,
    run,
    standings,
    worker,
)

__all__ = [
    "bench",
    "check_bot",
    "doctor",
    "export",
    "list_games",
    "main",
    "play",
    "replay",
    "report",
    "run",
    "standings",
    "worker",
]
