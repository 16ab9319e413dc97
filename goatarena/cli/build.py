"""The ``build`` command: build a bot's folder inside the bots' sandbox, as a competition does."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import click

from goatarena.cli import main
from goatarena.cli._common import reports_errors
from goatarena.competition.builds import (
    BuildLimits,
    build_folder,
    close_after_build,
    log_tail,
    open_to_build,
)
from goatarena.errors import ConfigError
from goatarena.interrupt import run_trio
from goatarena.referee.sandbox import SandboxPolicy, require_sandbox


@main.command("build")
@click.argument("folder", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("--command", "build_command", default="make", show_default=True,
              help="The build command, run in FOLDER.")  # fmt: skip
@click.option("--seconds", type=click.FloatRange(min=0.1), default=300, show_default=True,
              help="Time the build may take.")  # fmt: skip
@click.option("--memory-mib", type=click.IntRange(min=16), default=2048, show_default=True,
              help="Memory the build may use.")  # fmt: skip
@click.option("--log", "log_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Keep the whole build log here (default: only its end is shown).")  # fmt: skip
@reports_errors
def build_command(
    folder: Path, build_command: str, seconds: float, memory_mib: int, log_path: Path | None
) -> None:
    """Build the bot in FOLDER inside the sandbox games run in (a uid of its own, no
    network, nothing of the machine but its programs; limits on time, memory, processes
    and file size), as a competition builds a submission: never run a stranger's
    Makefile with your own rights. Exit status 0 when it built.

    \b
    Example:
        goatarena build mybot && goatarena check-bot mybot/bot
    """
    require_sandbox(SandboxPolicy())
    folder = folder.absolute()
    if not (folder / "Makefile").is_file() and build_command == "make":
        raise ConfigError(f"{folder} has no Makefile: give its build with --command")
    limits = BuildLimits(
        seconds=seconds,
        memory_bytes=memory_mib << 20,
        processes=256,
        file_bytes=512 << 20,
        log_bytes=1 << 20,
    )
    owner = folder.stat()
    with tempfile.TemporaryDirectory(prefix="goatarena-build-") as scratch:
        log = log_path.absolute() if log_path else Path(scratch) / "build.log"
        open_to_build(folder)
        try:
            result = run_trio(lambda: build_folder(folder, build_command, None, limits, log))
        finally:
            close_after_build(folder, owner=(owner.st_uid, owner.st_gid))
    if not result.ok:
        click.echo(log_tail(result.log), err=True)
        click.echo(f"goatarena: {folder}: {result.reason}", err=True)
        sys.exit(1)
    bot = folder / "bot"  # every kit's program; a folder built with --command may have none
    its_bot = f"; its bot: {bot}" if bot.is_file() else ""
    click.echo(f"built {folder} in {result.seconds:.1f} s in the sandbox{its_bot}")
