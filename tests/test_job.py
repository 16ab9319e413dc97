"""Game jobs: their encoding and checks, and local referee processes that play them."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import msgspec
import pytest
import trio

from goatarena.errors import ClusterError
from goatarena.formats.config import GameEntry, TournamentConfig
from goatarena.formats.schedule import round_robin_schedule
from goatarena.running import job as job_module
from goatarena.running.host import JobHost
from goatarena.running.job import (
    JOB_FORMAT,
    deal_of,
    decode_jobs,
    decode_outcomes,
    encode_jobs,
    job_for,
)
from goatarena.running.worker import play_on_worker
from tests.helpers import RANDOM_BOT, ROOT, live_processes_mentioning


def _config(bots: dict[str, str] | None = None) -> TournamentConfig:
    return TournamentConfig(
        name="jobs",
        bots=bots or {"a": RANDOM_BOT, "b": RANDOM_BOT},
        games=[GameEntry(name="mountain-goats", players=2)],
        seed=3,
    )


def _jobs(config: TournamentConfig, **kwargs):
    return [
        job_for(config, game, tournament="t", **kwargs) for game in round_robin_schedule(config)
    ]


def test_a_job_travels_as_json_and_comes_back_equal():
    jobs = _jobs(_config(), disqualified={"b": "failed to start"})
    payload = encode_jobs(jobs)
    assert json.loads(payload)[0]["seats"][0] == {"name": "a", "command": RANDOM_BOT}
    assert decode_jobs(payload) == jobs
    assert {job.deal for job in jobs} == {"0.mountain-goats.2p/a+b/d0"}  # both rotations


def test_deal_of_drops_only_the_seat_rotation():
    assert deal_of("0.goat-lords.3p/a+b+c/d2/r1") == "0.goat-lords.3p/a+b+c/d2"
    assert deal_of("0.goat-lords.3p/s2/a+b+c/d1") == "0.goat-lords.3p/s2/a+b+c/d1"


def test_a_job_from_another_goatarena_version_is_refused_with_both_versions(monkeypatch):
    payload = encode_jobs(_jobs(_config()))
    monkeypatch.setattr(job_module, "goatarena_version", lambda: "9.9.9")
    with pytest.raises(ClusterError, match=r"runs goatarena 9\.9\.9 .* the driver 0\."):
        decode_jobs(payload)
    outcomes = decode_outcomes(play_on_worker(payload))  # refused, not played
    assert [outcome.result for outcome in outcomes] == [None, None]
    assert all("install the same version" in (outcome.refused or "") for outcome in outcomes)


def test_an_unknown_job_format_is_refused():
    raw = json.loads(encode_jobs(_jobs(_config())))
    raw[0]["format"] = JOB_FORMAT + 1
    with pytest.raises(ClusterError, match="job format"):
        decode_jobs(json.dumps(raw).encode())


def test_a_worker_without_a_bots_runtime_refuses_the_job_naming_bot_and_program():
    config = _config({"a": RANDOM_BOT, "js": "no-such-node-runtime bot.js"})
    outcomes = decode_outcomes(play_on_worker(encode_jobs(_jobs(config))))
    assert len(outcomes) == 2
    for outcome in outcomes:
        assert outcome.result is None
        assert "cannot run bot 'js'" in (outcome.refused or "")
        assert "'no-such-node-runtime' is not found" in (outcome.refused or "")


def test_a_host_plays_jobs_and_says_which_machine_played():
    jobs = _jobs(_config())

    async def play():
        async with trio.open_nursery() as nursery:
            host = JobHost(nursery, folder_per_tournament=False)
            try:
                return await host.play(jobs)
            finally:
                host.close()

    outcomes = trio.run(play)
    assert [outcome.key for outcome in outcomes] == [job.key for job in jobs]
    for outcome, job in zip(outcomes, jobs):
        assert outcome.result is not None and outcome.refused is None
        assert outcome.result.host == socket.gethostname()
        assert outcome.result.players == [seat.name for seat in job.seats]
        assert outcome.result.seed == job.seed


# -- local referee processes -------------------------------------------------------------------


def _write(folder: Path, concurrency: int, deals: int = 2) -> Path:
    bot = folder / "bot.py"
    shutil.copy(ROOT / "bots" / "python" / "random_bot.py", bot)
    bots = "\n".join(f'b{n} = "{sys.executable} {bot}"' for n in range(3))
    path = folder / f"c{concurrency}.toml"
    path.write_text(
        f'name = "procs"\nseed = 9\nsecret_deals = false\ndeals = {deals}\nconcurrency = {concurrency}\n'
        f'[time]\nmove_ms = 5000\n[bots]\n{bots}\n[[games]]\nname = "goat-lords"\nplayers = 2\n'
    )
    return path


def _records(db: Path) -> dict[str, dict]:
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT key, result FROM games").fetchall()
    records = {key: msgspec.json.decode(text) for key, text in rows}
    for record in records.values():
        for varying in ("host", "duration_s", "latency"):
            record.pop(varying)
    return records


def _stored(db: Path) -> int:
    """Games stored so far; none while the database is still being created."""
    try:
        with sqlite3.connect(db) as connection:
            return int(connection.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "X"


def _children(parent: int) -> list[int]:
    """The live processes whose parent is ``parent`` (bots run under referee processes)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == parent and fields[0] not in ("Z", "X"):
                found.append(int(entry.name))
    return found


def _run(config: Path, db: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "goatarena", "run", str(config), "--db", str(db), "--quiet"]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_two_referee_processes_store_the_same_records_as_one_loop(tmp_path):
    one = _run(_write(tmp_path, 1), tmp_path / "one.sqlite")
    two = _run(_write(tmp_path, 2), tmp_path / "two.sqlite")
    assert one.returncode == two.returncode == 0, one.stderr + two.stderr
    records = _records(tmp_path / "two.sqlite")
    assert len(records) == 12  # three pairs, two deals, two seat orders
    assert records == _records(tmp_path / "one.sqlite")
    assert not live_processes_mentioning(str(tmp_path))


@pytest.mark.slow
def test_a_driver_killed_with_kill_9_leaves_no_referee_process_or_bot(tmp_path):
    config = _write(tmp_path, 2, deals=10)
    db = tmp_path / "t.sqlite"
    command = [sys.executable, "-m", "goatarena", "run", str(config), "--db", str(db), "--quiet"]
    driver = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and _stored(db) < 4:
        time.sleep(0.05)
    referees = _children(driver.pid)
    assert len(referees) == 2  # the games are being played by two referee processes
    os.kill(driver.pid, signal.SIGKILL)
    driver.wait()

    # The referees see their input end, stop their bots and exit.
    def left() -> list[object]:
        alive = [pid for pid in referees if _state(pid) not in ("Z", "X")]
        return alive + list(live_processes_mentioning(str(tmp_path)).values())

    while time.monotonic() < deadline + 10 and left():
        time.sleep(0.1)
    assert not left()
    rerun = _run(config, db)
    assert rerun.returncode == 0, rerun.stderr
    assert len(_records(db)) == 60


def test_cluster_resources_parse_and_a_malformed_one_is_named():
    from goatarena.running.cluster import parse_resources

    assert parse_resources("fast=1, gpu=2") == {"fast": 1.0, "gpu": 2.0}
    assert parse_resources("") == {}
    with pytest.raises(ClusterError, match="'fast' is not NAME=AMOUNT"):
        parse_resources("fast")
    with pytest.raises(ClusterError, match="has no name"):
        parse_resources("=1")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nonsense"], "'nonsense' is not a scheduler address like tcp://HOST:8786"),
        ([], "give the scheduler's address (tcp://HOST:8786) or --scheduler-file"),
    ],
)
def test_worker_refuses_a_bad_scheduler_in_one_line(args, message):
    from click.testing import CliRunner

    from goatarena.cli import main

    result = CliRunner().invoke(main, ["worker", *args])
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1].startswith(f"goatarena: error: {message}")
    assert len(result.output.strip().splitlines()) == 1
