"""The ``goatarena`` command line: a thin click group over the package."""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

import click
import msgspec
import trio
from tabulate import tabulate

from goatarena import bench
from goatarena.errors import ConfigError, GoatArenaError, user_error_in
from goatarena.games import GAMES, find_game
from goatarena.referee import MatchResult, TimeControl, play_match
from goatarena.referee.lineup import open_lineup
from goatarena.standings import (
    compute_standings,
    render_cross,
    render_csv,
    render_json,
    render_tables,
)
from goatarena.store import open_store
from goatarena.tournament.config import load_config
from goatarena.tournament.progress import Progress
from goatarena.tournament.runner import Runner

F = TypeVar("F", bound=Callable[..., Any])


def reports_errors(command: F) -> F:
    """Turn a :class:`GoatArenaError` into one line on stderr and exit status 2."""

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except (GoatArenaError, BaseExceptionGroup) as error:
            found = user_error_in(error)
            if found is None:
                raise
            click.echo(f"goatarena: error: {found}", err=True)
            sys.exit(2)

    return wrapper  # type: ignore[return-value]


@click.group()
@click.version_option(package_name="goatarena")
def main() -> None:
    """goatarena: tournaments between bots for four goat games."""


@main.command("games")
def games_command() -> None:
    """List the games and their player counts."""
    rows = [
        (info.name, info.title, f"{info.min_players}-{info.max_players}", info.summary)
        for info in GAMES.values()
    ]
    click.echo(tabulate(rows, headers=["game", "title", "players", "about"]))


@main.command("play")
@click.argument("game")
@click.option("--bot", "bots", multiple=True, required=True, help="A bot command; one per seat.")
@click.option("--seed", type=int, default=None, help="Seed of the deal and dice (random if unset).")
@click.option("--move-ms", type=click.IntRange(min=1), default=1000, show_default=True)
@click.option("--startup-ms", type=click.IntRange(min=1), default=10_000, show_default=True)
@click.option(
    "--log-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Keep each bot's stderr in this folder.",
)
@click.option("--json", "as_json", is_flag=True, help="End with the result as one JSON line.")
@click.option("--quiet", is_flag=True, help="Print only the result.")
@reports_errors
def play_command(
    game: str,
    bots: tuple[str, ...],
    seed: int | None,
    move_ms: int,
    startup_ms: int,
    log_dir: Path | None,
    as_json: bool,
    quiet: bool,
) -> None:
    """Play one GAME between the given bots (their number is the player count)."""
    info = find_game(game)
    info.check_options(len(bots), None)
    if seed is None:
        seed = int.from_bytes(__import__("os").urandom(4), "big")
    control = TimeControl(move_ms=move_ms, startup_ms=startup_ms)
    if log_dir is not None:
        log_dir.mkdir(parents=True, exist_ok=True)

    async def main_task() -> MatchResult:
        async with open_lineup(bots, startup_s=startup_ms / 1000, log_dir=log_dir) as lineup:
            for bot in lineup:
                if bot.broken is not None:
                    raise GoatArenaError(f"bot {bot.command!r} did not start: {bot.broken.detail}")
            for seat, bot in enumerate(lineup):
                bot.name = unique_name(bot.name, [b.name for b in lineup[:seat]])
            return await play_match(info, lineup, seed=seed, time_control=control)

    result = trio.run(main_task)
    if not quiet:
        click.echo(describe_match(info.name, result))
    if as_json:
        click.echo(msgspec.json.encode(result).decode())


def unique_name(name: str, taken: list[str]) -> str:
    """``name``, or ``name#2``, ``name#3``... when already taken."""
    candidate, number = name or "bot", 1
    while candidate in taken:
        number += 1
        candidate = f"{name}#{number}"
    return candidate


def describe_match(game: str, result: MatchResult) -> str:
    """A readable log of a finished game: the decisions, the final position, the result."""
    info = find_game(game)
    state = info.new_state(len(result.players), result.seed, result.options)
    lines = [
        f"{info.title}, seed {result.seed}: "
        + ", ".join(f"seat {seat} {name}" for seat, name in enumerate(result.players))
    ]
    for action in result.decisions:
        seat = state.to_act
        lines.append(
            f"  {seat} {result.players[seat or 0]}: {msgspec.json.encode(action).decode()}"
        )
        state.apply(action)
    lines.append(state.render())
    rows = []
    for seat, name in enumerate(result.players):
        violation = result.violations[seat]
        note = (
            f"{violation.cause} at decision {violation.decision}: {violation.detail}"
            if violation
            else ""
        )
        rows.append((seat, name, result.scores[seat], result.ranks[seat], note))
    lines.append(tabulate(rows, headers=["seat", "bot", "score", "rank", "violation"]))
    return "\n".join(lines)


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
@click.option("--quiet", is_flag=True, help="No progress; print only the standings.")
@reports_errors
def run_command(file: Path, db: Path | None, concurrency: int | None, quiet: bool) -> None:
    """Run the tournament in FILE, resuming it if its database already has games."""
    config = load_config(file)
    if concurrency is not None:
        config = msgspec.structs.replace(config, concurrency=concurrency)
    db = db or Path("results") / f"{config.name}.sqlite"
    store = open_store(db)
    try:
        log_dir = db.with_name(f"{db.stem}-logs")
        log_dir.mkdir(parents=True, exist_ok=True)
        runner = Runner(config, store, log_dir=log_dir)
        total, stored = runner.expected_games(), store.count()
        progress = Progress(total, done=stored)
        progress.enabled = not quiet
        runner.progress = progress
        if not quiet:
            resumed = f", resuming after {stored} stored" if stored else ""
            click.echo(
                f"{config.name}: {total} games, {config.workers} at once{resumed}; results in {db}",
                err=True,
            )
        try:
            trio.run(runner.run)
        except (KeyboardInterrupt, BaseExceptionGroup) as error:
            if not _is_interrupt(error):
                raise
            progress.finish()
            click.echo(
                f"\ninterrupted: {store.count()} finished games are kept in {db};"
                f" run the same command again to resume",
                err=True,
            )
            sys.exit(130)
        progress.finish()
        standings = compute_standings(
            config.name, [g.result for g in store.games()], disqualified=store.disqualified()
        )
        click.echo(render_tables(standings))
    finally:
        store.close()


def _is_interrupt(error: BaseException) -> bool:
    if isinstance(error, KeyboardInterrupt):
        return True
    if isinstance(error, BaseExceptionGroup):
        return any(_is_interrupt(inner) for inner in error.exceptions)
    return False


@main.command("standings")
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Results database (default: the only one under results/).",
)
@click.option("--game", default=None, help="Only this game's standings.")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["table", "json", "csv"]),
    default="table",
    show_default=True,
)
@click.option("--cross", is_flag=True, help="Add a bot-by-bot head-to-head table.")
@reports_errors
def standings_command(db: Path | None, game: str | None, output_format: str, cross: bool) -> None:
    """Print the standings of a stored tournament."""
    store = open_store(db or _only_database(), create=False)
    try:
        results = [stored.result for stored in store.games(game=game)]
        if game is not None:
            find_game(game)
        standings = compute_standings(
            store.meta("tournament") or "?", results, disqualified=store.disqualified()
        )
    finally:
        store.close()
    if output_format == "json":
        click.echo(render_json(standings))
    elif output_format == "csv":
        click.echo(render_csv(standings), nl=False)
    else:
        click.echo(render_tables(standings, game=game))
        if cross:
            click.echo("\nhead to head (points of the row bot against the column bot / games)")
            click.echo(render_cross(results))


def _only_database() -> Path:
    found = sorted(Path("results").glob("*.sqlite"))
    if len(found) == 1:
        return found[0]
    if not found:
        raise ConfigError("no results database under results/; pass --db")
    names = ", ".join(str(path) for path in found)
    raise ConfigError(f"several results databases ({names}); pass --db")


@main.command("bench")
@click.option("--quick", is_flag=True, help="Smaller samples: under a minute.")
@click.option("--json", "as_json", is_flag=True, help="End with the report as one JSON line.")
@reports_errors
def bench_command(quick: bool, as_json: bool) -> None:
    """Measure the referee: pipe floor, cost per decision, start-up, throughput, deadlines."""
    sizes = bench.QUICK if quick else bench.FULL
    report = bench.run_bench(sizes, say=lambda message: click.echo(f"  {message}", err=True))
    click.echo(bench.render_report(report))
    if as_json:
        click.echo(bench.report_json(report))
