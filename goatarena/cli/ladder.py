"""The ``ladder`` commands: bots come and go in a running ladder; why a game was played."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import click

from goatarena.cli import main
from goatarena.cli._common import database_option, only_database, open_results, reports_errors
from goatarena.errors import BotError, ConfigError, StoreError
from goatarena.formats.ladder.edit import CommandCheck, add_bot, retire_bot, update_bot
from goatarena.formats.tournament_file import load_config
from goatarena.referee.command import parse_command
from goatarena.running.job import deal_of

_FILE = click.argument("file", type=click.Path(dir_okay=False, exists=True, path_type=Path))


@main.group("ladder")
def ladder_group() -> None:
    """Change a ladder's bots (it notices within seconds while it runs), or ask why a
    game was chosen.

    \b
    Example:
        goatarena ladder add tournaments/ladder-demo.toml mine "python3 mine.py"
        goatarena ladder why tournaments/ladder-demo.toml 12
    """


@ladder_group.command("add")
@_FILE
@click.argument("name")
@click.argument("command")
@reports_errors
def add_command(file: Path, name: str, command: str) -> None:
    """Add bot NAME playing COMMAND (paths relative to FILE's folder) to the ladder FILE.

    Its program (and the script an interpreter is given) must exist; it plays once it
    has passed the check of its folder, the pre-flight and a validation game against the
    reference bot.
    """
    click.echo(add_bot(file, name, command, check=program_check(file)))


@ladder_group.command("update")
@_FILE
@click.argument("name")
@click.argument("command")
@reports_errors
def update_command(file: Path, name: str, command: str) -> None:
    """Add a new version of bot NAME (NAME@2, NAME@3, ...) and retire the one before.

    The new version is an entry of its own in the standings, starting afresh.
    """
    click.echo(update_bot(file, name, command, check=program_check(file)))


@ladder_group.command("retire")
@_FILE
@click.argument("name")
@reports_errors
def retire_command(file: Path, name: str) -> None:
    """Retire bot NAME (its newest version, or the version named): it plays no more;
    its games stay, and `goatarena standings --all` shows it."""
    click.echo(retire_bot(file, name))


@ladder_group.command("why")
@database_option
@click.argument("words", nargs=-1, required=True, metavar="[FILE] KEY")
@reports_errors
def why_command(db: Path | None, words: tuple[str, ...]) -> None:
    """Say why the ladder FILE chose the game KEY (a key, or a game's number in `list`).

    The results are read from FILE's database (results/<its name>.sqlite, or --db); with
    KEY alone, from --db or the only database under results/.
    """
    if len(words) > 2:
        raise click.UsageError("give the ladder's FILE and one game KEY")
    if len(words) == 1 and words[0].endswith(".toml") and Path(words[0]).is_file():
        raise click.UsageError(f"which game? give its KEY after the file: {words[0]} KEY")
    key = words[-1]
    if len(words) == 2 and db is None:
        db = ladder_database(Path(words[0]))
    elif db is None:
        try:
            db = only_database()
        except ConfigError as error:
            raise ConfigError(
                f"{error} (or name the ladder: goatarena ladder why FILE {key})"
            ) from None
    store = open_results(db)
    try:
        game = store.find_game(key)
        choices = store.ladder_choices()
    finally:
        store.close()
    deal = deal_of(game.key)
    if deal not in choices:
        raise StoreError(f"game {game.key} was not chosen by a ladder (no choice is stored)")
    rule, reason = choices[deal]
    click.echo(f"{game.key}: chosen by the {rule} rule: {reason}")


def ladder_database(file: Path) -> Path:
    """The results database ``goatarena run FILE`` writes by default for the ladder FILE."""
    config = load_config(file)
    if config.format != "ladder":
        raise ConfigError(f'{file} is a {config.format}, not a ladder (format = "ladder")')
    db = Path("results") / f"{config.name}.sqlite"
    if not db.exists():
        raise ConfigError(
            f"{file}: no results database {db} here (run it first, or pass --db if it ran"
            " with another)"
        )
    return db


INTERPRETER = re.compile(
    r"(python[0-9.]*|pypy[0-9.]*|node|nodejs|ruby|perl|lua[0-9.]*|php|Rscript|bash|sh)"
)
"""Programs whose first argument, unless it is an option, is the script they run."""


def program_check(file: Path) -> CommandCheck:
    """What ``ladder add`` and ``ladder update`` check of a command before the file is
    written: that it parses, that its program exists (and can be run), and that the
    script an interpreter is given exists. The bot's start itself is the running
    ladder's pre-flight."""
    folder = file.parent.absolute()

    def check(name: str, command: str) -> None:
        try:
            argv = parse_command(command)
        except BotError as error:
            raise BotError(f"bot {name}: {error}; nothing was added to {file}") from None
        problem = missing_program(argv)
        if problem is not None:
            raise BotError(
                f"bot {name}: {problem} (paths are relative to {folder}, the file's folder);"
                f" nothing was added to {file}"
            )

    return check


def missing_program(argv: list[str]) -> str | None:
    """Why the command ``argv`` cannot start as it stands (its program, or the script
    an interpreter would run, is missing), or None."""
    program = argv[0]
    if "/" in program:
        if not os.path.isfile(program):
            return f"{program}: file not found"
        if not os.access(program, os.X_OK):
            return f"{program}: not executable (chmod +x it, or name its interpreter first)"
    elif shutil.which(program) is None:
        return f"{program}: program not found on PATH"
    name = os.path.basename(program)
    script = argv[1] if len(argv) > 1 and INTERPRETER.fullmatch(name) else "-"
    if not script.startswith("-") and not os.path.exists(script):
        return f"{script}: file not found"
    return None
