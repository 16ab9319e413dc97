"""The ``report`` command: a stored tournament as one self-contained HTML file."""

from __future__ import annotations

from pathlib import Path

import click

from goatarena.cli import main
from goatarena.cli._common import database_option, open_results, reports_errors
from goatarena.formats.sprt_course import SprtCourseKeeper
from goatarena.report import DEFAULT_REPLAYS, StoreSource, report_page, write_report
from goatarena.report.data import read_report_data
from goatarena.report.facts import (
    bot_facts,
    bots_folder,
    parse_config,
    shown_text,
    tournament_facts,
)
from goatarena.store.opening import database_files
from goatarena.store.standings import TOURNAMENT_FOLDER, bots_out


@main.command("report")
@database_option
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("report.html"),
    show_default=True,
    help="The HTML file to write.",
)
@click.option(
    "--replays",
    type=click.IntRange(min=0),
    default=DEFAULT_REPLAYS,
    show_default=True,
    help="Most games to embed a replay of (all when there are no more games than this).",
)
@click.option(
    "--force", is_flag=True, help="Replace the output file even if it is not a goatarena report."
)
@reports_errors
def report_command(db: Path | None, output: Path, replays: int, force: bool) -> None:
    """Write an HTML report: standings, head to head, violations, rating history, games
    and replays. It needs nothing but a browser (no network).

    \b
    Example:
        goatarena report --db results/demo.sqlite -o demo.html
    """
    store = open_results(db)
    kept = database_files(store.path)
    try:
        tournament = store.meta("tournament") or store.path.stem
        config_json = store.meta("config")
        meta = {
            key: store.meta(key)
            for key in ("created_at", "goatarena_version", "bot_hellos", TOURNAMENT_FOLDER)
        }
        sprt = SprtCourseKeeper.of_json(config_json)
        source = StoreSource(store)
        config = parse_config(config_json)
        folder = bots_folder(config, meta[TOURNAMENT_FOLDER])
        out = {name: shown_text(why, folder) for name, why in bots_out(store).items()}
        found = read_report_data(
            tournament,
            source.summaries,
            store.disqualified(),
            replays,
            also=None if sprt is None else sprt.add,
            out=out,
        )
        page = report_page(
            tournament,
            source,
            found,
            facts=tournament_facts(config, meta, found.finished),
            bots=bot_facts(config, found.bots, meta["bot_hellos"], folder=folder),
            sprt=None if sprt is None else sprt.course(),
            folder=folder,
        )
    finally:
        store.close()
    write_report(output, page, keep=kept, force=force)
    click.echo(f"{output}: {found.games} games, {len(page) / 1e6:.1f} MB")
