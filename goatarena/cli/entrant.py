"""The ``entrant`` commands: a competition's entrants, made and suspended by its organiser."""

from __future__ import annotations

from pathlib import Path

import click

from goatarena.cli import main
from goatarena.cli._common import reports_errors
from goatarena.competition.entrants import add_entrant
from goatarena.competition.place import open_place
from goatarena.errors import ConfigError
from goatarena.formats.tournament_file import load_config

_DB = click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The ladder's results database (default: results/NAME.sqlite).",
)


@main.group("entrant")
def entrant_group() -> None:
    """A competition's entrants (a ladder file with a [competition] section): add one
    (their token is printed once), suspend or reinstate one.

    \b
    Example:
        goatarena entrant add class.toml alice
    """


@entrant_group.command("add")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("name")
@click.option("--organiser", is_flag=True, help="An organiser's token: sees everything.")
@_DB
@reports_errors
def add_command(file: Path, name: str, organiser: bool, db: Path | None) -> None:
    """Add entrant NAME to the competition FILE and print their token as the last line
    (shown once: only its hash is kept; hand it to the entrant).

    \b
    Example:
        goatarena entrant add class.toml alice
    """
    place, store = open_place(file, db)
    try:
        bots = load_config(file).bots
        token = add_entrant(store, name, organiser=organiser, reserved=bots)
    finally:
        store.close()
    who = "organiser" if organiser else "entrant"
    click.echo(f"added {who} {name} to {place.database}; their token (keep it secret):")
    click.echo(token)


@entrant_group.command("suspend")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("name")
@click.option("--reason", default="suspended by the organiser", show_default=True)
@click.option("--reinstate", is_flag=True, help="Lift the suspension instead.")
@_DB
@reports_errors
def suspend_command(file: Path, name: str, reason: str, reinstate: bool, db: Path | None) -> None:
    """Suspend entrant NAME (no more uploads), or reinstate them with --reinstate.

    \b
    Example:
        goatarena entrant suspend class.toml alice --reason "copied code"
    """
    _, store = open_place(file, db)
    try:
        entrant = store.entrant_named(name)
        if entrant is None:
            raise ConfigError(f"no entrant {name!r} in the competition")
        store.set_suspended(entrant.id, None if reinstate else reason)
    finally:
        store.close()
    click.echo(f"{name} is {'reinstated' if reinstate else 'suspended'}")
