"""The ``goatarena`` command line: a thin click group over the package.

Each command lives in a module of its own; importing them registers them on :func:`main`.
"""

from __future__ import annotations

import click


@click.group()
@click.version_option(package_name="goatarena")
def main() -> None:
    """goatarena: tournaments between bots for four goat games."""


# The command modules register themselves on ``main``; imported last on purpose.
from goatarena.cli import bench, check_bot, play, replay, run, standings, worker  # noqa: E402

__all__ = ["bench", "check_bot", "main", "play", "replay", "run", "standings", "worker"]
