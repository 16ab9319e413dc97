"""``goatarena submit`` against a competition served by ``goatarena serve FILE``: a Python
kit's folder becomes NAME@1 (exit 0), a bot that fails validation exits 1 with the
reason and its log, a refused upload exits 2."""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from goatarena.formats.tournament_file import load_config
from goatarena.referee.sandbox import probe
from tests.helpers import goatarena as run_goatarena

pytestmark = pytest.mark.skipif(probe() is not None, reason="no sandbox on this machine")

KIT = Path(__file__).resolve().parent.parent / "goatarena" / "kits" / "python"
FILE = """\
name = "class"
format = "ladder"
[time]
move_ms = 300
[bots]
random = "builtin:random"
[competition]
languages = ["python"]
validation_games = 1
[[games]]
name = "mountain-goats"
"""


def goatarena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_goatarena(*args, cwd=cwd, timeout=300)


def test_submit_from_folder_to_active_version(tmp_path):
    (tmp_path / "class.toml").write_text(FILE)
    token = goatarena("entrant", "add", "class.toml", "alice", cwd=tmp_path).stdout.split()[-1]
    server = subprocess.Popen(
        [sys.executable, "-m", "goatarena", "serve", "class.toml", "--port", "0"],
        stderr=subprocess.PIPE, text=True, cwd=tmp_path,
    )  # fmt: skip
    try:
        assert server.stderr is not None
        line = server.stderr.readline()
        url = re.search(r"http://[0-9.:]+", line)
        assert url, line
        shutil.copytree(KIT, tmp_path / "mybot")
        done = goatarena("submit", url.group(0), "mybot", "--token", token, cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
        assert done.stdout.strip().splitlines()[-1] == "alice@1"
        assert "alice@1" in load_config(tmp_path / "class.toml").bots

        (tmp_path / "mybot" / "main.py").write_text(
            "import sys\nprint('alice forgot hello', file=sys.stderr)\n"
        )
        failed = goatarena("submit", url.group(0), "mybot", "--token", token, cwd=tmp_path)
        assert failed.returncode == 1
        assert "alice forgot hello" in failed.stdout
        assert "failed: validation: check-bot's start-up check failed" in failed.stderr

        refused = goatarena(
            "submit", url.group(0), "mybot", "--token", token, "--language", "cobol", cwd=tmp_path
        )
        assert refused.returncode == 2
        assert "language 'cobol' is not taken here" in refused.stderr
        wrong = goatarena("submit", url.group(0), "mybot", "--token", "1.nope", cwd=tmp_path)
        assert wrong.returncode == 2 and "this token signs no one in" in wrong.stderr
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.mark.slow
def test_a_server_killed_mid_build_resumes_the_submission(tmp_path):
    """kill -9 while a submission builds: the upload was acknowledged, so a restarted
    server builds it again from the stored archive and it becomes active."""
    import os
    import signal
    import time

    import httpx

    from goatarena.competition.uploads import pack_folder
    from tests.helpers import live_processes_mentioning

    (tmp_path / "class.toml").write_text(FILE.replace("compare_games", "x"))
    token = goatarena("entrant", "add", "class.toml", "alice", cwd=tmp_path).stdout.split()[-1]
    shutil.copytree(KIT, tmp_path / "mybot")
    # The first server's build sleeps, to be killed in; the restarted server's is quick.
    # They differ by TZ, one of the few variables a build keeps of its server's.
    (tmp_path / "mybot" / "Makefile").write_text('all:\n\ttest "$$TZ" != BLD0 || sleep 4\n')
    archive = pack_folder(tmp_path / "mybot")

    def start(zone: str) -> tuple[subprocess.Popen[str], str]:
        child = subprocess.Popen(
            [sys.executable, "-m", "goatarena", "serve", "class.toml", "--port", "0"],
            stderr=subprocess.PIPE, text=True, cwd=tmp_path, env={**os.environ, "TZ": zone},
        )  # fmt: skip
        assert child.stderr is not None
        url = re.search(r"http://[0-9.:]+", child.stderr.readline())
        assert url
        return child, url.group(0)

    def state(url: str) -> str:
        answer = httpx.get(f"{url}/api/submissions/1", headers=auth, timeout=30)
        return str(answer.json()["state"])

    auth = {"Authorization": f"Bearer {token}"}
    server, url = start("BLD0")
    try:
        posted = httpx.post(f"{url}/api/submissions", content=archive, headers=auth)
        assert posted.status_code == 202
        deadline = time.monotonic() + 60
        while state(url) != "building" and time.monotonic() < deadline:
            time.sleep(0.2)
        assert state(url) == "building"
    finally:
        os.kill(server.pid, signal.SIGKILL)
        server.wait()
    # The build it started stops too (it watches for its server), well before its sleep ends.
    deadline = time.monotonic() + 2.5
    while live_processes_mentioning(str(tmp_path)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert live_processes_mentioning(str(tmp_path)) == {}
    server, url = start("UTC0")
    try:
        deadline = time.monotonic() + 120
        while state(url) not in ("active", "failed") and time.monotonic() < deadline:
            time.sleep(0.1)
        found = httpx.get(f"{url}/api/submissions/1", headers=auth, timeout=30).json()
        assert found["state"] == "active", found["reason"]
        assert "alice@1" in load_config(tmp_path / "class.toml").bots
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_run_serve_serves_the_competition_beside_the_ladder(tmp_path):
    import httpx

    (tmp_path / "class.toml").write_text(FILE)
    token = goatarena("entrant", "add", "class.toml", "alice", cwd=tmp_path).stdout.split()[-1]
    run = subprocess.Popen(
        [sys.executable, "-m", "goatarena", "run", "class.toml", "--serve", "127.0.0.1:0"],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, cwd=tmp_path,
    )  # fmt: skip
    try:
        assert run.stderr is not None
        url = None
        for _ in range(20):
            found = re.search(r"a competition, serving at (http://[0-9.:]+)", run.stderr.readline())
            if found:
                url = found.group(1)
                break
        assert url is not None
        me = httpx.get(f"{url}/api/me", headers={"Authorization": f"Bearer {token}"}, timeout=30)
        assert me.json() == {"name": "alice", "organiser": False, "versions": []}
        assert httpx.get(f"{url}/competition", timeout=30).status_code == 200
    finally:
        run.send_signal(signal.SIGINT)
        run.wait(timeout=30)
