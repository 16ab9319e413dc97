"""The ``new-bot`` command: a starter kit copied into a folder, ready to build."""

from __future__ import annotations

import shlex
import shutil
import sys
from pathlib import Path

import click

from goatarena.cli import main
from goatarena.cli._common import reports_errors
from goatarena.cli._toolchain import Toolchain, missing_toolchain
from goatarena.errors import ConfigError

KITS = Path(__file__).resolve().parent.parent / "kits"
"""The kits shipped with goatarena: the repository's kits/ folder, installed as package
data (goatarena/kits is a link to it in the source tree)."""
LANGUAGES = ("python", "typescript", "go", "cpp", "java", "rust")
BUILT = ("node_modules", "dist", "build", "target", "*.class", "__pycache__", "bot-binary")
"""What ``make`` produces in any kit folder: never copied. A kit's own ``.gitignore``
adds its own (the Go and C++ kits build their ``bot`` program in place)."""


def built_output(kit: Path) -> tuple[str, ...]:
    """The file patterns a build leaves in ``kit``: :data:`BUILT` and its ``.gitignore``."""
    ignore = kit / ".gitignore"
    listed = ignore.read_text(encoding="utf-8").splitlines() if ignore.is_file() else []
    own = (line.strip().strip("/") for line in listed if not line.lstrip().startswith("#"))
    return BUILT + tuple(pattern for pattern in own if pattern)


def copy_kit(kit: Path, folder: Path) -> None:
    """Copy the kit folder ``kit`` to ``folder`` without what a build left in it.

    A kit's ./bot launcher is made executable: an installed package may not keep the
    mode (wheels often do not).
    """
    ignored = shutil.ignore_patterns(*built_output(kit))
    shutil.copytree(kit, folder, ignore=ignored, dirs_exist_ok=True)
    launcher = folder / "bot"
    if launcher.is_file():
        launcher.chmod(launcher.stat().st_mode | 0o111)


def _empty_or_absent(folder: Path) -> bool:
    return not folder.exists() or (folder.is_dir() and not any(folder.iterdir()))


@main.command("new-bot")
@click.argument("language", type=click.Choice(LANGUAGES))
@click.argument("folder", type=click.Path(path_type=Path))
@reports_errors
def new_bot_command(language: str, folder: Path) -> None:
    """Copy the LANGUAGE starter kit into FOLDER (new or empty), ready to build.

    Every kit builds with make; ./bot in its folder is then the bot's command. The
    commands to build, check and play it are printed. When this machine lacks the kit's
    compiler or libraries (its kit.toml's check fails), the folder is still made, and
    new-bot exits with status 2 naming what is missing and the command that installs it.

    \b
    Example:
        goatarena new-bot rust mybot
    """
    kit = KITS / language
    if not _empty_or_absent(folder):
        raise ConfigError(f"{folder} exists and is not an empty folder: choose another")
    if not (kit / "kit.toml").is_file():
        raise ConfigError(f"the {language} kit is not installed (no {kit / 'kit.toml'})")
    copy_kit(kit, folder)
    if language == "python":
        _pin_interpreter(folder / "bot")
    place = shlex.quote(str(folder))
    click.echo(f"a {language} bot in {folder}; build, check and play it with:")
    click.echo(f"  make -C {place}")
    click.echo(f"  goatarena check-bot {shlex.quote(str(folder / 'bot'))}")
    bot = shlex.quote(str(folder / "bot"))
    click.echo(f"  goatarena play mountain-goats --bot {bot} --bot builtin:random")
    missing = missing_toolchain(Toolchain.from_kit(kit))
    if missing is not None:
        raise ConfigError(f"{folder} is made, but cannot be built here yet: {missing}")


def _pin_interpreter(launcher: Path) -> None:
    """Make the Python kit's ./bot run this interpreter, which has goatarena's SDK."""
    text = launcher.read_text(encoding="utf-8")
    launcher.write_text(text.replace("exec python3 ", f"exec {shlex.quote(sys.executable)} "))
