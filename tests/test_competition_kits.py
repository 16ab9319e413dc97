"""Every kit's starter (``goatarena new-bot LANGUAGE``), submitted with ``goatarena
submit`` to one competition that takes all six, is built on the server in the sandbox
(no network, the machine's toolchains) and becomes ``NAME@1``.

A kit whose toolchain is missing has it installed as root (its kit.toml's apt packages,
as tests/test_kits.py does; TypeScript's compiler with ``npm install -g``, as an
organiser does), or is skipped, saying why.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from goatarena.formats.tournament_file import load_config
from goatarena.referee.sandbox import probe
from tests.test_kits import ensure_toolchain

pytestmark = [
    pytest.mark.skipif(probe() is not None, reason="no sandbox on this machine"),
    pytest.mark.slow,
]

KITS = Path(__file__).resolve().parent.parent / "kits"
LANGUAGES = ("python", "cpp", "go", "java", "rust", "typescript")
TYPESCRIPT = "typescript@5.6.3"
"""The compiler the TypeScript kit pins, installed on the server (builds have no network)."""

FILE = """\
name = "kits"
format = "ladder"
[time]
move_ms = 1000
[bots]
random = "builtin:random"
[competition]
languages = ["python", "cpp", "go", "java", "rust", "typescript"]
validation_games = 1
compare_games = 0
[[games]]
name = "mountain-goats"
"""


def goatarena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "goatarena", *args],
        cwd=cwd, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def ensure_server_tsc() -> None:
    """A ``tsc`` on the server's PATH, as the TypeScript kit's README asks of an organiser."""
    if shutil.which("tsc"):
        return
    npm = shutil.which("npm")
    if npm is None or os.geteuid() != 0:
        pytest.skip("typescript: no tsc on PATH, and no root npm to install it globally")
    done = subprocess.run(
        [npm, "install", "-g", "--no-audit", "--no-fund", TYPESCRIPT],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    if done.returncode != 0 or not shutil.which("tsc"):
        pytest.skip(f"npm install -g {TYPESCRIPT} failed: {done.stderr.strip()[-300:]}")


@pytest.fixture(scope="module")
def competition(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """A competition of all six kits, served; its folder and its address."""
    folder = tmp_path_factory.mktemp("kits")
    (folder / "kits.toml").write_text(FILE)
    server = subprocess.Popen(
        [sys.executable, "-m", "goatarena", "serve", "kits.toml", "--port", "0"],
        stderr=subprocess.PIPE, text=True, cwd=folder,
    )  # fmt: skip
    try:
        assert server.stderr is not None
        line = server.stderr.readline()
        url = re.search(r"http://[0-9.:]+", line)
        assert url, line
        yield folder, url.group(0)
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_kit_starter_submitted_becomes_an_active_version(competition, language):
    folder, url = competition
    kit = tomllib.loads((KITS / language / "kit.toml").read_text())
    ensure_toolchain(kit)
    if language == "typescript":
        ensure_server_tsc()
    name = f"{language}-bot"
    added = goatarena("entrant", "add", "kits.toml", name, cwd=folder)
    assert added.returncode == 0, added.stderr
    token = added.stdout.split()[-1]
    made = goatarena("new-bot", language, f"starter-{language}", cwd=folder)
    assert made.returncode == 0, made.stdout + made.stderr
    starter = folder / f"starter-{language}"
    # What new-bot built stays home: the server must build from the sources alone.
    if (starter / "Makefile").exists():
        cleaned = subprocess.run(["make", "clean"], cwd=starter, capture_output=True, check=False)
        assert cleaned.returncode == 0, cleaned.stderr
    done = goatarena(
        "submit", url, starter.name, "--token", token, "--language", language, cwd=folder
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1] == f"{name}@1"
    assert f"{name}@1" in load_config(folder / "kits.toml").bots
