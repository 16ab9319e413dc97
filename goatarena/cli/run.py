"""The ``run`` command: play (or resume) a tournament and print its standings."""

from __future__ import annotations

import contextlib
import json
import sys
from functools import partial
from pathlib import Path

import click
import msgspec

from goatarena.cli import main
from goatarena.cli._common import make_log_dir, reports_errors, tell
from goatarena.errors import BotError, ConfigError, user_error_in
from goatarena.formats.sprt import describe as describe_sprt
from goatarena.formats.tournament_file import MAX_CONCURRENCY, load_config
from goatarena.interrupt import Interrupted, run_trio
from goatarena.ratings.standings import render_tables
from goatarena.referee.bot_folders import check_commands, shared_folder_warnings
from goatarena.referee.sandbox import require_sandbox
from goatarena.running.cluster import check_cluster_settings
from goatarena.running.ladder_board import LadderBoard
from goatarena.running.leaderboard import Leaderboard
from goatarena.running.preflight import preflight
from goatarena.running.progress import Progress
from goatarena.running.runner import Runner
from goatarena.store.opening import (
    database_files,
    open_store,
    put_database_aside,
    results_beside,
)
from goatarena.store.standings import standings_from_store


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
    type=click.IntRange(min=1, max=MAX_CONCURRENCY),
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
@click.option(
    "--sandbox",
    type=click.Choice(["bwrap", "none"]),
    default=None,
    help="Isolate each bot (bwrap) or not (none: trusted bots only); default: from the file.",
)
@click.option("--quiet", is_flag=True, help="No progress; print only the standings.")
@click.option(
    "--fresh",
    is_flag=True,
    help="Put an existing database aside (renamed with a timestamp) and start a new one.",
)
@click.option(
    "--serve",
    "serve_at",
    default=None,
    metavar="[HOST:]PORT",
    help="Also serve the live site and JSON API (goatarena serve) at [HOST:]PORT, from a"
    " process of its own, while the run lasts (HOST defaults to 127.0.0.1).",
)
@reports_errors
def run_command(
    file: Path,
    db: Path | None,
    concurrency: int | None,
    cluster: str | None,
    sandbox: str | None,
    quiet: bool,
    fresh: bool,
    serve_at: str | None = None,
) -> None:
    """Run the tournament in FILE, resuming it if its database already has games.

    Every bot is started once before the first game (on this machine; not with
    --cluster, whose workers start them); one that cannot start stops the run before
    anything is written. Bot paths are relative to FILE's folder. A file that grew (more
    bots, games, deals or Swiss rounds) keeps the stored games and plays only the new
    ones.

    \b
    Example:
        goatarena run tournaments/demo.toml --concurrency 2
    """
    serve_address = serving_address(serve_at)
    config = load_config(file)
    if concurrency is not None:
        config = msgspec.structs.replace(config, concurrency=concurrency)
    if sandbox is not None:
        config = msgspec.structs.replace(config, sandbox=sandbox)
    if db is not None:
        require_parent_folder(db)
    db = db or Path("results") / f"{config.name}.sqlite"
    announced: dict[str, str] = {}  # the names the bots give (not asked on a cluster)
    ladder = config.format == "ladder"
    for warning in shared_folder_warnings(config.bots):
        tell(warning)
    if config.sandbox != "none" and not ladder:  # a ladder refuses such a bot as it joins
        given = {name: (*paths.read, *paths.write) for name, paths in config.paths.items()}
        check_commands(config.bots, given)
    if cluster:
        check_cluster_settings(cluster)
    elif not ladder:  # a ladder checks each bot as it joins, and runs on without it
        # Started in the sandboxes the games will use: a stranger's bot never runs
        # unprotected, not even for its pre-flight hello.
        log_dir = db.with_name(f"{db.stem}-logs")
        sandboxes = config.sandboxes(
            [file, *database_files(db), *results_beside(db), log_dir],
            [file.parent, db.parent, Path.cwd()],
        )
        for policy in sandboxes.values():
            require_sandbox(policy)
        try:
            announced = run_trio(
                partial(
                    preflight,
                    config.bots,
                    startup_s=config.time.startup_ms / 1000,
                    limits=config.limits,
                    sandboxes=sandboxes,
                )
            )
        except (BotError, BaseExceptionGroup) as error:
            # trio hands the failure back wrapped in an exception group: unwrap it, or
            # the hint below is lost.
            found = user_error_in(error)
            if not isinstance(found, BotError):
                raise
            folder = file.parent.resolve()
            raise BotError(
                f"{found} (bot paths are relative to {folder}, the file's folder)"
            ) from None
    if fresh:
        put_aside(db)
    store = open_store(db)
    try:
        store.lock_for_run()
        log_dir = db.with_name(f"{db.stem}-logs")
        runner = Runner(
            config,
            store,
            log_dir=log_dir,
            cluster=cluster or None,
            hidden=[file],
            hidden_where_possible=[file.parent],
        )
        runner.source = file
        runner.claim()
        if announced:
            # For the report's header: who each bot says it is (a version, an author).
            store.remember("bot_hellos", json.dumps(announced))
        make_log_dir(log_dir)
        total, stored = runner.expected_games(), runner.stored_of_schedule()
        progress = LadderBoard(runner, done=stored) if ladder else Progress(total, done=stored)
        progress.enabled = not quiet
        if not quiet and not ladder:
            progress.leaderboard = Leaderboard()
            for summary in store.summaries():
                progress.leaderboard.add_summary(summary)
        runner.progress = progress
        if not quiet and ladder:
            resumed = f", resuming after {stored} stored games" if stored else ""
            tell(
                f"{config.name}: a ladder, {config.workers} games at once{resumed}; results"
                f" in {db}; Ctrl-C stops it (run again to resume)"
            )
        elif not quiet:
            resumed = f", resuming after {stored} stored" if stored else ""
            # An SPRT stops as soon as it decides: its count is the most it may play.
            games = f"up to {total} games (SPRT)" if config.sprt else f"{total} games"
            where = f"on {cluster}" if cluster else f"{config.workers} at once"
            tell(f"{config.name}: {games}, {where}{resumed}; results in {db}")
        try:
            with site_beside(db, serve_address, file if config.competition else None):
                run_trio(runner.run)
        except Interrupted as interrupted:
            progress.finish()
            tell(
                f"\n{interrupted.verb}: {store.count()} finished games are kept in {db};"
                f" run the same command again to resume"
            )
            sys.exit(interrupted.exit_status)
        progress.finish()
        for bot, reason in runner.suspended.items():
            tell(f"goatarena: bot {bot!r} was put out of the tournament: {reason}")
        standings = standings_from_store(store)
        if runner.ladder is not None and runner.ladder.stopped is not None:
            tell(f"{config.name}: stopped: {runner.ladder.stopped}")
        click.echo(render_tables(standings))
        status = runner.sprt_status()
        if status is not None:
            click.echo("\n" + describe_sprt(status))
        if runner.failed:
            for key, reason in sorted(runner.failed.items()):
                tell(f"goatarena: game {key} failed: {reason}")
            tell(
                f"goatarena: {len(runner.failed)} games failed and are not stored;"
                " run the same command again to retry them"
            )
            sys.exit(1)
    finally:
        store.close()


def require_parent_folder(db: Path) -> None:
    """Refuse a ``--db`` whose folder does not exist: a mistyped path would otherwise
    make a whole tree of folders (only the default, results/, is made when missing)."""
    parent = db.parent
    if not parent.is_dir():
        what = "is not a folder" if parent.exists() else "does not exist"
        raise ConfigError(
            f"cannot keep results in {db}: the folder {parent} {what} (make it first)"
        )


def serving_address(serve_at: str | None) -> tuple[str, int] | None:
    """The host and port of ``--serve``, checked before anything runs."""
    if serve_at is None:
        return None
    from goatarena.web.server import parse_address  # only when asked for

    return parse_address(serve_at)


def site_beside(
    db: Path, address: tuple[str, int] | None, competition: Path | None = None
) -> contextlib.AbstractContextManager[None]:
    """The site served from a child process while the run lasts (``--serve``), or nothing;
    a ``competition`` file's site takes entrants' submissions too."""
    if address is None:
        return contextlib.nullcontext()
    if competition is not None:
        from goatarena.web.competition_routes import competition_child

        return competition_child(competition, db, *address)
    from goatarena.web.server import serving_child  # only when asked for

    return serving_child(db, *address)


def put_aside(db: Path) -> None:
    """Rename an existing database (and its WAL files) out of the way, saying where."""
    aside = put_database_aside(db)
    if aside is not None:
        tell(f"goatarena: put the old database aside as {aside}")
