"""The site under load (``make bench`` runs it): ``goatarena serve`` on a synthetic store
(:mod:`goatarena.bench.synthetic`, the scale benchmark's games), measured from outside
as a browser would ask, on loopback only.

1. Time until the site answers its standings (the store read and fitted once).
2. p95 of ``/api/standings``, a games page at the deepest offset, a game's page and a
   bot's page, each asked ``--requests`` times one after another.
3. A stored game's delay until its event reaches an open event stream.
4. A bounded load test, the site at the priority ``goatarena serve`` runs at:
   ``--streams`` clients holding the event stream and ``--fetchers`` clients fetching
   ``--per-client`` pages each, every client on its own keep-alive connection, in
   :data:`LOAD_PROCESSES` processes of their own (:mod:`benchmarks.web_load`), each
   fetch timed from its request's first byte to its answer's last. Twice: browsing
   (each client arrives at a random moment and pauses ``--pause`` s on average before
   each page) and flat out (no pause: 100 clients in a closed loop queue at the site,
   so their latency is 100 / the site's throughput). Errors, p50, p95, throughput, the
   CPU of the server and of the clients, and the server's peak memory. Nothing but
   127.0.0.1 is ever contacted.
5. The referee's clock beside it: how late a silent bot is cut off (p99 overshoot of
   its deadline, :func:`goatarena.bench.clocks.deadline_overshoots`, a referee in a
   process of its own at the usual priority) with the site idle and under the browsing
   load, in ``--clock-rounds`` rounds that alternate which comes first; the medians,
   the spread and the difference. The site runs niced as ``run --serve`` runs it, and
   so do the load's clients (in a real event the clients are elsewhere).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from goatarena.bench.synthetic import build_store, synthetic_games  # noqa: E402
from goatarena.store.opening import open_store  # noqa: E402
from goatarena.web.server import SITE_NICENESS  # noqa: E402

GOALS = {
    "standings": "p95 <= 50 ms",
    "games page, deepest": "p95 <= 50 ms",
    "game page": "p95 <= 50 ms",
    "bot page": "p95 <= 50 ms",
    "games page, 2 filters": "p95 <= 50 ms",
    "head to head": "p95 <= 50 ms",
    "event delay": "<= 2 s",
    "load": "no errors, p95 <= 200 ms, server <= 300 MB",
    "clock": "p99 overshoot under load within 1 ms of idle",
}

OVERSHOOTS = (
    "import json, sys, trio; from goatarena.bench.clocks import deadline_overshoots;"
    " print(json.dumps(trio.run(deadline_overshoots, int(sys.argv[1]), 30)))"
)
"""A referee cutting off a silent bot ``argv[1]`` times at 30 ms a move, in a process of
its own at the usual priority; prints the overshoots (seconds)."""


def overshoots(samples: int) -> subprocess.Popen[str]:
    """The referee's clock measured in a process of its own (see :data:`OVERSHOOTS`)."""
    return subprocess.Popen([sys.executable, "-c", OVERSHOOTS, str(samples)],
                            stdout=subprocess.PIPE, text=True, cwd=ROOT)  # fmt: skip


def p99_ms(process: subprocess.Popen[str]) -> float:
    """The p99 overshoot, ms, of a finished :func:`overshoots` process."""
    out, _ = process.communicate(timeout=600)
    values = json.loads(out)
    return statistics.quantiles(values, n=100)[-1] * 1e3


def p95(values: list[float]) -> float:
    """The 95th percentile of ``values``."""
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else values[0]


def start(db: Path) -> tuple[subprocess.Popen[str], str]:
    child = subprocess.Popen(
        [sys.executable, "-m", "goatarena", "serve", "--db", str(db), "--port", "0"],
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert child.stderr is not None
    line = child.stderr.readline()
    found = re.search(r"at (http://127\.0\.0\.1:\d+);", line)
    if not found:
        child.kill()
        raise SystemExit(f"the site did not start: {line}{child.stderr.read()}")
    return child, found.group(1)


def peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    """The CPU time process ``pid`` has used (user and system)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(client: httpx.Client, path: str, count: int) -> list[float]:
    times = []
    for _ in range(count):
        began = time.perf_counter()
        answer = client.get(path)
        times.append(time.perf_counter() - began)
        if answer.status_code != 200:
            raise SystemExit(f"{path}: {answer.status_code} {answer.text[:200]}")
    return times


def event_delay(address: str, db: Path) -> float:
    """Seconds from storing a game to its event on an open stream."""
    with (
        httpx.Client(base_url=address, timeout=30) as client,
        client.stream("GET", "/api/events") as stream,
    ):
        lines = stream.iter_lines()
        next(lines)  # the stream is open
        key, number, result = next(iter(synthetic_games(1, bots=16, seed=99)))
        store = open_store(db)
        began = time.perf_counter()
        store.add_game(f"bench/{time.time()}/{key}", number, result)
        store.close()
        for line in lines:
            if line == "event: game":
                return time.perf_counter() - began
    return float("nan")


LOAD_PROCESSES = 4
"""How many processes share the load generator's clients (:mod:`benchmarks.web_load`)."""


class Load:
    """The load generator, :data:`LOAD_PROCESSES` processes of :mod:`benchmarks.web_load`
    sharing the streams and the fetching clients, started with every stream open."""

    def __init__(self, address: str, streams: int, fetchers: int, per_client: int,
                 pause: float, paths: list[list[str]], niceness: int = 0) -> None:  # fmt: skip
        host, port = address.removeprefix("http://").rsplit(":", 1)
        self.workers = []
        for number in range(LOAD_PROCESSES):
            share = [total // LOAD_PROCESSES + (number < total % LOAD_PROCESSES)
                     for total in (streams, fetchers)]  # fmt: skip
            command = [sys.executable, str(ROOT / "benchmarks" / "web_load.py"),
                       "--host", host, "--port", port, "--streams", str(share[0]),
                       "--fetchers", str(share[1]), "--per-client", str(per_client),
                       "--pause", str(pause), "--seed", str(number),
                       "--paths", json.dumps(paths)]  # fmt: skip
            self.workers.append(subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                preexec_fn=(lambda: os.nice(niceness)) if niceness else None))  # fmt: skip
        for worker in self.workers:
            assert worker.stdout is not None
            if worker.stdout.readline().strip() != "ready":
                raise SystemExit("a load generator did not start")

    def go(self) -> None:
        """Start fetching."""
        for worker in self.workers:
            assert worker.stdin is not None
            worker.stdin.write("go\n")
            worker.stdin.flush()

    def finish(self, *, stop: bool = False) -> dict[str, Any]:
        """Wait for the fetches (or stop them with ``stop``); the findings of them all."""
        found: dict[str, Any] = {"errors": [], "times": [], "cpu": 0.0, "wall": 0.0, "streams": 0}
        for worker in self.workers:
            assert worker.stdin is not None
            if stop:
                worker.stdin.write("stop\n")
                worker.stdin.flush()
            out, _ = worker.communicate(timeout=600)
            part = json.loads(out.splitlines()[-1])
            found["errors"] += part["errors"]
            found["times"] += part["times"]
            found["cpu"] += part["cpu"]
            found["wall"] = max(found["wall"], part["wall"])
            found["streams"] += part["streams"]
        return found


def load_line(found: dict[str, Any], server_cpu: float) -> str:
    """One line of a load test's findings."""
    times = found["times"]
    kinds = sorted(set(found["errors"]))[:3]
    return (f"{len(found['errors'])} errors{' (' + '; '.join(kinds) + ')' if kinds else ''},"
            f" {found['streams']} streams open, {len(times)} fetches in {found['wall']:.1f} s"
            f" ({len(times) / max(found['wall'], 1e-9):.0f}/s),"
            f" p50 {statistics.median(times) * 1e3:.0f} ms,"
            f" p95 {p95(times) * 1e3:.0f} ms; CPU: the server {server_cpu:.1f} s,"
            f" the clients {found['cpu']:.1f} s; load average"
            f" {os.getloadavg()[0]:.1f}")  # fmt: skip


def spread(values: list[float]) -> str:
    """A median with the smallest and largest value."""
    return f"{statistics.median(values):.2f} ms ({min(values):.2f}-{max(values):.2f})"


def load_paths(address: str, total: int) -> list[list[str]]:
    """What the load's clients ask, by kind (each kind as likely): the leaderboard, the
    standings' JSON, games pages at any depth, any bot's page, pages of the games' JSON
    after any game, and any of 200 games' pages (most asked once: read and replayed)."""
    chooser = random.Random(7)
    with httpx.Client(base_url=address, timeout=60) as client:
        bots = [row["bot"] for row in client.get("/api/standings").json()["standings"]["overall"]]
    pages = (total - 1) // 50 + 1
    return [
        ["/"],
        ["/api/standings"],
        [f"/games?page={chooser.randrange(pages)}" for _ in range(50)],
        [f"/bots/{name}" for name in bots],
        [f"/api/games?limit=50&after={chooser.randrange(total)}" for _ in range(50)],
        [f"/games/{chooser.randint(1, total)}" for _ in range(200)],
    ]


def load_test(pid: int, address: str, paths: list[list[str]], args: argparse.Namespace) -> None:
    """The load test, at the priority ``goatarena serve`` runs at: the clients browsing
    (a pause of ``--pause`` s on average between a client's pages), then flat out."""
    for name, pause in (("browsing", args.pause), ("flat out", 0.0)):
        generator = Load(address, args.streams, args.fetchers, args.per_client, pause, paths)
        cpu = cpu_seconds(pid)
        generator.go()
        found = generator.finish()
        print(f"load, {name}: {args.streams} streams + {args.fetchers} clients x"
              f" {args.per_client}: {load_line(found, cpu_seconds(pid) - cpu)}")  # fmt: skip
    print(f"server peak {peak_mb(pid):.0f} MB   goal {GOALS['load']}")


def clock_test(pid: int, address: str, paths: list[list[str]], args: argparse.Namespace) -> None:
    """The referee's clock with the site idle and under the browsing load, in turns
    (idle first in even rounds, loaded first in odd ones); the site and its clients
    niced as ``run --serve`` nices the site, the referee at the usual priority."""
    with contextlib.suppress(OSError):  # as run --serve starts it
        os.setpriority(os.PRIO_PROCESS, pid, SITE_NICENESS)
    niceness = os.getpriority(os.PRIO_PROCESS, pid)
    if niceness < SITE_NICENESS:
        raise SystemExit(f"the site runs at niceness {niceness}, not {SITE_NICENESS}")
    idle: list[float] = []
    loaded: list[float] = []
    rates: list[float] = []
    errors = 0
    for round_number in range(args.clock_rounds):
        for under_load in (False, True) if round_number % 2 == 0 else (True, False):
            generator = None
            if under_load:
                generator = Load(address, args.streams, args.fetchers, 10**6, args.pause,
                                 paths, niceness=SITE_NICENESS)  # fmt: skip
                generator.go()
            clock = p99_ms(overshoots(args.clock_samples))
            if generator is not None:
                found = generator.finish(stop=True)
                rates.append(len(found["times"]) / max(found["wall"], 1e-9))
                errors += len(found["errors"])
            (loaded if under_load else idle).append(clock)
    print(f"referee clock (the site at niceness {niceness}, the referee at"
          f" {os.getpriority(os.PRIO_PROCESS, 0)}), p99 overshoot over {args.clock_rounds}"
          f" rounds of"
          f" {args.clock_samples} cut-offs: site idle {spread(idle)}, under the browsing load"
          f" {spread(loaded)} ({statistics.median(rates):.0f} fetches/s, {errors} errors);"
          f" median difference {statistics.median(loaded) - statistics.median(idle):+.2f} ms,"
          f" idle runs spread over {max(idle) - min(idle):.2f} ms"
          f"   goal {GOALS['clock']}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--bots", type=int, default=256)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--streams", type=int, default=100)
    parser.add_argument("--fetchers", type=int, default=100)
    parser.add_argument("--per-client", type=int, default=10)
    parser.add_argument("--pause", type=float, default=1.0,
                        help="a browsing client's mean pause between pages, s")  # fmt: skip
    parser.add_argument("--clock-samples", type=int, default=100)
    parser.add_argument("--clock-rounds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="a small store: the suite's size")
    parser.add_argument(
        "--routes-only", action="store_true", help="the start, the routes, the event delay only"
    )
    args = parser.parse_args()
    if args.quick:
        args.games, args.bots, args.requests = 2_000, 16, 40
        args.streams = args.fetchers = 20
        args.clock_samples, args.clock_rounds = 20, 1
    with tempfile.TemporaryDirectory(prefix="goatarena-web-") as folder:
        db = Path(folder) / "web.sqlite"
        began = time.perf_counter()
        build_store(db, args.games, bots=args.bots)
        print(f"store: {args.games:,} games, {args.bots} bots, built in"
              f" {time.perf_counter() - began:.0f} s")  # fmt: skip
        began = time.perf_counter()
        child, address = start(db)
        try:
            with httpx.Client(base_url=address, timeout=120) as client:
                while client.get("/api/standings").status_code != 200:
                    time.sleep(0.1)
                fitted = time.perf_counter() - began
                while client.get("/api/games?limit=1").json()["total"] < args.games:
                    time.sleep(0.1)
                print(f"ready: standings fitted in {fitted:.1f} s, every game in the index"
                      f" in {time.perf_counter() - began:.1f} s,"
                      f" server {peak_mb(child.pid):.0f} MB")  # fmt: skip
                bot = client.get("/api/standings").json()["standings"]["overall"][0]["bot"]
                total = client.get("/api/games?limit=1").json()["total"]
                deep = (total - 1) // 50
                rows = {
                    "standings": "/api/standings",
                    "games page, deepest": f"/games?page={deep}",
                    "game page": f"/games/{total // 2}",
                    "bot page": f"/bots/{bot}",
                    "games page, 2 filters": f"/games?bot={bot}&game=goat-lords",
                    "head to head": "/head-to-head",
                }
                print(f"{'route':<22}{'p50 ms':>9}{'p95 ms':>9}   goal")
                for name, path in rows.items():
                    first = timed(client, path, 1)[0]  # a game is read and replayed at first
                    if name == "head to head":  # counted once for each game stored
                        print(f"{'head to head, first':<22}{first * 1e3:9.1f}")
                    times = timed(client, path, args.requests)
                    print(f"{name:<22}{statistics.median(times) * 1e3:9.1f}"
                          f"{p95(times) * 1e3:9.1f}   {GOALS[name]}")  # fmt: skip
            delay = event_delay(address, db)
            print(f"event delay: {delay:.2f} s   goal {GOALS['event delay']}")
            print(f"server {peak_mb(child.pid):.0f} MB at most so far")
            if args.routes_only:
                return
            paths = load_paths(address, total)
            load_test(child.pid, address, paths, args)
            clock_test(child.pid, address, paths, args)
        finally:
            child.send_signal(signal.SIGINT)
            child.wait(timeout=30)


if __name__ == "__main__":
    main()
