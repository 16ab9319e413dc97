"""The ``replay`` command: a stored game, whole or as one seat saw it."""

from __future__ import annotations

import sys
from pathlib import Path

import click
import msgspec

from goatarena.cli import main
from goatarena.cli._common import database_option, open_results, reports_errors
from goatarena.errors import ConfigError
from goatarena.render import Style
from goatarena.render.replay import check_decision, picture_match, replay_header
from goatarena.render.style import wants_colour


@main.command("replay")
@click.argument("game_key")
@database_option
@click.option(
    "--seat",
    type=click.IntRange(min=0),
    default=None,
    help="Show only what this seat saw: its observations, others' public moves.",
)
@click.option(
    "--at",
    type=click.IntRange(min=0),
    default=None,
    help="Show only the board before this decision (0 first; the count of decisions: the end).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the stored record as JSON.")
@reports_errors
def replay_command(
    game_key: str, db: Path | None, seat: int | None, at: int | None, as_json: bool
) -> None:
    """Replay a stored game: GAME_KEY is its key, or its number in finishing order (1 first).

    'goatarena list' shows both. Draws the board before every decision and the choice
    made (in colour on a terminal).

    \b
    Example:
        goatarena replay 3 --db results/demo.sqlite --seat 0 --at 10
    """
    store = open_results(db)
    try:
        stored = store.find_game(game_key)
    finally:
        store.close()
    if seat is not None and seat >= len(stored.result.players):
        raise ConfigError(
            f"seat {seat} does not exist: the game had {len(stored.result.players)} seats"
        )
    check_decision(stored.result, at)
    if as_json:
        click.echo(msgspec.json.encode(stored).decode())
    else:
        style = Style(colour=wants_colour(sys.stdout))
        picture = picture_match(stored.result, seat=seat, at=at, style=style)
        click.echo(f"{replay_header(stored.key, stored.round)}\n{picture}")
