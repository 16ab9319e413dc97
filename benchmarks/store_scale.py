"""How the readers of a results database scale: ``standings``, ``list`` (first line and
whole), ``export`` and ``report`` of synthetic stores of 10,000 to 1,000,000 games.

The stores are built by :func:`goatarena.bench.synthetic.build_store` (real playout
records dealt to new seatings) under ``--folder`` and kept there for the next run. Each
command runs in its own process; the table gives its wall time, CPU time (user + system,
what a loaded machine does not inflate) and peak RSS, from ``wait4``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from goatarena.bench.synthetic import build_store  # noqa: E402

SIZES = {"10k": (10_000, 64, 2), "40k": (40_000, 256, 4), "200k": (200_000, 256, 4),
         "1M": (1_000_000, 256, 4)}  # fmt: skip
"""Name -> (games, bots, seats)."""
COMMANDS = {
    "standings": ["standings"],
    "list": ["list"],
    "export jsonl": ["export"],
    "export csv": ["export", "--format", "csv"],
    "report": ["report", "-o", os.devnull],
}


def goatarena(args: list[str]) -> list[str]:
    """The command line of ``goatarena`` with ``args``."""
    return [sys.executable, "-m", "goatarena", *args]


def measure(args: list[str], *, first_line: bool = False) -> tuple[float, float, float]:
    """Wall s, CPU s and peak RSS MB of one command (to its first output line, if asked)."""
    started = time.perf_counter()
    process = subprocess.Popen(goatarena(args), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert process.stdout is not None
    if first_line:
        process.stdout.readline()
        wall = time.perf_counter() - started
        process.kill()
    else:
        for _ in process.stdout:
            pass
    _, status, usage = os.wait4(process.pid, 0)
    if not first_line:
        wall = time.perf_counter() - started
        if status:
            raise SystemExit(f"{' '.join(args)} failed with status {status}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    """Build the stores that are missing, then time every reader on each."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="*", default=["10k", "40k", "200k"], choices=SIZES)
    parser.add_argument("--commands", nargs="*", default=list(COMMANDS), choices=COMMANDS)
    parser.add_argument("--folder", type=Path, default=Path("/tmp/goatarena-scale"))
    args = parser.parse_args()
    args.folder.mkdir(parents=True, exist_ok=True)
    print(f"{'store':>6} {'command':<14} {'wall s':>8} {'cpu s':>8} {'peak MB':>8}")
    for size in args.sizes:
        games, bots, seats = SIZES[size]
        db = args.folder / f"{size}-{bots}bots-{seats}seats.sqlite"
        if not db.exists():
            started = time.process_time()
            build_store(db, games, bots=bots, players=seats)
            built = time.process_time() - started
            print(
                f"{size:>6} {'(built)':<14} {'':>8} {built:>8.1f} {db.stat().st_size / 1e6:>7.0f}M"
            )
        if "list" in args.commands:
            wall, cpu, rss = measure(["list", "--db", str(db)], first_line=True)
            print(
                f"{size:>6} {'list 1st line':<14} {wall:>8.2f} {cpu:>8.2f} {rss:>8.0f}", flush=True
            )
        for name in args.commands:
            wall, cpu, rss = measure([*COMMANDS[name], "--db", str(db)])
            print(f"{size:>6} {name:<14} {wall:>8.2f} {cpu:>8.2f} {rss:>8.0f}", flush=True)


if __name__ == "__main__":
    main()
