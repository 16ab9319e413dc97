"""The ``run`` command: play (or resume) a tournament and print its standings."""

from __future__ import annotations

import sys
from pathlib import Path

import click
import msgspec

from goatarena.cli import main
from goatarena.cli._common import make_log_dir, reports_errors
from goatarena.interrupt import Interrupted, run_trio
from goatarena.standings import render_tables
from goatarena.store import open_store
from goatarena.stored_standings import standings_from_store
from goatarena.tournament.config import load_config
from goatarena.tournament.progress import Progress
from goatarena.tournament.runner import Runner


@main.command("run")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Results database (default: results/<tournament name>.sqlite).",
)
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    default=None,
    help="Games at once (default: from the file, else the number of CPUs).",
)
@click.option(
    "--cluster",
    envvar="GOATARENA_CLUSTER",
    default=None,
    metavar="ADDRESS",
    help="Play on the Dask cluster whose scheduler is at ADDRESS, e.g. tcp://host:8786"
    " (or set GOATARENA_CLUSTER).",
)
@click.option("--quiet", is_flag=True, help="No progress; print only the standings.")
@reports_errors
def run_command(
    file: Path, db: Path | None, concurrency: int | None, cluster: str | None, quiet: bool
) -> None:
    """Run the tournament in FILE, resuming it if its database already has games."""
    config = load_config(file)
    if concurrency is not None:
        config = msgspec.structs.replace(config, concurrency=concurrency)
    db = db or Path("results") / f"{config.name}.sqlite"
    store = open_store(db)
    try:
        store.lock_for_run()
        log_dir = db.with_name(f"{db.stem}-logs")
        make_log_dir(log_dir)
        runner = Runner(config, store, log_dir=log_dir, cluster=cluster or None)
        total, stored = runner.expected_games(), store.count()
        progress = Progress(total, done=stored)
        progress.enabled = not quiet
        runner.progress = progress
        if not quiet:
            resumed = f", resuming after {stored} stored" if stored else ""
            where = f"on {cluster}" if cluster else f"{config.workers} at once"
            click.echo(
                f"{config.name}: {total} games, {where}{resumed}; results in {db}",
                err=True,
            )
        try:
            run_trio(runner.run)
        except Interrupted as interrupted:
            progress.finish()
            click.echo(
                f"\n{interrupted.verb}: {store.count()} finished games are kept in {db};"
                f" run the same command again to resume",
                err=True,
            )
            sys.exit(interrupted.exit_status)
        progress.finish()
        standings = standings_from_store(store)
        click.echo(render_tables(standings))
        if runner.failed:
            for key, reason in sorted(runner.failed.items()):
                click.echo(f"goatarena: game {key} failed: {reason}", err=True)
            click.echo(
                f"goatarena: {len(runner.failed)} games failed and are not stored;"
                " run the same command again to retry them",
                err=True,
            )
            sys.exit(1)
    finally:
        store.close()
