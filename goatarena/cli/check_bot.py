"""The ``check-bot`` command: does a bot keep to the protocol in every game and seat?"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from goatarena.checkbot import CheckSettings, check_bot, check_names, format_result, summary
from goatarena.cli import main
from goatarena.cli._common import make_log_dir, reports_errors, sandbox_options
from goatarena.games import find_game
from goatarena.interrupt import run_trio
from goatarena.referee.sandbox import SandboxPolicy, require_sandbox


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
@click.option(
    "--log-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Keep the bot's stderr in this folder (bot.log).",
)
@sandbox_options
@reports_errors
def check_bot_command(
    command: tuple[str, ...],
    game: str | None,
    games: int,
    move_ms: int,
    startup_ms: int,
    seed: int,
    log_dir: Path | None,
    sandbox: str,
    ponder: bool,
    read_paths: tuple[str, ...],
    write_paths: tuple[str, ...],
) -> None:
    """Check that the bot COMMAND plays by the protocol; exit status 0 only if it does.

    COMMAND is one quoted string or the words of the command; quote it when the bot takes
    options of its own:

    \b
        goatarena check-bot "node my_bot.js --depth 3"

    The bot plays one seat of real games, the other seats play at random; see
    docs/bots.md for the checks. It runs in the same sandbox as in a tournament, so a bot
    that needs something the sandbox denies (a file outside its folder, the network)
    fails here, and the report says what was denied.

    \b
    Example:
        goatarena check-bot --game mountain-goats --games 3 ./mybot/bot
    """
    if game is not None:
        find_game(game)
    isolation = SandboxPolicy(
        mode=sandbox,
        ponder=ponder,
        read_paths=read_paths,
        write_paths=write_paths,
        hidden=(str(log_dir),) if log_dir else (),
    )
    require_sandbox(isolation)
    if log_dir is not None:
        make_log_dir(log_dir)
    settings = CheckSettings(
        games=games,
        move_ms=move_ms,
        startup_ms=startup_ms,
        seed=seed,
        game=game,
        sandbox=isolation,
        log_dir=log_dir,
    )
    shown = command[0] if len(command) == 1 else " ".join(command)
    click.echo(
        f"checking {shown}: {games} {'game' if games == 1 else 'games'} of "
        + ", ".join(info.name for info in settings.infos)
        + f", {move_ms} ms per decision"
    )
    width = max(len(name) for name in check_names(settings))
    results = run_trio(
        lambda: check_bot(
            command[0] if len(command) == 1 else command,
            settings,
            on_result=lambda result: click.echo(format_result(result, width)),
        )
    )
    click.echo(summary(results))
    sys.exit(0 if all(result.passed for result in results) else 1)
