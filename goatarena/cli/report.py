"""The ``report`` command: a stored tournament as one self-contained HTML file."""

from __future__ import annotations

from pathlib import Path

import click

from goatarena.cli import main
from goatarena.cli._common import database_option, open_results, reports_errors
from goatarena.report import DEFAULT_REPLAYS, StoreSource, build_report, write_report
from goatarena.store.database import database_files


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
@reports_errors
def report_command(db: Path | None, output: Path, replays: int) -> None:
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
        disqualified = store.disqualified()
        count = store.count()
        page = build_report(
            tournament, StoreSource(store), disqualified=disqualified, replays=replays
        )
    finally:
        store.close()
    write_report(output, page, keep=kept)
    click.echo(f"{output}: {count} games, {len(page) / 1e6:.1f} MB")
