"""Benchmarks: what ``goatarena bench`` and ``make bench`` measure.

- :mod:`.referee` — the referee benchmark (pipe floor, per-decision cost, playouts,
  start-up, tournament throughput, deadline overshoot) and its table;
- :mod:`.split` — where a decision's CPU time goes (engine, encoding, pipe, bot, other);
- :mod:`.sandbox` — the sandbox's cost (round trip and start-up, sandboxed and not);
- :mod:`.isolation` — an honest game's slowest decision beside a hostile one;
- :mod:`.swiss_sim` and :mod:`.swiss` — simulated Swiss events and their accuracy table;
- :mod:`.ladder_sim` and :mod:`.ladder` — simulated ladders and the ladder's goals.
- :mod:`.synthetic` — large synthetic results databases of real playout records.

May import everything below the command line; nothing imports a benchmark but ``cli``.
"""

from goatarena.bench.referee import run_bench
from goatarena.bench.sizes import FULL, QUICK, BenchReport, Sizes
from goatarena.bench.table import render_report, report_json

__all__ = ["FULL", "QUICK", "BenchReport", "Sizes", "render_report", "report_json", "run_bench"]
