"""How goatarena grows: time and peak memory of every reader, the fit, a Swiss round and
a run, against stores of 10k / 100k / 1M games and fields of 16 / 256 / 1,000 / 10,000
bots (``make bench`` runs it; ``--quick`` is the suite's smoke-test size).

Every step runs in a child process of its own, as a user would run it: the CLI commands
(``standings``, ``list``, ``export``, ``report``, ``run``) as commands, the fit and the
Swiss pairing as a short program. Its time is the child's wall time (the ``list`` first
line: until its first line of output) and its peak memory the child's peak resident set
(``wait4``'s ``ru_maxrss``). A step that runs past ``--timeout`` or its memory cap is
stopped and shown as such, so the table is printed whatever a reader does. The goal of
each row is printed beside it (the goals of issue 24, for a 2-core machine).

The stores are synthetic (:mod:`goatarena.bench.synthetic`): real playout records dealt
to new seatings, four seats a table. A 1,000,000-game store takes some gigabytes and
minutes to build: each is built once, measured, and deleted before the next.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from goatarena.bench.synthetic import build_store  # noqa: E402

GOATARENA = [sys.executable, "-m", "goatarena"]

GOALS = {
    "standings": "1M games, 256 bots: <= 15 s, <= 1 GB",
    "list first line": "<= 1 s at any size",
    "list": "streams: memory flat in games",
    "export": "streams: memory flat in games",
    "report": "1M games: <= 60 s",
    "fit": "1,000 bots <= 1 s; 10,000 bots (50 games each) <= 60 s",
    "swiss round": "1,000 bots <= 3 s",
    "run: first game": "1M-game file: <= 5 s, <= 300 MB",
    "run: Ctrl-C at once": "<= 1 s",
    "run: Ctrl-C while starting": "<= 1 s",
    "run: Ctrl-C while playing": "<= 1 s",
    "run: RSS growth": "RSS at 100k games <= 1.5 x RSS at 5k",
}
"""Each row's goal, printed beside it."""


@dataclass
class Measure:
    """One step: wall seconds, peak RSS in MB, and how it ended (``ok``, ``timeout``,
    ``out of memory``, ``exit N``); ``detail`` is what the step itself reported."""

    seconds: float
    peak_mb: float
    status: str = "ok"
    detail: str = ""

    def cell(self) -> str:
        """The time and memory as one table cell."""
        shown = f"{self.seconds:.2f} s, {self.peak_mb:.0f} MB"
        extra = f" ({self.detail})" if self.detail else ""
        return shown + extra if self.status == "ok" else f"{self.status} after {shown}"


def limit_memory(cap_mb: int) -> None:
    """In the child: cap its address space, so that a reader that blows up ends in a
    MemoryError (one line, we hope) instead of taking the machine down."""
    cap = cap_mb << 20
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def child(
    argv: list[str],
    *,
    timeout_s: float,
    cap_mb: int,
    cwd: Path,
    first_line: bool = False,
) -> Measure:
    """Run ``argv``, timing it (or its first line of output) and taking its peak RSS."""
    started = time.monotonic()
    process = _Popen(
        argv,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: limit_memory(cap_mb),
    )
    assert process.stdout is not None and process.stderr is not None
    took: float | None = None
    output = b""
    if first_line:
        os.set_blocking(process.stdout.fileno(), True)
        line = process.stdout.readline()
        took = time.monotonic() - started
        output = line
        process.kill()  # the rest of the list is measured by the whole-list step
    status = "ok"
    try:
        rest, errors = process.communicate(timeout=max(timeout_s - (time.monotonic() - started), 1))
        output += rest
    except subprocess.TimeoutExpired:
        process.kill()
        status = "timeout"
        rest, errors = process.communicate()
    seconds = took if took is not None else time.monotonic() - started
    peak_mb = _peak_mb(process)
    if status == "ok" and process.returncode and not first_line:
        status = (
            "out of memory"
            if b"out of memory" in errors or b"MemoryError" in errors
            else (f"exit {process.returncode}")
        )
    detail = ""
    if status == "ok" and output.strip().startswith(b"{"):
        # A program step reports the time of the part it measures, and what it measured.
        reported = json.loads(output.strip().splitlines()[-1])
        seconds, detail = reported["seconds"] or seconds, reported["detail"]
    return Measure(seconds, peak_mb, status, detail)


_PEAKS: dict[int, float] = {}


def _peak_mb(process: subprocess.Popen[bytes]) -> float:
    """The child's peak RSS, from the rusage of its own wait (taken by Popen already)."""
    return _PEAKS.pop(process.pid, 0.0)


class _Popen(subprocess.Popen):  # type: ignore[type-arg]
    """A Popen that reaps with ``wait4`` and keeps the child's peak RSS."""

    def _try_wait(self, wait_flags: int) -> tuple[int, int]:
        try:
            pid, status, usage = os.wait4(self.pid, wait_flags)
        except ChildProcessError:
            return self.pid, 0
        if pid == self.pid:
            _PEAKS[pid] = usage.ru_maxrss / 1024
        return pid, status


# -- the steps run as programs --------------------------------------------------------------

FIT_PROGRAM = """
import json, random, sys, time
from goatarena.ratings.fit import fit
bots, per_bot = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(1)
strength = [rng.gauss(0, 1) for _ in range(bots)]
games = []
for _ in range(bots * per_bot // 2):
    a, b = rng.sample(range(bots), 2)
    a_wins = rng.random() < 1 / (1 + 10 ** (strength[b] - strength[a]))
    games.append({f"b{a}": 1 if a_wins else 2, f"b{b}": 2 if a_wins else 1})
started = time.perf_counter()
result = fit(games)
took = time.perf_counter() - started
assert len(result.ratings) == bots
print(json.dumps({"seconds": took, "detail": f"{len(games):,} games"}))
"""

SWISS_PROGRAM = """
import json, sys, time
from collections import defaultdict
from goatarena.bench.synthetic import bot_names
from goatarena.formats.swiss_rounds import SwissEvent, pair_round
from goatarena.store.opening import open_store
db, bots, game = sys.argv[1], int(sys.argv[2]), sys.argv[3]
started = time.perf_counter()
store = open_store(__import__("pathlib").Path(db), create=False)
stored = list(store.summaries(game=game))
event = SwissEvent(f"0.{game}.2p", bot_names(bots), 2, 5, defaultdict(int))
pairing = pair_round(event, stored, seed=1)
took = time.perf_counter() - started
assert len(pairing.tables) == bots // 2
print(json.dumps({"seconds": took, "detail": f"after {len(stored):,} games"}))
"""

RUNNER_GROWTH_PROGRAM = """
import json, sys
from contextlib import asynccontextmanager
from pathlib import Path
import trio
from goatarena.formats.config import GameEntry, TournamentConfig
from goatarena.referee.match import MatchResult
from goatarena.running import runner as runner_module
from goatarena.running.job import JobOutcome
from goatarena.running.leaderboard import Leaderboard
from goatarena.running.progress import Progress
from goatarena.running.runner import Runner
from goatarena.store.opening import open_store

early, late, db = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
bots = {f"bot{i:02d}": "none" for i in range(16)}
deals = -(-late // (120 * 2))  # 120 tables of two, two rotations a deal
config = TournamentConfig(name="growth", bots=bots, games=[GameEntry(name="mountain-goats")],
                          deals=deals, sandbox="none", concurrency=2)

def rss_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024

seen = {}

class Simulated:
    '''Plays every job at once: a finished game of the job's seats, as a referee would
    send back (a short move list), so that only the driver's own memory is measured.'''
    capacity = 2
    groups_deals = False
    played = 0
    async def play(self, jobs):
        await trio.sleep(0)
        outcomes = []
        for job in jobs:
            Simulated.played += 1
            names = [seat.name for seat in job.seats]
            first = Simulated.played % 2
            result = MatchResult(game=job.game, seed=job.seed, players=names, scores=[1.0, 0.0],
                                 ranks=[1 + first, 2 - first], violations=[None, None],
                                 decisions=list(range(40)))
            outcomes.append(JobOutcome(key=job.key, result=result))
            if Simulated.played in (early, late):
                seen[Simulated.played] = rss_mb()
        return outcomes

@asynccontextmanager
async def simulated(config, **kwargs):
    yield Simulated()

runner_module.open_executor = simulated
store = open_store(db)
runner = Runner(config, store)
runner.claim()
progress = Progress(runner.expected_games(), stream=open("/dev/null", "w"))
progress.leaderboard = Leaderboard()
runner.progress = progress
trio.run(runner.run)
store.close()
ratio = seen[late] / seen[early]
print(json.dumps({"seconds": 0, "detail": f"{seen[early]:.0f} MB at {early:,}, "
                  f"{seen[late]:.0f} MB at {late:,}: {ratio:.2f} x"}))
"""


def program(source: str, *args: object) -> list[str]:
    """The argv that runs ``source`` with ``args``."""
    return [sys.executable, "-c", textwrap.dedent(source), *map(str, args)]


# -- the table ------------------------------------------------------------------------------


def reader_rows(games: int, bots: int, work: Path, args: argparse.Namespace) -> list[list[str]]:
    """Build a store of ``games`` games of ``bots`` bots, measure every reader, delete it."""
    db = work / f"s{games}-{bots}.sqlite"
    started = time.monotonic()
    build_store(db, games, bots=bots, players=4)
    built = time.monotonic() - started
    size_mb = db.stat().st_size / 1e6
    label = f"{games:,} games, {bots:,} bots"
    print(f"  built {label}: {size_mb:,.0f} MB in {built:.0f} s", file=sys.stderr, flush=True)
    limits = {"timeout_s": args.timeout, "cap_mb": args.memory_mb, "cwd": work}
    commands = {
        "standings": ["standings"],
        "list first line": ["list"],
        "list": ["list"],
        "export": ["export", "-o", str(work / "e.jsonl")],
        "report": ["report", "-o", str(work / "r.html")],
    }
    steps = {
        name: child(
            [*GOATARENA, *command, "--db", str(db)], first_line=name == "list first line", **limits
        )
        for name, command in commands.items()
    }
    for side in (db, work / "e.jsonl", work / "r.html"):
        side.unlink(missing_ok=True)
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    return [[name, label, step.cell(), GOALS[name]] for name, step in steps.items()]


def fit_rows(bot_counts: list[int], args: argparse.Namespace, work: Path) -> list[list[str]]:
    """One rating fit (with 95 % intervals) per field size, each bot with 50 games."""
    limits = {"timeout_s": args.timeout, "cap_mb": args.memory_mb, "cwd": work}
    rows = []
    for bots in bot_counts:
        step = child(program(FIT_PROGRAM, bots, 50), **limits)
        rows.append(["fit", f"{bots:,} bots, 50 games each", step.cell(), GOALS["fit"]])
    return rows


def swiss_rows(bot_counts: list[int], args: argparse.Namespace, work: Path) -> list[list[str]]:
    """One Swiss round's pairing (standings, refit and matching) after four rounds."""
    rows = []
    limits = {"timeout_s": args.timeout, "cap_mb": args.memory_mb, "cwd": work}
    for bots in bot_counts:
        db = work / f"swiss{bots}.sqlite"
        build_store(db, 4 * (bots // 2), bots=bots, players=2, game_types=["mountain-goats"])
        step = child(program(SWISS_PROGRAM, db, bots, "mountain-goats"), **limits)
        rows.append(["swiss round", f"{bots:,} bots", step.cell(), GOALS["swiss round"]])
        db.unlink()
    return rows


def million_game_file(work: Path, games: int) -> Path:
    """A tournament file of ``games`` games between two fast bots (random movers)."""
    bot = f"{sys.executable} {ROOT / 'bots' / 'python' / 'random_bot.py'}"
    path = work / "million.toml"
    path.write_text(
        f'name = "million"\ndeals = {games // 4}\nsandbox = "none"\nconcurrency = 2\n'
        f'[bots]\na = "{bot}"\nb = "{bot}"\n'
        '[[games]]\nname = "mountain-goats"\n[[games]]\nname = "goat-lords"\n'
    )
    return path


def run_rows(games: int, args: argparse.Namespace, work: Path) -> list[list[str]]:
    """``run`` on a file of ``games`` games: the first game's latency and memory, and how
    long Ctrl-C takes at once, while it starts (its first line out: the file loaded and
    checked, the bots' pre-flight done, the referees starting) and while it plays."""
    config = million_game_file(work, games)
    label = f"{games:,}-game file"
    rows = []
    at_once = _interrupted(config, work, args, at=None)
    rows.append(
        ["run: Ctrl-C at once", f"{label}, at 0.3 s", at_once.cell(), GOALS["run: Ctrl-C at once"]]
    )
    starting = _interrupted(config, work, args, at=lambda line: b" games, " in line)
    rows.append(
        ["run: Ctrl-C while starting", label, starting.cell(), GOALS["run: Ctrl-C while starting"]]
    )
    first, playing = _run_until_first_game(config, work, args)
    rows.append(["run: first game", label, first.cell(), GOALS["run: first game"]])
    rows.append(
        ["run: Ctrl-C while playing", label, playing.cell(), GOALS["run: Ctrl-C while playing"]]
    )
    return rows  # fmt: skip


def _start_run(config: Path, work: Path, args: argparse.Namespace) -> subprocess.Popen[bytes]:
    db = work / "million.sqlite"
    for stale in work.glob("million.sqlite*"):
        stale.unlink()
    return _Popen(
        [*GOATARENA, "run", str(config), "--db", str(db)],
        cwd=work,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: limit_memory(args.memory_mb),
    )


def _wait_for(process: subprocess.Popen[bytes], wanted: Callable[[bytes], bool]) -> bool:
    """Read the process's stderr until a line is ``wanted``; False if it ended first."""
    assert process.stderr is not None
    return any(wanted(line) for line in process.stderr)


def _run_until_first_game(
    config: Path, work: Path, args: argparse.Namespace
) -> tuple[Measure, Measure]:
    """Start ``run``, wait for its first progress line (one game stored), then Ctrl-C it:
    the first game's latency and the RSS then, and the time Ctrl-C took."""
    started = time.monotonic()
    process = _start_run(config, work, args)
    if not _wait_for(process, lambda line: line.startswith(b"1/")):
        process.wait()
        return Measure(time.monotonic() - started, 0, f"exit {process.returncode}"), Measure(0, 0)
    first, rss = time.monotonic() - started, _rss_mb(process.pid)
    time.sleep(args.playing_s)  # well into play: a game is stored, more are under way
    return Measure(first, rss), _stop(process, signal.SIGINT)


def _interrupted(
    config: Path, work: Path, args: argparse.Namespace, *, at: Callable[[bytes], bool] | None
) -> Measure:
    """Ctrl-C a run when it writes a line that is ``at`` (None: 0.3 s after it started,
    which may be before Python has loaded goatarena at all): the time it took to end."""
    process = _start_run(config, work, args)
    if at is None:
        time.sleep(0.3)
    elif not _wait_for(process, at):
        process.wait()
        return Measure(0, 0, f"exit {process.returncode}")
    return _stop(process, signal.SIGINT, early=at is None)


def _stop(process: subprocess.Popen[bytes], signum: int, *, early: bool = False) -> Measure:
    """Send ``signum`` and time the process's end: it must say so in one line with exit
    status 128 + signum (``early``: before goatarena was loaded, Python's own death by the
    signal is what a Ctrl-C there gives)."""
    started = time.monotonic()
    process.send_signal(signum)
    _, errors = process.communicate(timeout=60)
    took = time.monotonic() - started
    said = [line for line in errors.decode().splitlines() if "interrupted" in line]
    expected = {128 + signum, -signum} if early else {128 + signum}
    status = "ok" if process.returncode in expected else f"exit {process.returncode}"
    detail = "one line" if len(said) == 1 and "Traceback" not in errors.decode() else ""
    return Measure(took, _peak_mb(process), status, detail)


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def growth_rows(early: int, late: int, args: argparse.Namespace, work: Path) -> list[list[str]]:
    """The runner's RSS after ``early`` and after ``late`` games (a simulated executor)."""
    db = work / "growth.sqlite"
    limits = {"timeout_s": args.timeout, "cap_mb": args.memory_mb, "cwd": work}
    step = child(program(RUNNER_GROWTH_PROGRAM, early, late, db), **limits)
    for stale in work.glob("growth.sqlite*"):
        stale.unlink()
    return [["run: RSS growth", f"{late:,} games", step.cell(), GOALS["run: RSS growth"]]]


def main() -> None:
    """Print the growth table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the suite's smoke-test size")
    parser.add_argument("--games", default="10000,100000,1000000", help="store sizes")
    parser.add_argument("--bots", default="16,256,1000,10000", help="field sizes")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per step")
    parser.add_argument("--memory-mb", type=int, default=6144, help="memory cap per step")
    parser.add_argument("--only", default="readers,fit,swiss,run,growth", help="which parts")
    args = parser.parse_args()
    args.playing_s = 0.5 if args.quick else 2.0  # after the first game, before Ctrl-C
    games = [int(n) for n in args.games.split(",")]
    bots = [int(n) for n in args.bots.split(",")]
    run_games, early, late = 1_000_000, 5_000, 100_000
    if args.quick:
        # 50 games: the report (a replay per game) is most of a reader row's time.
        games, bots, run_games, early, late = [50], [16], 1_000_000, 200, 2_000
    parts = set(args.only.split(","))
    rows: list[list[str]] = []

    def measured(new: list[list[str]]) -> None:
        # Said as it comes: the full table takes an hour or more.
        for row in new:
            print("  " + " | ".join(row[:3]), file=sys.stderr, flush=True)
        rows.extend(new)

    with tempfile.TemporaryDirectory(prefix="goatarena-scale-") as folder:
        work = Path(folder)
        if "readers" in parts:
            for count in games:
                for field in bots:
                    measured(reader_rows(count, field, work, args))
        if "fit" in parts:
            measured(fit_rows(bots if args.quick else [256, 1000, 10000], args, work))
        if "swiss" in parts:
            measured(swiss_rows([64] if args.quick else [256, 1000], args, work))
        if "run" in parts:
            measured(run_rows(run_games, args, work))
        if "growth" in parts:
            measured(growth_rows(early, late, args, work))
    from tabulate import tabulate

    print(tabulate(rows, headers=["step", "size", "time, peak RSS", "goal"]))


if __name__ == "__main__":
    main()
