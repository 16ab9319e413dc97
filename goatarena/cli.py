"""The ``goatarena`` command line: a thin click group over the package."""

from __future__ import annotations

import os
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
from goatarena.checkbot import CheckSettings, check_bot, check_names, format_result, summary
from goatarena.errors import ConfigError, GoatArenaError, user_error_in
from goatarena.games import GAMES, find_game
from goatarena.protocol import unique_names
from goatarena.referee import (
    BotLimits,
    MatchResult,
    Penalty,
    TimeControl,
    ViolationPolicy,
    play_match,
)
from goatarena.referee.lineup import open_lineup
from goatarena.replay import describe_match
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
PENALTIES = [penalty.value for penalty in Penalty]


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


def make_log_dir(path: Path) -> None:
    """Create the folder for bots' stderr logs; one clear error if it cannot be."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(f"cannot create log folder {path}: {error.strerror or error}") from None


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
@click.option(
    "--move-ms", type=click.IntRange(min=1), default=1000, show_default=True, help="Per decision."
)
@click.option(
    "--bank-ms",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="A per-game bank drawn on when a decision takes longer than --move-ms.",
)
@click.option(
    "--increment-ms",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Added to the bank after every decision.",
)
@click.option(
    "--margin-ms",
    type=click.IntRange(min=0),
    default=25,
    show_default=True,
    help="Unannounced grace on every deadline for pipe and scheduling delays.",
)
@click.option(
    "--startup-ms",
    type=click.IntRange(min=1),
    default=10_000,
    show_default=True,
    help="For a bot to start and answer hello.",
)
@click.option(
    "--on-timeout",
    type=click.Choice(PENALTIES),
    default="forfeit",
    show_default=True,
    help="Penalty for an answer that comes too late (crashes always forfeit).",
)
@click.option(
    "--on-illegal",
    type=click.Choice(PENALTIES),
    default="forfeit",
    show_default=True,
    help="Penalty for an action that is not legal.",
)
@click.option(
    "--on-malformed",
    type=click.Choice(PENALTIES),
    default="forfeit",
    show_default=True,
    help="Penalty for a line that is not a valid answer.",
)
@click.option(
    "--strikes",
    type=click.IntRange(min=1),
    default=3,
    show_default=True,
    help="Under random-move, the violation that makes this many strikes forfeits.",
)
@click.option(
    "--memory-mb",
    type=click.IntRange(min=0),
    default=1024,
    show_default=True,
    help="Each bot's data memory limit (RLIMIT_DATA); 0 for none.",
)
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
    bank_ms: int,
    increment_ms: int,
    margin_ms: int,
    startup_ms: int,
    on_timeout: str,
    on_illegal: str,
    on_malformed: str,
    strikes: int,
    memory_mb: int,
    log_dir: Path | None,
    as_json: bool,
    quiet: bool,
) -> None:
    """Play one GAME between the given bots (their number is the player count).

    Time control, limits and violation policies are described in docs/referee.md.
    """
    info = find_game(game)
    info.check_options(len(bots), None)
    if seed is None:
        seed = int.from_bytes(os.urandom(4), "big")
    control = TimeControl(
        move_ms=move_ms,
        bank_ms=bank_ms,
        increment_ms=increment_ms,
        margin_ms=margin_ms,
        startup_ms=startup_ms,
    )
    policy = ViolationPolicy(
        timeout=Penalty(on_timeout),
        illegal=Penalty(on_illegal),
        malformed=Penalty(on_malformed),
        strikes=strikes,
    )
    limits = BotLimits(memory_bytes=memory_mb << 20 if memory_mb else None)
    if log_dir is not None:
        make_log_dir(log_dir)

    async def main_task() -> MatchResult:
        async with open_lineup(
            bots, startup_s=startup_ms / 1000, limits=limits, log_dir=log_dir
        ) as lineup:
            for bot in lineup:
                if bot.broken is not None:
                    # Recorded as the seat's forfeit at decision 0; said here at once too.
                    click.echo(
                        f"goatarena: bot {bot.command!r} did not start: {bot.broken.detail}",
                        err=True,
                    )
            for bot, name in zip(lineup, unique_names([bot.name for bot in lineup])):
                bot.name = name
            return await play_match(info, lineup, seed=seed, time_control=control, policy=policy)

    result = trio.run(main_task)
    if not quiet:
        click.echo(describe_match(result))
    if as_json:
        click.echo(msgspec.json.encode(result).decode())


@main.command("check-bot")
@click.argument("command", nargs=-1, required=True)
@click.option("--game", default=None, help="Check only this game (default: every game).")
@click.option(
    "--games", type=click.IntRange(min=1), default=10, show_default=True, help="Games per game."
)
@click.option(
    "--move-ms",
    type=click.IntRange(min=1),
    default=1000,
    show_default=True,
    help="Time per decision.",
)
@click.option(
    "--startup-ms",
    type=click.IntRange(min=1),
    default=10_000,
    show_default=True,
    help="Time to answer hello.",
)
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the deals.")
@reports_errors
def check_bot_command(
    command: tuple[str, ...],
    game: str | None,
    games: int,
    move_ms: int,
    startup_ms: int,
    seed: int,
) -> None:
    """Check that the bot COMMAND plays by the protocol; exit status 0 only if it does.

    COMMAND is one quoted string or the words of the command; quote it when the bot takes
    options of its own:

    \b
        goatarena check-bot "node my_bot.js --depth 3"

    The bot plays one seat of real games, the other seats play at random; see
    docs/bots.md for the checks.
    """
    if game is not None:
        find_game(game)
    settings = CheckSettings(
        games=games, move_ms=move_ms, startup_ms=startup_ms, seed=seed, game=game
    )
    shown = command[0] if len(command) == 1 else " ".join(command)
    click.echo(
        f"checking {shown}: {games} {'game' if games == 1 else 'games'} of "
        + ", ".join(info.name for info in settings.infos)
        + f", {move_ms} ms per decision"
    )
    width = max(len(name) for name in check_names(settings))
    results = trio.run(
        lambda: check_bot(
            command[0] if len(command) == 1 else command,
            settings,
            on_result=lambda result: click.echo(format_result(result, width)),
        )
    )
    click.echo(summary(results))
    sys.exit(0 if all(result.passed for result in results) else 1)


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
        store.lock_for_run()
        log_dir = db.with_name(f"{db.stem}-logs")
        make_log_dir(log_dir)
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
    if game is not None:
        find_game(game)
    store = open_store(db or _only_database(), create=False)
    try:
        results = [stored.result for stored in store.games(game=game)]
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


@main.command("replay")
@click.argument("game_key")
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Results database (default: the only one under results/).",
)
@click.option(
    "--seat",
    type=click.IntRange(min=0),
    default=None,
    help="Show only what this seat saw: its observations, others' public moves.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the stored record as JSON.")
@reports_errors
def replay_command(game_key: str, db: Path | None, seat: int | None, as_json: bool) -> None:
    """Replay a stored game: GAME_KEY is its key, or its number in finishing order (1 first)."""
    store = open_store(db or _only_database(), create=False)
    try:
        stored = store.find_game(game_key)
    finally:
        store.close()
    if seat is not None and seat >= len(stored.result.players):
        raise ConfigError(
            f"seat {seat} does not exist: the game had {len(stored.result.players)} seats"
        )
    if as_json:
        click.echo(msgspec.json.encode(stored).decode())
    else:
        click.echo(f"{stored.key} (round {stored.round})")
        click.echo(describe_match(stored.result, seat=seat))


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
