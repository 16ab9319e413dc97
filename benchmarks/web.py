"""The site under load (``make bench`` runs it): ``goatarena serve`` on a synthetic store
(:mod:`goatarena.bench.synthetic`, the scale benchmark's games), measured from outside
as a browser would ask, on loopback only.

1. Time until the site answers its standings (the store read and fitted once).
2. p95 of ``/api/standings``, a games page at the deepest offset, a game's page and a
   bot's page, each asked ``--requests`` times one after another.
3. A stored game's delay until its event reaches an open event stream.
4. A bounded load test: ``--streams`` clients holding the event stream and ``--fetchers``
   clients fetching pages (``--per-client`` each), all at once: errors, p95, and the
   server's peak memory. Nothing but 127.0.0.1 is ever contacted.
5. The referee's clock beside it: how late a silent bot is cut off (p99 overshoot of
   its deadline, :func:`goatarena.bench.clocks.deadline_overshoots`) with the site
   idle, then during the load test. The site runs niced as ``run --serve`` runs it, and
   so does the load generator (in a real event the clients are elsewhere).
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

import httpx
import trio

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


async def load(address: str, streams: int, fetchers: int, per_client: int,
               paths: list[str]) -> tuple[int, list[float]]:  # fmt: skip
    """The load test: errors and every fetch's time."""
    errors = 0
    times: list[float] = []
    seen: list[str] = []
    limits = httpx.Limits(max_connections=streams + fetchers + 10)
    async with httpx.AsyncClient(base_url=address, timeout=30, limits=limits) as client:
        done = trio.Event()

        async def hold() -> None:
            nonlocal errors
            try:
                async with client.stream("GET", "/api/events") as stream:
                    if stream.status_code != 200:
                        errors += 1
                        return
                    with trio.move_on_after(60):
                        async for _ in stream.aiter_lines():
                            if done.is_set():
                                return
            except httpx.HTTPError as error:
                errors += 1
                seen.append(f"stream: {error!r}")

        async def fetch(seed: int) -> None:
            nonlocal errors
            chooser = random.Random(seed)
            for _ in range(per_client):
                began = time.perf_counter()
                try:
                    answer = await client.get(chooser.choice(paths))
                    if answer.status_code != 200:
                        errors += 1
                        seen.append(f"{answer.status_code} {answer.text[:80]}")
                except httpx.HTTPError as error:
                    errors += 1
                    seen.append(repr(error))
                times.append(time.perf_counter() - began)

        async with trio.open_nursery() as nursery:
            for _ in range(streams):
                nursery.start_soon(hold)
            await trio.sleep(1.0)
            async with trio.open_nursery() as fetching:
                for seed in range(fetchers):
                    fetching.start_soon(fetch, seed)
            done.set()
            nursery.cancel_scope.cancel()
    for kind in sorted(set(seen))[:5]:
        print(f"  error: {kind}")
    return errors, times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--bots", type=int, default=256)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--streams", type=int, default=100)
    parser.add_argument("--fetchers", type=int, default=100)
    parser.add_argument("--per-client", type=int, default=10)
    parser.add_argument("--clock-samples", type=int, default=100)
    parser.add_argument("--quick", action="store_true", help="a small store: the suite's size")
    args = parser.parse_args()
    if args.quick:
        args.games, args.bots, args.requests = 2_000, 16, 40
        args.streams = args.fetchers = 20
        args.clock_samples = 20
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
                }
                print(f"{'route':<22}{'p50 ms':>9}{'p95 ms':>9}   goal")
                for name, path in rows.items():
                    client.get(path)  # the first asking of a game reads and replays it
                    times = timed(client, path, args.requests)
                    print(f"{name:<22}{statistics.median(times) * 1e3:9.1f}"
                          f"{p95(times) * 1e3:9.1f}   {GOALS[name]}")  # fmt: skip
            delay = event_delay(address, db)
            print(f"event delay: {delay:.2f} s   goal {GOALS['event delay']}")
            with contextlib.suppress(OSError):  # as run --serve starts it
                os.setpriority(os.PRIO_PROCESS, child.pid, SITE_NICENESS)
            idle_clock = p99_ms(overshoots(args.clock_samples))
            paths = ["/", "/api/standings", f"/games?page={deep}", f"/bots/{bot}",
                     "/api/games?limit=50", f"/games/{total // 3}"]  # fmt: skip
            clock = overshoots(args.clock_samples)
            os.nice(SITE_NICENESS)  # the load generator too; the referee keeps its priority
            began, cpu = time.perf_counter(), cpu_seconds(child.pid)
            errors, times = trio.run(load, address, args.streams, args.fetchers,
                                     args.per_client, paths)  # fmt: skip
            print(
                f"load: {args.streams} streams + {args.fetchers} fetchers x {args.per_client}:"
                f" {errors} errors, p50 {statistics.median(times) * 1e3:.0f} ms,"
                f" p95 {p95(times) * 1e3:.0f} ms, in {time.perf_counter() - began:.1f} s"
                f" (the server's CPU: {cpu_seconds(child.pid) - cpu:.1f} s);"
                f" server peak {peak_mb(child.pid):.0f} MB   goal {GOALS['load']}"
            )
            loaded_clock = p99_ms(clock)
            print(f"referee clock, p99 overshoot: {idle_clock:.2f} ms with the site idle,"
                  f" {loaded_clock:.2f} ms under the load   goal {GOALS['clock']}")  # fmt: skip
        finally:
            child.send_signal(signal.SIGINT)
            child.wait(timeout=30)


if __name__ == "__main__":
    main()
