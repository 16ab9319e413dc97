"""The ``doctor`` command: what isolation this machine gives bots."""

from __future__ import annotations

import sys

import click

from goatarena.cli import main
from goatarena.cli._common import reports_errors
from goatarena.referee.doctor import isolation_report


@main.command("doctor")
@reports_errors
def doctor_command() -> None:
    """Say how bots are isolated on this machine; exit status 1 if they cannot be.

    Sandboxing needs Linux user namespaces and bubblewrap; limits that count shared
    memory, process limits and freezing need cgroups the runner may create (see the
    security section of docs/referee.md).

    \b
    Example:
        goatarena doctor
    """
    rows, sandboxed = isolation_report()
    width = max(len(what) for what, _ in rows)
    for what, given in rows:
        click.echo(f"{what:<{width}}  {given}")
    sys.exit(0 if sandboxed else 1)
