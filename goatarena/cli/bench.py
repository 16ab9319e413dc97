"""The ``bench`` command: measure the referee on this machine."""

from __future__ import annotations

import click

from goatarena import bench
from goatarena.cli import main
from goatarena.cli._common import reports_errors


@main.command("bench")
@click.option("--quick", is_flag=True, help="Smaller samples: under a minute.")
@click.option("--json", "as_json", is_flag=True, help="End with the report as one JSON line.")
@reports_errors
def bench_command(quick: bool, as_json: bool) -> None:
    """Measure the referee: pipe floor, cost per decision, start-up, throughput, deadlines.

    \b
    Example:
        goatarena bench --quick
    """
    sizes = bench.QUICK if quick else bench.FULL
    report = bench.run_bench(sizes, say=lambda message: click.echo(f"  {message}", err=True))
    click.echo(bench.render_report(report))
    if as_json:
        click.echo(bench.report_json(report))
