"""The ``list`` command: the stored games, one line each."""

from __future__ import annotations

import difflib
from pathlib import Path

import click

from goatarena.cli import main
from goatarena.cli._common import database_option, open_results, reports_errors, tell
from goatarena.errors import ConfigError
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
        if bot is not None and shown == 0 and total > 0:
            known = {name for summary in store.summaries() for name in summary.players}
            if bot not in known:
                raise ConfigError(unknown_bot(bot, known, store.path))
    finally:
        store.close()
    tell(f"{max(shown - 2, 0)} of {total} stored games")


SHOWN_NAMES = 12
"""How many of a database's bot names an unknown name's error lists at most."""


def unknown_bot(bot: str, known: set[str], path: Path) -> str:
    """The line that says no stored game seats ``bot``: a close match, else the names."""
    close = difflib.get_close_matches(bot, sorted(known), n=3)
    if close:
        hint = "did you mean " + " or ".join(repr(name) for name in close) + "?"
    else:
        names = sorted(known)
        more = f" and {len(names) - SHOWN_NAMES} more" if len(names) > SHOWN_NAMES else ""
        hint = "its bots are " + ", ".join(names[:SHOWN_NAMES]) + more
    return f"no bot {bot!r} in {path}: {hint}"
