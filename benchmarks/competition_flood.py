"""Submissions flooding a competition while its ladder plays (``make bench`` runs it): the
goal "100 submissions in an hour from 20 entrants while the ladder plays: none lost, the
site's p95 within the site's goal", compressed into minutes.

``goatarena run FILE --serve`` plays a ladder of Mountain Goats (two reference bots, then
each entrant's version) and serves the competition. ``--entrants`` entrants (20) each
upload the Python kit ``--each`` times (5) in a row over the API, all entrants at once,
as fast as the server takes them (a 429 while the server takes other uploads is retried
a second later); each submission is followed until it is active or failed. Meanwhile a
reader fetches the leaderboard, ``/api/standings`` and ``/competition`` in turn, four
times a second. Reported: submissions acknowledged, active, failed, and lost (an
acknowledged submission that the entrant's list lacks, or that never finished within
``--limit-s``); the site's p50 and p95 and errors; games the ladder played meanwhile.
The goal for the site is the load test's (benchmarks/web.py): p95 within 200 ms.

The referee's clock beside it, as benchmarks/web.py measures it: a referee cutting off a
silent bot (30 ms a move), in a process of its own, ``--clock-samples`` times while the
ladder plays before the flood, then again and again for as long as the flood runs; the
p50 and p99 of how late each cut-off came, and how many there were (goal: the flood adds
at most a millisecond to the p99).

``--quick`` is a shorter run with the same shape (6 entrants, 3 submissions each, 200
cut-offs before the flood): two or three minutes on two cores, for comparing changes.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from goatarena.competition.entrants import add_entrant
from goatarena.competition.pipeline import Competition
from goatarena.competition.uploads import pack_folder

KIT = Path(__file__).resolve().parent.parent / "goatarena" / "kits" / "python"
FILE = """\
name = "flood"
format = "ladder"
[time]
move_ms = 300
[bots]
random = "builtin:random"
greedy = "builtin:greedy"
[competition]
languages = ["python"]
per_day = 1000
active_versions = 1
compare_games = 0
validation_games = 1
[[games]]
name = "mountain-goats"
players = 2
"""
SITE_GOAL_MS = 200.0
CLOCK_GOAL_MS = 1.0
OVERSHOOTS = (
    "import json, sys, trio; from goatarena.bench.clocks import deadline_overshoots\n"
    "left = int(sys.argv[1])\n"
    "while left != 0:\n"
    "    for late in trio.run(deadline_overshoots, 10 if left < 0 else min(left, 10), 30):\n"
    "        print(json.dumps(late), flush=True)\n"
    "    left = left if left < 0 else max(left - 10, 0)\n"
)
"""Prints how late each cut-off came, in seconds, one a line: ``samples`` of them, or (-1)
until stopped."""
QUICK = {"entrants": 6, "each": 3, "clock_samples": 200}


class Clock:
    """The referee's clock measured in a process of its own: how late each cut-off came."""

    def __init__(self, samples: int) -> None:
        self.process = subprocess.Popen([sys.executable, "-c", OVERSHOOTS, str(samples)],
                                        stdout=subprocess.PIPE, text=True)  # fmt: skip
        self.overshoots: list[float] = []
        self.reading = threading.Thread(target=self._read)
        self.reading.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.overshoots.append(float(line) * 1e3)

    def finished(self) -> list[float]:
        """The overshoots, ms, once its samples are all taken."""
        self.process.wait(timeout=1200)
        self.reading.join()
        return self.overshoots

    def stopped(self) -> list[float]:
        """The overshoots, ms, so far (a cut-off being measured is left out)."""
        taken = list(self.overshoots)
        self.process.terminate()
        self.process.wait(timeout=30)
        self.reading.join()
        return taken


def clock_lines(alone: list[float], flood: list[float]) -> list[str]:
    """The clock's figures as a small table, with the goal's verdict."""
    lines = ["referee clock: how late a silent bot's cut-off came (30 ms a move), ms",
             f"  {'':<16}{'cut-offs':>9}{'p50':>8}{'p99':>8}"]  # fmt: skip
    p99s = []
    for label, taken in (("ladder alone", alone), ("ladder + flood", flood)):
        if len(taken) < 2:
            lines.append(f"  {label:<16}{len(taken):>9}  (too few to judge)")
            continue
        p99s.append(statistics.quantiles(taken, n=100)[-1])
        lines.append(f"  {label:<16}{len(taken):>9}{statistics.median(taken):>8.1f}"
                     f"{p99s[-1]:>8.1f}")  # fmt: skip
    if len(p99s) == 2:
        verdict = "met" if p99s[1] <= p99s[0] + CLOCK_GOAL_MS else "MISSED"
        lines.append(f"  goal: the flood adds at most {CLOCK_GOAL_MS:g} ms to the p99"
                     f" ({p99s[1] - p99s[0]:+.1f} ms): {verdict}")  # fmt: skip
    return lines


READ_PATHS = ("/", "/api/standings", "/competition")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def games_stored(client: httpx.Client) -> int:
    return int(client.get("/api/games", params={"limit": 1}).json()["total"])


class Reader:
    """Fetches the site's pages in turn until stopped; their times and errors."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.times: list[float] = []
        self.by_path: dict[str, list[float]] = {path: [] for path in READ_PATHS}
        self.errors = 0
        self.kinds: dict[str, int] = {}
        self.stop = threading.Event()

    def run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=30) as client:
            turn = 0
            while not self.stop.is_set():
                path = READ_PATHS[turn % len(READ_PATHS)]
                began = time.perf_counter()
                try:
                    kind = f"{path} {client.get(path).status_code}"
                except httpx.HTTPError as error:
                    kind = f"{path} {type(error).__name__}"
                self.times.append(time.perf_counter() - began)
                self.by_path[path].append(self.times[-1])
                if kind == "/api/standings 503":
                    # The site's documented answer while it computes the standings afresh.
                    self.kinds[kind] = self.kinds.get(kind, 0) + 1
                elif not kind.endswith(" 200"):
                    self.errors += 1
                    self.kinds[kind] = self.kinds.get(kind, 0) + 1
                turn += 1
                self.stop.wait(0.25)


def submit_and_follow(
    url: str, token: str, archive: bytes, deadline: float
) -> tuple[int | None, str, float]:
    """One submission: its number (None: never acknowledged), its last state, seconds."""
    auth = {"Authorization": f"Bearer {token}"}
    began = time.perf_counter()
    with httpx.Client(base_url=url, timeout=60, headers=auth) as client:
        number = None
        while number is None and time.monotonic() < deadline:
            answer = client.post("/api/submissions", params={"language": "python"}, content=archive)
            if answer.status_code == 202:
                number = int(answer.json()["submission"])
            elif answer.status_code == 429:
                time.sleep(1)
            else:
                return None, f"refused {answer.status_code}: {answer.text[:200]}", 0.0
        state = "not acknowledged"
        while number is not None and time.monotonic() < deadline:
            said = client.get(f"/api/submissions/{number}").json()
            state = str(said["state"])
            if state == "failed":
                return number, f"failed: {said.get('reason')}", time.perf_counter() - began
            if state == "active":
                break
            time.sleep(1)
    return number, state, time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entrants", type=int, default=20)
    parser.add_argument("--each", type=int, default=5)
    parser.add_argument("--limit-s", type=float, default=1200.0, help="the most it may take")
    parser.add_argument("--clock-samples", type=int, default=300,
                        help="cut-offs timed with the ladder alone")  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="a shorter run: " +
                        ", ".join(f"--{key.replace('_', '-')} {value}"
                                  for key, value in QUICK.items()))  # fmt: skip
    options = parser.parse_args()
    if options.quick:
        vars(options).update(QUICK)
    with tempfile.TemporaryDirectory(prefix="goatarena-bench-flood-") as scratch:
        folder = Path(scratch)
        file = folder / "flood.toml"
        file.write_text(FILE)
        competition = Competition(file, folder / "results" / "flood.sqlite")  # as run's
        names = [f"entrant{n:02d}" for n in range(options.entrants)]
        tokens = {name: add_entrant(competition.store, name) for name in names}
        competition.close()
        archive = pack_folder(KIT)
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        runner = subprocess.Popen(
            [sys.executable, "-m", "goatarena", "run", str(file), "--serve", str(port)],
            cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        reader = Reader(url)
        try:
            client = httpx.Client(base_url=url, timeout=30)
            for _ in range(120):
                try:
                    if client.get("/api/games", params={"limit": 1}).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                time.sleep(0.5)
            alone = Clock(options.clock_samples).finished()
            games_before = games_stored(client)
            watching = threading.Thread(target=reader.run)
            watching.start()
            deadline = time.monotonic() + options.limit_s
            began = time.perf_counter()

            def entrant(name: str) -> list[tuple[int | None, str, float]]:
                return [
                    submit_and_follow(url, tokens[name], archive, deadline)
                    for _ in range(options.each)
                ]

            with ThreadPoolExecutor(max_workers=options.entrants) as pool:
                flooding = pool.map(entrant, names)
                during = Clock(-1)
                outcomes = {name: done for name, done in zip(names, flooding)}
            flood = during.stopped()
            whole = time.perf_counter() - began
            reader.stop.set()
            watching.join()
            games_during = games_stored(client) - games_before
            listed = set()
            for name in names:
                auth = {"Authorization": f"Bearer {tokens[name]}"}
                mine = client.get("/api/submissions", headers=auth).json()
                if not isinstance(mine, list):
                    print(f"{name}'s submissions could not be listed: {mine}")
                    continue
                listed |= {int(submission["number"]) for submission in mine}
        finally:
            reader.stop.set()
            runner.terminate()
            runner.wait(timeout=30)
        report(options, outcomes, listed, whole, reader, games_during)
        print("\n".join(clock_lines(alone, flood)))


def report(
    options: argparse.Namespace,
    outcomes: dict[str, list[tuple[int | None, str, float]]],
    listed: set[int],
    whole: float,
    reader: Reader,
    games_during: int,
) -> None:
    every = [done for each in outcomes.values() for done in each]
    acknowledged = [number for number, _, _ in every if number is not None]
    active = [done for done in every if done[1] == "active"]
    failed = [done for done in every if done[1].startswith("failed")]
    finished = [number for number, state, _ in every if state == "active" or
                state.startswith("failed")]  # fmt: skip
    lost = [number for number in acknowledged if number not in listed or number not in finished]
    never = len(every) - len(acknowledged)
    seconds = sorted(done[2] for done in active)
    print(f"{len(every)} submissions from {options.entrants} entrants while the ladder played:"
          f" {whole:.0f} s in all ({len(every) / whole * 3600:.0f} an hour);"
          f" acknowledged {len(acknowledged)}, active {len(active)}, failed {len(failed)},"
          f" lost {len(lost)}, never acknowledged {never}")  # fmt: skip
    if seconds:
        print(f"  upload to active: median {statistics.median(seconds):.0f} s,"
              f" longest {seconds[-1]:.0f} s (queued behind the others' builds)")  # fmt: skip
    for number, state, _ in every:
        if state != "active":
            print(f"  #{number}: {state}")
    times = sorted(reader.times)
    if len(times) >= 2:
        p50 = statistics.median(times) * 1e3
        p95 = statistics.quantiles(times, n=20)[-1] * 1e3
        verdict = "met" if p95 <= SITE_GOAL_MS and reader.errors == 0 else "MISSED"
        print(f"site meanwhile: {len(times)} requests, p50 {p50:.0f} ms, p95 {p95:.0f} ms,"
              f" {reader.errors} errors: goal p95 <= {SITE_GOAL_MS:g} ms {verdict}")  # fmt: skip
        for path, taken in reader.by_path.items():
            if len(taken) >= 2:
                print(f"  {path}: p50 {statistics.median(taken) * 1e3:.0f} ms,"
                      f" p95 {statistics.quantiles(taken, n=20)[-1] * 1e3:.0f} ms")  # fmt: skip
        for kind, count in sorted(reader.kinds.items()):
            said = " (the standings being computed: not an error)" if "503" in kind else ""
            print(f"  {kind}: {count}{said}")
    print(f"ladder meanwhile: {games_during} games stored")
    verdict = "met" if not lost and never == 0 else "MISSED"
    print(f"none lost: {verdict}")


if __name__ == "__main__":
    main()
