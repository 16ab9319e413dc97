"""The ``serve`` command: the tournament's site and JSON API, live, from its results."""

from __future__ import annotations

import os
import threading
from functools import partial
from pathlib import Path

import click
import trio

from goatarena.cli import main
from goatarena.cli._common import only_database, reports_errors, tell
from goatarena.formats.tournament_file import load_config
from goatarena.interrupt import run_trio
from goatarena.web.app import Site
from goatarena.web.server import end_with_run, is_loopback, serve_site


@main.command("serve")
@click.argument("file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Results database (default: FILE's, else the only one under results/).",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="Port."
)
@click.option(
    "--show-commands",
    is_flag=True,
    help="Show each bot's command on its page (hidden by default: the site is public).",
)
@reports_errors
def serve_command(
    file: Path | None, db: Path | None, host: str, port: int, show_commands: bool
) -> None:
    """Serve a tournament's results as a live site and a JSON API (read-only: a run or a
    ladder may write the database meanwhile). Ctrl-C stops it.

    \b
    Example:
        goatarena serve tournaments/demo.toml
        goatarena serve --db results/demo.sqlite --host 0.0.0.0 --port 8080
    """
    end_with_run()  # a site a run started ends with it
    config = load_config(file) if file is not None else None
    if db is None:
        db = Path("results") / f"{config.name}.sqlite" if config else only_database()
    if file is not None and config is not None and config.competition is not None:
        from goatarena.web.competition_routes import run_competition_site  # entrants submit

        if not is_loopback(host):
            tell(f"goatarena: serving on {host}, reachable from other machines (not only this one)")
        run_competition_site(file, db, host, port, tell)
        return
    site = Site(db, commands=None)
    try:
        if show_commands:
            entered = site.follower.config.get("bots")
            site.api.commands = (
                {str(k): str(v) for k, v in entered.items()} if isinstance(entered, dict) else {}
            )
        if not is_loopback(host):
            tell(f"goatarena: serving on {host}, reachable from other machines (not only this one)")
        run_trio(partial(_serve, site, host, port))
    finally:
        site.close()


async def _serve(site: Site, host: str, port: int) -> None:
    async with trio.open_nursery() as nursery:
        bound = await nursery.start(serve_site, site, host, port)
        addresses = ", ".join(bound)
        where = f"{site.follower.path} at {addresses}"
        tell(f"{site.follower.tournament}: serving {where}; Ctrl-C stops")
        try:
            await trio.sleep_forever()
        finally:  # stopped (Ctrl-C, SIGTERM)
            stop_within(SHUTDOWN_S)


SHUTDOWN_S = 3.0
"""How long a stopped site may take to close its connections before it simply exits."""


def stop_within(seconds: float) -> None:
    """End the process ``seconds`` from now if it has not ended by then. Hypercorn
    finishes each write to a connection whatever happens (a shielded send): a client
    that stopped reading its event stream would keep a stopped site from ever ending.
    The site writes nothing of its own, so exiting loses nothing."""

    def exit_now() -> None:
        tell("goatarena: interrupted (connections still open were dropped)")
        os._exit(130)

    timer = threading.Timer(seconds, exit_now)
    timer.daemon = True
    timer.start()
