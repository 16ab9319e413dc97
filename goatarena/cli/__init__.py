"""The ``goatarena`` command line: a thin click group over the package.

Each command lives in a module of its own, which registers it on :func:`main` when it is
imported; the group imports a module only when its command is asked for.
"""

from __future__ import annotations

import importlib
import io
import sys
from typing import TextIO

import click

COMMANDS = {
    "bench": "bench",
    "build": "build",
    "check-bot": "check_bot",
    "doctor": "doctor",
    "entrant": "entrant",
    "export": "export",
    "games": "play",
    "ladder": "ladder",
    "list": "list_games",
    "new-bot": "new_bot",
    "play": "play",
    "replay": "replay",
    "report": "report",
    "run": "run",
    "schema": "schema",
    "serve": "serve",
    "standings": "standings",
    "submit": "submit",
    "worker": "worker",
}
"""Each command and the module of ``goatarena.cli`` that defines it."""


class LazyCommands(click.Group):
    """A group that imports a command's module only when that command is run (or help
    lists it): ``goatarena list`` need not load the rating fit, NumPy or the referee."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        load_command(cmd_name)
        return self.commands.get(cmd_name)


def load_command(name: str) -> None:
    """Import the module of the command ``name`` (which registers it), if there is one.

    The entry point calls it for the command on the command line while a Ctrl-C or a
    SIGTERM is still one line (:mod:`goatarena.entry`), before click runs.
    """
    if name in COMMANDS and name not in main.commands:
        importlib.import_module(f"goatarena.cli.{COMMANDS[name]}")


@click.group(cls=LazyCommands)
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


__all__ = ["COMMANDS", "load_command", "main"]
