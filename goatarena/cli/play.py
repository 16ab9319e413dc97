"""The ``games`` and ``play`` commands: list the games, play one game between bots."""

from __future__ import annotations

import os
import sys
import tomllib
from pathlib import Path

import click
import msgspec

from goatarena.cli import main
from goatarena.cli._common import make_log_dir, reports_errors, sandbox_options, tell
from goatarena.errors import BotError, ConfigError
from goatarena.formats.tournament_file import MAX_MB
from goatarena.games import GAMES, find_game
from goatarena.interrupt import run_trio
from goatarena.protocol import unique_names
from goatarena.referee import (
    BotLimits,
    MatchResult,
    Penalty,
    TimeControl,
    ViolationPolicy,
    play_match,
)
from goatarena.referee.bot_copies import with_copies_for
from goatarena.referee.bot_folders import bot_folders, check_commands, shared_folder_warnings
from goatarena.referee.latency import clocks_first
from goatarena.referee.lineup import open_lineup
from goatarena.referee.sandbox import SandboxPolicy, require_sandbox
from goatarena.render.live import LiveBoard
from goatarena.render.replay import describe_match, result_summary
from goatarena.render.style import can_redraw, text_table, wants_colour
from goatarena.running.preflight import STDERR_LINES
from goatarena.store.export import outcome, violations_note
from goatarena.store.summary import summary_of

PENALTIES = [penalty.value for penalty in Penalty]


@main.command("games")
@reports_errors
def games_command() -> None:
    """List the games and their player counts.

    \b
    Example:
        goatarena games
    """
    rows = [
        (info.name, info.title, f"{info.min_players}-{info.max_players}", info.summary)
        for info in GAMES.values()
    ]
    click.echo(text_table(["game", "title", "players", "about"], rows))


@main.command("play")
@click.argument("game")
@click.option(
    "--bot",
    "bots",
    multiple=True,
    required=True,
    help="A bot command; one per seat (builtin:random, builtin:greedy and builtin:mcts"
    " are the bundled bots).",
)
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
    type=click.IntRange(min=0, max=MAX_MB),
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
@sandbox_options
@click.option(
    "--option",
    "options",
    multiple=True,
    metavar="KEY=VALUE",
    help='A rule option of the game (repeatable); VALUE is read as TOML (3, true, "x").',
)
@click.option("--json", "as_json", is_flag=True, help="End with the result as one JSON line.")
@click.option("--quiet", is_flag=True, help="Print only the result, in one line.")
@click.option("--watch", is_flag=True, help="Draw the board after every decision as it is played.")
@click.option(
    "--delay",
    "delay_ms",
    type=click.IntRange(min=0),
    default=500,
    show_default=True,
    help="With --watch, the pause after each board (never charged to the bots).",
)
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
    sandbox: str,
    ponder: bool,
    read_paths: tuple[str, ...],
    write_paths: tuple[str, ...],
    options: tuple[str, ...],
    as_json: bool,
    quiet: bool,
    watch: bool,
    delay_ms: int,
) -> None:
    """Play one GAME between the given bots (their number is the player count).

    Time control, limits and violation policies are described in docs/referee.md; the
    rule options of each game in docs/games.md.

    \b
    Example:
        goatarena play goat-lords --bot builtin:greedy --bot builtin:random \\
            --seed 7 --option rounds=2
    """
    info = find_game(game)
    rule_options = parse_options(options)
    info.check_options(len(bots), rule_options)
    if seed is None:
        # 63 bits: a bot that knows its own hand could otherwise look the deal up in a
        # table of every 32-bit seed's deals and learn the other hands.
        seed = int.from_bytes(os.urandom(8), "big") >> 1
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
    commands = {f"seat {seat}": command for seat, command in enumerate(bots)}
    isolation = SandboxPolicy(
        mode=sandbox,
        ponder=ponder,
        read_paths=read_paths,
        write_paths=write_paths,
        hidden=(str(log_dir),) if log_dir else (),
        hidden_where_possible=(*bot_folders(commands), str(Path.cwd())),
    )
    require_sandbox(isolation)
    if isolation.enabled:
        check_commands(commands, dict.fromkeys(commands, (*read_paths, *write_paths)))
    for warning in shared_folder_warnings(commands):
        tell(warning)
    if log_dir is not None:
        make_log_dir(log_dir)
    live: LiveBoard | None = None
    if watch and not quiet:
        terminal = can_redraw(sys.stdout)
        live = LiveBoard(
            info.name,
            [str(bot) for bot in bots],
            sys.stdout,
            delay_s=delay_ms / 1000,
            colour=wants_colour(sys.stdout),
            in_place=terminal,
        )

    async def main_task() -> MatchResult:
        shown = await with_copies_for(isolation, bots)  # off the event loop, before any start
        with clocks_first():  # this thread keeps the bots' clocks
            async with open_lineup(
                bots, startup_s=startup_ms / 1000, limits=limits, log_dir=log_dir, sandbox=shown
            ) as lineup:
                for bot in lineup:
                    if bot.broken is not None:
                        # A game with a seat that never started is no game: like a command
                        # that does not exist, this ends the run, with the end of its stderr.
                        for line in bot.last_words(STDERR_LINES):
                            tell(f"    | {line}")
                        raise BotError(
                            f"bot {bot.command!r} did not start: {bot.broken}; nothing was played"
                        )
                for bot, name in zip(lineup, unique_names([bot.name for bot in lineup])):
                    bot.name = name
                if live is not None:
                    live.names = [bot.name for bot in lineup]
                    live.show(
                        info.new_state(len(bots), seed, rule_options), f"{info.title}, seed {seed}"
                    )
                return await play_match(
                    info,
                    lineup,
                    seed=seed,
                    options=rule_options,
                    time_control=control,
                    policy=policy,
                    watch=live,
                )

    result = run_trio(main_task)
    if quiet:
        if not as_json:
            # A forfeit must show even here: the scores alone hide it.
            summary = summary_of("", 0, result, 0.0)
            note = violations_note(summary)
            click.echo(outcome(summary) + (f" (violations: {note})" if note else ""))
    elif live is not None:
        click.echo("\n" + result_summary(result))
    else:
        click.echo(describe_match(result))
    if as_json:
        click.echo(msgspec.json.encode(result).decode())


def parse_options(pairs: tuple[str, ...]) -> dict[str, object]:
    """``KEY=VALUE`` pairs as rule options; VALUE is a TOML value, or else a string."""
    options: dict[str, object] = {}
    for pair in pairs:
        key, equals, text = pair.partition("=")
        if not equals or not key.strip():
            raise ConfigError(f"--option {pair!r}: expected KEY=VALUE, e.g. rounds=2")
        try:
            value = tomllib.loads(f"value = {text}")["value"]
        except tomllib.TOMLDecodeError:
            value = text
        options[key.strip()] = value
    return options
