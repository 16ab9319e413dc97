"""The ``export`` command: every stored game record, as JSON lines or CSV."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from goatarena.cli import main
from goatarena.cli._common import database_option, open_results, reports_errors
from goatarena.store.export import csv_lines, jsonl_lines
from goatarena.store.opening import database_files
from goatarena.store.whole_file import write_whole


@main.command("export")
@database_option
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["jsonl", "csv"]),
    default="jsonl",
    show_default=True,
    help="jsonl: one whole game record a line; csv: one row per seat of each game.",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write to this file (complete or not at all) instead of standard output.",
)
@reports_errors
def export_command(db: Path | None, output_format: str, output: Path | None) -> None:
    """Export every stored game of a results database.

    \b
    Example:
        goatarena export --db results/demo.sqlite --format csv -o demo.csv
    """
    store = open_results(db)
    try:
        lines = (
            jsonl_lines(store.games()) if output_format == "jsonl" else csv_lines(store.summaries())
        )
        if output is None:
            # A reader that stops early (``| head``) ends the command as for every other
            # one: quietly, with the exit status a shell gives SIGPIPE (see reports_errors).
            sys.stdout.writelines(lines)
        else:
            write_whole(output, lines, keep=database_files(store.path))
    finally:
        store.close()
