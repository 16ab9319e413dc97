"""The ``submit`` command: an entrant's folder uploaded to a competition and followed."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from goatarena.cli import main
from goatarena.cli._common import reports_errors, tell
from goatarena.competition.builds import log_tail
from goatarena.competition.client import Refused, Server, Unreachable
from goatarena.competition.uploads import UploadRefused, pack_folder


@main.command("submit")
@click.argument("url")
@click.argument("folder", type=click.Path(file_okay=False, exists=True, path_type=Path))
@click.option("--token", required=True, envvar="GOATARENA_TOKEN",
              help="Your entrant's token (or GOATARENA_TOKEN).")  # fmt: skip
@click.option("--language", default="python", show_default=True,
              help="The kit's language: python, cpp, go, java, rust, typescript.")  # fmt: skip
@click.option("--wait-s", type=click.FloatRange(min=0), default=900, show_default=True,
              help="How long to follow the build and validation.")  # fmt: skip
@click.option("--compare", is_flag=True,
              help="Also wait for the comparison with your previous version.")  # fmt: skip
@reports_errors
def submit_command(
    url: str, folder: Path, token: str, language: str, wait_s: float, compare: bool
) -> None:
    """Upload the bot in FOLDER to the competition at URL, follow its build and
    validation, and print the outcome.

    Exit status 0 once the new version is active (its name, NAME@k, is the last line;
    with --compare, after how it compares with your previous version: paired games and
    an SPRT);
    1 when its build or validation failed (the reason and the log's end), or the server
    stopped answering for a minute after it took the upload (it is built when the server
    runs again; a server back within the minute is followed on);
    2 when the upload was refused, or not acknowledged (then it is not stored).

    \b
    Example:
        goatarena submit https://arena.example.org mybot --token "$TOKEN" --language rust
    """
    server = Server(url, token)
    try:
        archive = pack_folder(folder)
        number = server.upload(archive, language)
    except (Refused, UploadRefused) as refused:
        tell(f"goatarena: the upload was refused: {refused}")
        sys.exit(2)
    except Unreachable as lost:
        # A server keeps nothing of an upload it stopped receiving or storing; only one
        # that stopped in the instant between recording it and answering has it.
        tell(
            f"goatarena: the upload was not acknowledged ({lost}); send it again (if the"
            " server stopped just as it stored it, your submissions list it already)"
        )
        sys.exit(2)
    click.echo(f"uploaded {folder} ({len(archive) / 1024:.0f} KiB) as submission {number}")
    try:
        found = server.follow(number, wait_s=wait_s, said=lambda state: click.echo(f"  {state}"))
    except Unreachable as lost:
        tell(
            f"goatarena: submission {number} is stored, but following it stopped ({lost});"
            " the server builds it when it runs again"
        )
        sys.exit(1)
    if found["state"] == "active":
        if compare:
            compared = server.follow_comparison(number, wait_s=wait_s)
            click.echo(compared or "no comparison: this is your first version")
        click.echo(found["version"])
        return
    if found["state"] != "failed":
        tell(f"goatarena: submission {number} is still {found['state']} after {wait_s:g} s")
        sys.exit(1)
    tail = log_tail(server.build_log(number))
    if tail:
        click.echo(tail)
    tell(f"goatarena: submission {number} failed: {found['reason']}")
    sys.exit(1)
