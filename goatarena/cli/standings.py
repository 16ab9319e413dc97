"""The ``standings`` command: the ratings of a stored tournament."""

from __future__ import annotations

from pathlib import Path

import click

from goatarena.cli import main
from goatarena.cli._common import only_database, reports_errors
from goatarena.games import find_game
from goatarena.standings import render_cross, render_csv, render_json, render_los, render_tables
from goatarena.store import open_store
from goatarena.stored_standings import standings_from_store


@main.command("standings")
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Results database (default: the only one under results/).",
)
@click.option("--game", default=None, help="Only this game's standings.")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["table", "json", "csv"]),
    default="table",
    show_default=True,
)
@click.option("--cross", is_flag=True, help="Add a bot-by-bot head-to-head table.")
@click.option(
    "--los",
    is_flag=True,
    help='Add the likelihood-of-superiority matrix (in JSON: the "los" field).',
)
@reports_errors
def standings_command(
    db: Path | None, game: str | None, output_format: str, cross: bool, los: bool
) -> None:
    """Print the standings of a stored tournament."""
    if game is not None:
        find_game(game)
    store = open_store(db or only_database(), create=False)
    try:
        results = [stored.result for stored in store.games(game=game)] if cross else []
        standings = standings_from_store(store, game=game, los=los)
    finally:
        store.close()
    if output_format == "json":
        click.echo(render_json(standings))
    elif output_format == "csv":
        click.echo(render_csv(standings), nl=False)
    else:
        click.echo(render_tables(standings, game=game))
        if cross:
            click.echo("\nhead to head (points of the row bot against the column bot / games)")
            click.echo(render_cross(results))
        if los:
            click.echo("\n" + render_los(standings, game=game or "overall"))
