"""A real Dask cluster on 127.0.0.1: a scheduler and two ``goatarena worker`` processes.

The tournaments' bots are copies of the bundled random bot under the test's own folder,
so that the test can tell, from every process's command line, that none is left.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from goatarena.store.opening import open_store
from tests.helpers import ROOT, live_processes_mentioning

pytest.importorskip("distributed")

SLOW_BOT = """
import sys, time
from goatarena.sdk import Request, SeededBot, run

class SlowBot(SeededBot):
    name = "slow"
    def choose(self, request: Request) -> int:
        time.sleep(float(sys.argv[1]))
        return self.rng.randrange(len(request.actions))

run(SlowBot())
"""

KILLER_BOT = """
import os, signal
os.kill(os.getppid(), signal.SIGKILL)  # the referee that started it: the worker
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait(condition, timeout_s: float, what: str) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


class Cluster:
    """A scheduler and two workers; ``folder`` is where the tests put bots and results."""

    def __init__(self, folder: Path, scratch: Path) -> None:
        self.folder = folder
        self.scratch = scratch
        self.address = f"tcp://127.0.0.1:{_free_port()}"
        self.processes: list[subprocess.Popen[bytes]] = []
        # The workers' temporary folder is the test's: the copies of bots' folders that
        # they make (for a root runner) must all be gone once they have stopped.
        env = dict(
            os.environ, DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES="1", TMPDIR=str(self.scratch)
        )
        port = self.address.rsplit(":", 1)[1]
        self._start(
            [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1"]
            + ["--port", port, "--no-dashboard"],
            env,
            "scheduler",
        )
        self.logs = folder / "worker-logs"  # every tournament's bot logs, in the bots' folder
        for number in range(2):
            self._start(
                [sys.executable, "-m", "goatarena", "worker", self.address, "--slots", "2"]
                + ["--log-dir", str(self.logs)],
                env,
                f"worker{number}",
            )
        try:
            self.wait_for_workers(2)
        except BaseException:
            self.stop()  # the fixture never yields: nothing else would stop them
            raise

    def _start(self, argv: list[str], env: dict[str, str], name: str) -> None:
        log = (self.folder / f"{name}.log").open("wb")
        self.processes.append(
            subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=ROOT)
        )

    def workers(self) -> dict[str, dict]:
        from distributed import Client

        with Client(self.address, timeout=10) as client:
            return dict(client.scheduler_info(n_workers=-1)["workers"])

    def worker_pids(self) -> list[int]:
        from distributed import Client

        with Client(self.address, timeout=10) as client:
            return list(client.run(os.getpid).values())

    def wait_for_workers(self, count: int) -> None:
        def enough() -> bool:
            try:
                return len(self.workers()) >= count
            except OSError:  # the scheduler is not listening yet
                return False

        # Generous: on a loaded machine the scheduler and each worker take a minute or
        # more to import Dask.
        _wait(enough, 240, f"{count} workers")

    def stop(self) -> None:
        """The workers first, then the scheduler, as a cluster is taken down: a worker
        told by a closing scheduler to close while it closes on its own SIGTERM may hang
        until its nanny kills it, 8 s later."""
        scheduler, *workers = self.processes
        for group in (workers, [scheduler]):
            for process in group:
                process.send_signal(signal.SIGTERM)
            for process in group:
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Iterator[Cluster]:
    folder = tmp_path_factory.mktemp("cluster")
    running = Cluster(folder, tmp_path_factory.mktemp("cluster-tmp"))
    try:
        yield running
    finally:
        running.stop()
        # Nothing of the cluster or of its bots may outlive it.
        _wait(lambda: not live_processes_mentioning(str(folder)), 10, "the bots to exit")
        assert not [p for p in running.processes if p.poll() is None]
        assert not list(running.scratch.glob("goatarena-bot-copies-*"))


def _bot(folder: Path, name: str, code: str | None = None) -> str:
    path = folder / f"{name}.py"
    if code is None:
        shutil.copy(ROOT / "bots" / "python" / "random_bot.py", path)
    else:
        path.write_text(code)
    return f"{sys.executable} {path}"


def _tournament(folder: Path, bots: dict[str, str], name: str) -> Path:
    lines = [
        f'name = "{name}"',
        "seed = 11",
        "secret_deals = false",
        "[time]",
        "move_ms = 5000",
        "startup_ms = 20000",
    ]
    lines += ["[bots]", *(f'{bot} = "{command}"' for bot, command in bots.items())]
    lines += ["[[games]]", 'name = "mountain-goats"', "players = 2"]
    path = folder / f"{name}.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "goatarena", "run", *args, "--quiet"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


def _records(db: Path) -> dict[str, dict]:
    """Stored records by key, without what differs between machines and runs."""
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT key, result FROM games").fetchall()
    records = {}
    for key, text in rows:
        record = json.loads(text)
        for varying in ("host", "duration_s", "latency"):
            record.pop(varying)
        records[key] = record
    assert len(records) == len(rows)
    return records


def _hosts(db: Path) -> set[str]:
    with sqlite3.connect(db) as connection:
        return {
            json.loads(text)["host"] for (text,) in connection.execute("SELECT result FROM games")
        }


@pytest.mark.slow
def test_a_round_robin_on_the_cluster_stores_what_a_local_run_stores(cluster, tmp_path):
    bots = {f"r{number}": _bot(cluster.folder, f"random{number}") for number in range(4)}
    config = _tournament(tmp_path, bots, "rr")
    remote = _run(
        str(config), "--db", str(tmp_path / "remote.sqlite"), "--cluster", cluster.address
    )
    assert remote.returncode == 0, remote.stderr
    local = _run(str(config), "--db", str(tmp_path / "local.sqlite"))
    assert local.returncode == 0, local.stderr

    records = _records(tmp_path / "remote.sqlite")
    assert len(records) == 12  # 6 pairs, each deal in both seat orders
    assert records == _records(tmp_path / "local.sqlite")
    assert _hosts(tmp_path / "remote.sqlite") == {socket.gethostname()}


@pytest.mark.slow
def test_a_worker_killed_mid_game_loses_and_duplicates_nothing(cluster, tmp_path):
    slow = _bot(cluster.folder, "slow", SLOW_BOT)
    bots = {f"s{number}": f"{slow} 0.01" for number in range(4)}
    config = _tournament(tmp_path, bots, "kill")
    db = tmp_path / "kill.sqlite"
    driver = subprocess.Popen(
        [sys.executable, "-m", "goatarena", "run", str(config), "--db", str(db), "--quiet"]
        + ["--cluster", cluster.address],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        # Kill a worker while it plays a game: the parent of a running slow bot.
        victim = 0

        def a_worker_is_playing() -> bool:
            nonlocal victim
            for pid in live_processes_mentioning(str(cluster.folder / "slow.py")):
                stat = Path(f"/proc/{pid}/stat").read_text()
                victim = int(stat.rsplit(")", 1)[1].split()[1])
                return True
            return False

        _wait(a_worker_is_playing, 60, "a game to start on a worker")
        assert victim in {int(pid) for pid in cluster.worker_pids()}
        os.kill(victim, signal.SIGKILL)
        out, err = driver.communicate(timeout=120)
    finally:
        if driver.poll() is None:
            driver.kill()
    assert driver.returncode == 0, err
    assert len(_records(db)) == 12  # every game stored exactly once (keys are unique)
    cluster.wait_for_workers(2)  # the nanny restarted the one killed


@pytest.mark.slow
def test_a_game_that_keeps_killing_workers_is_recorded_as_failed(cluster, tmp_path):
    bots = {
        "r0": _bot(cluster.folder, "random-a"),
        "killer": _bot(cluster.folder, "killer", KILLER_BOT),
    }
    config = _tournament(tmp_path, bots, "poison")
    db = tmp_path / "poison.sqlite"
    # Unsandboxed, as trusted bots may run: in a sandbox the bot cannot reach the worker
    # (its pid namespace), so a game that kills workers is one whose runtime crashes them.
    result = _run(str(config), "--db", str(db), "--cluster", cluster.address, "--sandbox", "none")
    # The scheduler allows one failure: the deal is tried twice, then recorded as failed.
    assert result.returncode == 1, result.stderr
    assert "2 games failed and are not stored" in result.stderr
    assert "ended the worker process every time" in result.stderr
    assert _records(db) == {}
    store = open_store(db, create=False)
    try:
        failed = store.failed()
    finally:
        store.close()
    assert sorted(failed) == [
        "0.mountain-goats.2p/r0+killer/d0/r0",
        "0.mountain-goats.2p/r0+killer/d0/r1",
    ]
    assert all("ended the worker process" in reason for reason in failed.values())
    cluster.wait_for_workers(2)


@pytest.mark.slow
def test_a_worker_without_a_bots_program_refuses_and_the_driver_says_so(cluster, tmp_path):
    bots = {"r0": _bot(cluster.folder, "random-c"), "js": "no-such-runtime-here bot.js"}
    config = _tournament(tmp_path, bots, "refused")
    result = _run(
        str(config), "--db", str(tmp_path / "refused.sqlite"), "--cluster", cluster.address
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith("goatarena: error: the referee on ")
    assert "cannot run bot 'js': 'no-such-runtime-here' is not found there" in lines[-1]
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_a_bot_reads_nothing_of_its_workers_log_folder(cluster, tmp_path, sandbox):
    """The workers keep every tournament's bot logs in their --log-dir, here inside the
    bots' folder: the sandbox hides it, though the driver's sandboxes do not know of it."""
    snooper = cluster.folder / "snooper.py"
    shutil.copy(ROOT / "tests" / "bots" / "hostile_folders.py", snooper)
    # An earlier tournament whose bots write to stderr (they only play): logs to read.
    earlier = {name: f"{sys.executable} {snooper} {name}" for name in ("e0", "e1")}
    first = _tournament(tmp_path, earlier, "earlier")
    bots = {
        "snooper": f"{sys.executable} {snooper} {sandbox} @worker-logs",
        "r0": _bot(cluster.folder, "random-s"),
    }
    config = _tournament(tmp_path, bots, f"snoop-{sandbox}")
    for file in (first, config):
        where = ("--db", str(tmp_path / f"{file.stem}.sqlite"), "--cluster", cluster.address)
        result = _run(str(file), *where, "--sandbox", sandbox)
        assert result.returncode == 0, result.stderr
    [log, *_] = sorted(cluster.logs.glob(f"snoop-{sandbox}-*/snooper.log"))
    text = log.read_text()
    assert "tried folders" in text, text
    breaches = [line for line in text.splitlines() if line.startswith("BREACH")]
    if sandbox == "none":  # the attack is real: it reads the earlier tournament's logs
        assert any("/earlier-" in line for line in breaches), text
    else:
        assert breaches == [], breaches


def _parent(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


@pytest.mark.slow
def test_a_worker_sent_sigterm_mid_game_goes_with_its_bots_and_loses_nothing(cluster, tmp_path):
    # A third worker of its own, so the others keep the module's cluster for later tests.
    cluster._start(
        [sys.executable, "-m", "goatarena", "worker", cluster.address, "--slots", "2"],
        dict(os.environ),
        "worker-stopped",
    )
    leaving = cluster.processes[-1]
    cluster.wait_for_workers(3)
    slow = _bot(cluster.folder, "slow-stopped", SLOW_BOT)
    # 20 ms a decision: a game of about 55 decisions lasts over a second, far longer than
    # the moment from its bots' start to the SIGTERM, and the 12 games are soon played.
    bots = {f"s{number}": f"{slow} 0.02" for number in range(4)}
    config = _tournament(tmp_path, bots, "sigterm")
    db = tmp_path / "sigterm.sqlite"
    driver = subprocess.Popen(
        [sys.executable, "-m", "goatarena", "run", str(config), "--db", str(db), "--quiet"]
        + ["--cluster", cluster.address],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        # The worker process is the child of the ``goatarena worker`` process (its nanny).
        def its_bots() -> list[int]:
            return [
                pid
                for pid in live_processes_mentioning(str(cluster.folder / "slow-stopped.py"))
                if _parent(_parent(pid)) == leaving.pid
            ]

        _wait(lambda: bool(its_bots()), 60, "a game to start on the worker to be stopped")
        playing = its_bots()
        leaving.send_signal(signal.SIGTERM)
        leaving.wait(timeout=30)
        # Its bots went before it did: none is left once the worker has exited.
        assert not [pid for pid in playing if alive(pid)]
        assert leaving.returncode == 0
        out, err = driver.communicate(timeout=120)
    finally:
        if driver.poll() is None:
            driver.kill()
    assert driver.returncode == 0, err
    records = _records(db)
    assert len(records) == 12  # its games were played elsewhere, each stored once
    # ... whole: none stored with the seats its bots held when they were stopped crashed.
    assert [key for key, record in records.items() if any(record["all_violations"])] == []
    log = (cluster.folder / "worker-stopped.log").read_text()
    assert "Traceback" not in log


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@pytest.mark.slow
def test_a_ladder_on_the_cluster_stops_by_its_rule_with_each_game_stored_once(cluster, tmp_path):
    # A folder of its own each: a ladder refuses a newcomer whose folder another bot has.
    folders = [cluster.folder / f"ladder{number}" for number in range(4)]
    for folder in folders:
        folder.mkdir(mode=0o700)
    bots = {f"l{number}": _bot(folder, "bot") for number, folder in enumerate(folders)}
    config = _tournament(tmp_path, bots, "lad")
    text = config.read_text().replace(
        "[[games]]", "[ladder]\nstop_games = 10\npoll_s = 0.5\n[[games]]"
    )
    config.write_text('format = "ladder"\n' + text)  # top-level keys come before any table
    db = tmp_path / "lad.sqlite"
    # Sandboxed: its bots' folders (mode 0700) are copied by the workers, which run
    # games of earlier tests' bots too.
    where = ("--db", str(db), "--cluster", cluster.address)
    run = _run(str(config), *where)
    assert run.returncode == 0, run.stderr
    assert "every active bot has 10 games" in run.stdout + run.stderr

    records = _records(db)  # keys are unique: no game stored twice
    games = Counter(name for record in records.values() for name in record["players"])
    assert set(games) == set(bots)
    assert min(games.values()) >= 10
    with sqlite3.connect(db) as connection:
        chosen = connection.execute("SELECT count(*) FROM ladder_choices").fetchone()[0]
    deals = {key.rsplit("/", 1)[0] for key in records}
    # The ladder keeps no more deals in flight than the workers' 4 slots: each table is
    # chosen from the games so far, not thousands queued at the scheduler at the start.
    assert len(deals) <= chosen <= len(deals) + 4

    standings = subprocess.run(
        [sys.executable, "-m", "goatarena", "standings", "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert standings.returncode == 0, standings.stderr
    for name, count in games.items():
        assert re.search(rf"\b{name}\b.*\b{count}\b", standings.stdout), standings.stdout

    again = _run(str(config), *where)
    assert again.returncode == 0, again.stderr
    resumed = _records(db)
    assert set(records) <= set(resumed)  # nothing lost, nothing stored twice
    assert all(resumed[key] == record for key, record in records.items())
