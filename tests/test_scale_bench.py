"""The scale benchmark at its smoke-test size: every row of the growth table is measured
and none ended in a timeout, a crash or running out of memory (no timing limits)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers import ROOT


@pytest.mark.slow
def test_the_quick_growth_table_measures_every_step():
    printed = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "scale.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=ROOT,
    )
    assert printed.returncode == 0, printed.stderr
    rows = printed.stdout.splitlines()[2:]
    steps = {row.split("  ")[0].strip() for row in rows}
    assert steps == {
        "standings",
        "list first line",
        "list",
        "export",
        "report",
        "fit",
        "swiss round",
        "run: first game",
        "run: Ctrl-C at once",
        "run: Ctrl-C while starting",
        "run: Ctrl-C while playing",
        "run: RSS growth",
    }
    failed = ("timeout after", "out of memory after", "exit ")
    assert not [row for row in rows if any(word in row for word in failed)]
    assert all(" MB" in row for row in rows)
    # Once goatarena is loaded, a Ctrl-C is one line, whatever the run is doing.
    interrupted = [row for row in rows if "Ctrl-C while" in row]
    assert len(interrupted) == 2 and all("(one line)" in row for row in interrupted)
