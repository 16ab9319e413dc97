"""The ``list`` command: the stored games, one line each."""

from __future__ import annotations

from pathlib import Path

import click

from goatarena.cli import main
from goatarena.cli._common import database_option, open_results, reports_errors, tell
from goatarena.games import find_game
from goatarena.store.export import list_lines, select


@main.command("list")
@database_option
@click.option("--bot", default=None, help="Only games that seat this bot.")
@click.option("--game", default=None, help="Only games of this game.")
@click.option("--violations", is_flag=True, help="Only games in which a bot broke a rule.")
@reports_errors
def list_command(db: Path | None, bot: str | None, game: str | None, violations: bool) -> None:
    """List the stored games: number, key, game, players by seat, result and violations.

    The number or the key of a game is what 'goatarena replay' takes.

    \b
    Example:
        goatarena list --db results/demo.sqlite --bot greedy --violations
    """
    if game is not None:
        find_game(game)
    store = open_results(db)
    shown = 0
    try:
        for line in list_lines(
            select(store.summaries(), bot=bot, game=game, violations=violations)
        ):
            click.echo(line)
            shown += 1
        total = store.count()
    finally:
        store.close()
    tell(f"{max(shown - 2, 0)} of {total} stored games")
