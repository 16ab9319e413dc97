"""The ``worker`` command: a Dask worker that plays goatarena games for a cluster."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import click

from goatarena.cli import main
from goatarena.cli._common import reports_errors
from goatarena.errors import ClusterError
from goatarena.formats.tournament_file import MAX_CONCURRENCY
from goatarena.running import cluster
from goatarena.running.worker import LOG_DIR_VARIABLE


@main.command("worker", context_settings={"ignore_unknown_options": True})
@click.argument("scheduler", required=False)
@click.option(
    "--scheduler-file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Find the scheduler in this file (written by dask scheduler --scheduler-file).",
)
@click.option(
    "--slots",
    type=click.IntRange(min=1, max=MAX_CONCURRENCY),
    default=None,
    help="Games played at once (default: the number of CPUs).",
)
@click.option("--name", default=None, help="The worker's name on the cluster.")
@click.option(
    "--resources",
    default=None,
    help='Dask resources this machine offers, e.g. "fast=1" (see docs/cluster.md).',
)
@click.option(
    "--log-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Keep bots' stderr logs here, a folder per tournament (default: none).",
)
@click.argument("dask_options", nargs=-1, type=click.UNPROCESSED)
@reports_errors
def worker_command(
    scheduler: str | None,
    scheduler_file: Path | None,
    slots: int | None,
    name: str | None,
    resources: str | None,
    log_dir: Path | None,
    dask_options: tuple[str, ...],
) -> None:
    """Join the Dask scheduler at SCHEDULER (tcp://HOST:8786) and play games for it.

    This is Dask's own worker (with its nanny, which restarts it if it dies) with
    goatarena's referee preloaded; options after the known ones go to 'dask worker'.
    Stop it with Ctrl-C or SIGTERM: its bots are stopped with it.

    \b
    Example:
        goatarena worker tcp://head:8786 --slots 4
    """
    if importlib.util.find_spec("distributed") is None:
        raise ClusterError("a worker needs Dask: pip install 'goatarena[cluster]'")
    if (scheduler is None) == (scheduler_file is None):
        raise ClusterError("give the scheduler's address (tcp://HOST:8786) or --scheduler-file")
    if scheduler is not None:
        cluster.wait_for_scheduler(scheduler)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    argv = [
        sys.executable,
        "-m",
        "goatarena.running.dask_worker",
        *([scheduler] if scheduler else ["--scheduler-file", str(scheduler_file)]),
        "--nthreads",
        str(slots or cpus or 1),
        "--nworkers",
        "1",
        "--preload",
        "goatarena.running.worker",
        "--no-dashboard",
    ]
    if name:
        argv += ["--name", name]
    if resources:
        argv += ["--resources", resources]
    # The profiler takes the GIL every 10 ms and slows the referee three times over.
    os.environ.setdefault("DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED", "False")
    if log_dir is not None:
        os.environ[LOG_DIR_VARIABLE] = str(log_dir.resolve())
    sys.stdout.flush()
    sys.stderr.flush()
    # Dask's own command runs the worker: its signal handling, nanny and options.
    os.execv(sys.executable, [*argv, *dask_options])
