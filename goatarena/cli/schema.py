"""The ``schema`` command: the JSON Schema of the protocol or of one game."""

from __future__ import annotations

from pathlib import Path

import click

from goatarena.cli import main
from goatarena.cli._common import reports_errors, tell
from goatarena.games import find_game
from goatarena.schema import game_schema, protocol_schema, render, write_schema_files


@main.command("schema")
@click.argument("game", required=False)
@click.option(
    "--write",
    "folder",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Write every schema file (protocol.json and one per game) into this folder.",
)
@reports_errors
def schema_command(game: str | None, folder: Path | None) -> None:
    """Print the JSON Schema (2020-12) of the protocol, or of GAME's observation and actions.

    A game's schema describes its decide message: the observation, the actions and the
    events. Without GAME, the protocol's messages. The repository keeps every file
    under schema/ ('goatarena schema --write schema' rewrites them).

    \b
    Example:
        goatarena schema mountain-goats
    """
    if folder is not None:
        if game is not None:
            raise click.UsageError("--write writes every schema file: give no GAME with it")
        written = write_schema_files(folder)
        tell(f"wrote {len(written)} schema files into {folder}")
        return
    if game is None:
        click.echo(render(protocol_schema()), nl=False)
    else:
        click.echo(render(game_schema(find_game(game).name)), nl=False)
