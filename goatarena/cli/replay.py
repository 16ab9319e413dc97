"""The ``replay`` command: a stored game, whole or as one seat saw it."""

from __future__ import annotations

from pathlib import Path

import click
import msgspec

from goatarena.cli import main
from goatarena.cli._common import only_database, reports_errors
from goatarena.errors import ConfigError
from goatarena.replay import describe_match
from goatarena.store import open_store


@main.command("replay")
@click.argument("game_key")
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Results database (default: the only one under results/).",
)
@click.option(
    "--seat",
    type=click.IntRange(min=0),
    default=None,
    help="Show only what this seat saw: its observations, others' public moves.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the stored record as JSON.")
@reports_errors
def replay_command(game_key: str, db: Path | None, seat: int | None, as_json: bool) -> None:
    """Replay a stored game: GAME_KEY is its key, or its number in finishing order (1 first).

    ``goatarena list`` shows both.

    \b
    Example:
        goatarena replay 3 --db results/demo.sqlite --seat 0
    """
    store = open_store(db or only_database(), create=False)
    try:
        stored = store.find_game(game_key)
    finally:
        store.close()
    if seat is not None and seat >= len(stored.result.players):
        raise ConfigError(
            f"seat {seat} does not exist: the game had {len(stored.result.players)} seats"
        )
    if as_json:
        click.echo(msgspec.json.encode(stored).decode())
    else:
        click.echo(f"{stored.key} (round {stored.round})")
        click.echo(describe_match(stored.result, seat=seat))
