"""The ``ladder`` commands: bots come and go in a running ladder; why a game was played."""

from __future__ import annotations

from pathlib import Path

import click

from goatarena.cli import main
from goatarena.cli._common import database_option, open_results, reports_errors
from goatarena.errors import StoreError
from goatarena.formats.ladder.edit import add_bot, retire_bot, update_bot
from goatarena.running.job import deal_of

_FILE = click.argument("file", type=click.Path(dir_okay=False, exists=True, path_type=Path))


@main.group("ladder")
def ladder_group() -> None:
    """Change a ladder's bots (it notices within seconds while it runs), or ask why a
    game was chosen.

    \b
    Example:
        goatarena ladder add tournaments/ladder-demo.toml mine "python3 mine.py"
        goatarena ladder why 12
    """


@ladder_group.command("add")
@_FILE
@click.argument("name")
@click.argument("command")
@reports_errors
def add_command(file: Path, name: str, command: str) -> None:
    """Add bot NAME playing COMMAND (paths relative to FILE's folder) to the ladder FILE.

    It plays once it has passed the pre-flight and a validation game against itself.
    """
    click.echo(add_bot(file, name, command))


@ladder_group.command("update")
@_FILE
@click.argument("name")
@click.argument("command")
@reports_errors
def update_command(file: Path, name: str, command: str) -> None:
    """Add a new version of bot NAME (NAME@2, NAME@3, ...) and retire the one before.

    The new version is an entry of its own in the standings, starting afresh.
    """
    click.echo(update_bot(file, name, command))


@ladder_group.command("retire")
@_FILE
@click.argument("name")
@reports_errors
def retire_command(file: Path, name: str) -> None:
    """Retire bot NAME (its newest version, or the version named): it plays no more;
    its games stay, and `goatarena standings --all` shows it."""
    click.echo(retire_bot(file, name))


@ladder_group.command("why")
@database_option
@click.argument("key")
@reports_errors
def why_command(db: Path | None, key: str) -> None:
    """Say why the ladder chose the game KEY (a key, or a game's number in `list`)."""
    store = open_results(db)
    try:
        game = store.find_game(key)
        choices = store.ladder_choices()
    finally:
        store.close()
    deal = deal_of(game.key)
    if deal not in choices:
        raise StoreError(f"game {game.key} was not chosen by a ladder (no choice is stored)")
    rule, reason = choices[deal]
    click.echo(f"{game.key}: chosen by the {rule} rule: {reason}")
