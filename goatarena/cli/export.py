"""The ``export`` command: every stored game record, as JSON lines or CSV."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

import click

from goatarena.cli import main
from goatarena.cli._common import database_option, open_results, reports_errors
from goatarena.errors import ConfigError
from goatarena.export import csv_lines, jsonl_lines


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
        games = store.games()
        lines = jsonl_lines(games) if output_format == "jsonl" else csv_lines(games)
        if output is None:
            try:
                for line in lines:
                    sys.stdout.write(line)
                sys.stdout.flush()
            except BrokenPipeError:
                # The reader stopped (``| head``): not an error; say nothing more.
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        else:
            write_whole(output, lines)
    finally:
        store.close()


def write_whole(path: Path, lines: Iterable[str]) -> None:
    """Write ``lines`` to a temporary file beside ``path`` and rename it into place, so
    that ``path`` is either the whole export or untouched."""
    folder = path.parent if str(path.parent) else Path(".")
    try:
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".part")
    except OSError as error:
        raise ConfigError(f"cannot write {path}: {error.strerror or error}") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.writelines(lines)
        os.replace(temporary, path)
    except OSError as error:
        raise ConfigError(f"cannot write {path}: {error.strerror or error}") from None
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
