"""The ``standings`` command: the ratings of a stored tournament."""

from __future__ import annotations

from pathlib import Path

import click
import msgspec

from goatarena.cli import main
from goatarena.cli._common import database_option, open_results, reports_errors
from goatarena.errors import ConfigError
from goatarena.formats.config import TournamentConfig
from goatarena.formats.sprt import Ranked, SprtTally, tally_of
from goatarena.formats.sprt import describe as describe_sprt
from goatarena.games import find_game
from goatarena.ratings.pentanomial import pair_rows
from goatarena.ratings.standings import (
    StandingsTally,
    cross_json,
    render_cross,
    render_csv,
    render_game_pairs,
    render_los,
    render_tables,
)
from goatarena.ratings.standings_render import out_lines
from goatarena.store.standings import retired_bots, standings_from_store, without_bots

GAME_PAIRS_TITLE = (
    "two-player game pairs (a deal in both seat orders): pairs by the bot's points,"
    " pentanomial Elo of the bot over its opponent with the 95% interval"
)


@main.command("standings")
@database_option
@click.option("--game", default=None, help="Only this game's standings.")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["table", "json", "csv"]),
    default="table",
    show_default=True,
)
@click.option(
    "--cross",
    is_flag=True,
    help="Add a bot-by-bot head-to-head table and, for two-player games, the pentanomial"
    ' Elo of every two bots from their game pairs (table and json formats; in JSON: "cross"'
    ' and "pairs").',
)
@click.option(
    "--los",
    is_flag=True,
    help='Add the likelihood-of-superiority matrix (in JSON: the "los" field).',
)
@click.option(
    "--deals",
    is_flag=True,
    help="Add deal-adjusted 95% intervals (a deal's seat rotations counted as one unit; "
    'in JSON: "deal_lo" and "deal_hi"). Reads the games twice.',
)
@click.option(
    "--all",
    "show_all",
    is_flag=True,
    help="A ladder: show its retired versions' rows too (they keep their games).",
)
@reports_errors
def standings_command(
    db: Path | None,
    game: str | None,
    output_format: str,
    cross: bool,
    los: bool,
    deals: bool = False,
    show_all: bool = False,
) -> None:
    """Print the standings of a stored tournament (and its SPRT, if it has one).

    \b
    Example:
        goatarena standings --db results/demo.sqlite --game goat-lords --cross
        goatarena standings --los --deals
    """
    if game is not None:
        find_game(game)
    if cross and output_format == "csv":
        raise ConfigError("--cross: not available as CSV; use --format json or table")
    store = open_results(db)
    try:
        sprt = stored_sprt_tally(store.meta("config"))
        tally = StandingsTally(cross=cross)
        also = None if sprt is None else (lambda summary: sprt.offer(summary.key, summary))
        standings = standings_from_store(
            store, game=game, los=los, tally=tally, also=also, deals=deals
        )
        status = None if sprt is None else sprt.tally.status()
        retired = [] if show_all else retired_bots(store)
    finally:
        store.close()
    if retired:
        standings = without_bots(standings, retired)
    if output_format == "json":
        data = msgspec.to_builtins(standings)
        if status is not None:
            data["sprt"] = msgspec.to_builtins(status)
        if cross:
            data["cross"] = cross_json(*tally.cross_table())
            data["pairs"] = pair_rows(tally.game_pairs())
        click.echo(msgspec.json.encode(data).decode())
    elif output_format == "csv":
        click.echo(render_csv(standings), nl=False)
    elif not standings.games:
        # Not an empty table under a header that reads like the whole tournament.
        what = f"{game} games" if game is not None else "games"
        click.echo(f"{standings.tournament}: no {what} stored")
        for line in out_lines(standings):
            click.echo(line)
    else:
        click.echo(render_tables(standings, game=game))
        if retired:
            click.echo("(the retired versions' rows are left out; --all shows them)")
        if cross:
            click.echo("\nhead to head (points of the row bot against the column bot / games)")
            click.echo(render_cross(*tally.cross_table()))
            pairs = tally.game_pairs()
            if pairs:
                click.echo(f"\n{GAME_PAIRS_TITLE}")
                click.echo(render_game_pairs(pairs))
        if los:
            click.echo("\n" + render_los(standings, game=game or "overall"))
        if status is not None:
            click.echo("\n" + describe_sprt(status))


class StoredSprt:
    """The SPRT of a stored tournament, fed the games that seat its two bots."""

    def __init__(self, tally: SprtTally) -> None:
        self.tally = tally
        self._pair = sorted((tally.challenger, tally.baseline))

    def offer(self, key: str, game: Ranked) -> None:
        """Count ``game`` if it is one of the test's."""
        if sorted(game.players) == self._pair:
            self.tally.add(key, game)


def stored_sprt_tally(config_json: str | None) -> StoredSprt | None:
    """The SPRT of a stored tournament whose file has an ``[sprt]`` table, else None."""
    if config_json is None:
        return None
    try:
        config = msgspec.json.decode(config_json, type=TournamentConfig)
    except msgspec.DecodeError:
        return None  # written by another version: no test to show
    if config.sprt is None or len(config.challengers) != 1:
        return None
    return StoredSprt(tally_of(config.sprt, config.bots, config.challengers[0], ()))
