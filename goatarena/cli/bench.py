"""The ``bench`` command: measure the referee on this machine."""

from __future__ import annotations

import click

from goatarena import bench
from goatarena.bench import ladder as ladder_bench
from goatarena.bench import swiss as swiss_bench
from goatarena.cli import main
from goatarena.cli._common import reports_errors, tell


@main.command("bench")
@click.option("--quick", is_flag=True, help="Smaller samples: under a minute.")
@click.option("--json", "as_json", is_flag=True, help="End with the report as one JSON line.")
@click.option(
    "--swiss",
    is_flag=True,
    help="Measure the Swiss pairing instead: accuracy, rematches, seats, pairing time.",
)
@click.option(
    "--ladder",
    is_flag=True,
    help="Measure the ladder's matchmaking instead: top of the table, order, late entries, cost.",
)
@reports_errors
def bench_command(quick: bool, as_json: bool, swiss: bool, ladder: bool = False) -> None:
    """Measure the referee: pipe floor, cost per decision, start-up, throughput, deadlines.

    \b
    Example:
        goatarena bench --quick
        goatarena bench --ladder
    """
    if ladder:
        ladder_sizes = ladder_bench.QUICK if quick else ladder_bench.FULL
        for section in ladder_bench.run_ladder_bench(ladder_sizes, lambda m: tell(f"  {m}")):
            click.echo(section + "\n")
        return
    if swiss:
        say = lambda message: tell(f"  {message}")  # noqa: E731
        swiss_sizes = swiss_bench.QUICK if quick else swiss_bench.FULL
        for section in swiss_bench.run_swiss_bench(swiss_sizes, say):
            click.echo(section + "\n")
        return
    sizes = bench.QUICK if quick else bench.FULL
    report = bench.run_bench(sizes, say=lambda message: tell(f"  {message}"))
    click.echo(bench.render_report(report))
    if as_json:
        click.echo(bench.report_json(report))
