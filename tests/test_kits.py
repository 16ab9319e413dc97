"""Every starter kit (kits/*/kit.toml) builds, passes its own unit test and check-bot.

Each kit is copied as ``goatarena new-bot`` copies it, into a folder of its own, and
driven the way kits/README.md promises: ``make test``, ``make``, then
``goatarena check-bot ./bot`` from that folder, expecting all 9 checks to pass. A kit
whose toolchain is missing has it installed as root with apt-get (the packages its
kit.toml names), or is skipped, saying why.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from goatarena.cli.new_bot import copy_kit
from goatarena.formats.tournament_file import load_config
from tests.helpers import ROOT

KIT_FILES = sorted((ROOT / "kits").glob("*/kit.toml"))
ENVIRONMENT = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
"""The Python kit's ./bot runs python3 from PATH: this interpreter, which has goatarena."""


def has_toolchain(check: str) -> bool:
    """Whether the kit's toolchain check command succeeds."""
    done = subprocess.run(["sh", "-c", check], capture_output=True, env=ENVIRONMENT, check=False)
    return done.returncode == 0


def ensure_toolchain(kit: dict) -> None:
    """Install the kit's apt packages when its toolchain check fails, or skip."""
    toolchain = kit["toolchain"]
    if has_toolchain(toolchain["check"]):
        return
    packages = toolchain.get("apt", [])
    if not packages or os.geteuid() != 0 or shutil.which("apt-get") is None:
        pytest.skip(
            f"{kit['language']}: no toolchain ({toolchain['check']} fails) and no root apt-get"
        )
    with open("/tmp/goatarena-kit-toolchains.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not has_toolchain(toolchain["check"]):
            env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
            for command in (
                ["apt-get", "update", "-qq"],
                ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages],
            ):
                done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
                if done.returncode != 0:
                    pytest.skip(f"installing {packages} failed: {done.stderr.strip()[-300:]}")
    if not has_toolchain(toolchain["check"]):
        pytest.skip(f"apt-get installed {packages} but {toolchain['check']!r} still fails")


def run(command: list[str], folder: Path, timeout: int = 900) -> subprocess.CompletedProcess:
    """Run ``command`` in ``folder``; fail the test with its output if it fails."""
    done = subprocess.run(
        command,
        cwd=folder,
        capture_output=True,
        text=True,
        env=ENVIRONMENT,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}"
    return done


def test_every_kit_folder_has_the_files_of_the_contract():
    assert KIT_FILES, "no kits/*/kit.toml"
    for kit_file in KIT_FILES:
        kit = tomllib.loads(kit_file.read_text())
        folder = kit_file.parent
        assert kit["language"] == folder.name
        assert kit["title"] and kit["toolchain"]["check"]
        assert (folder / "Makefile").is_file() and (folder / "README.md").is_file()


@pytest.mark.slow
@pytest.mark.parametrize("kit_file", KIT_FILES, ids=[path.parent.name for path in KIT_FILES])
def test_a_kit_builds_passes_its_unit_test_and_check_bot(kit_file, tmp_path):
    kit = tomllib.loads(kit_file.read_text())
    ensure_toolchain(kit)
    folder = tmp_path / "bot"
    copy_kit(kit_file.parent, folder)
    run(["make", "test"], folder)
    run(["make"], folder)
    assert os.access(folder / "bot", os.X_OK), "make did not leave an executable ./bot"
    checked = run([sys.executable, "-m", "goatarena", "check-bot", "--games", "3", "./bot"], folder)
    assert "all 10 checks passed" in checked.stdout + checked.stderr


def test_the_kits_demo_tournament_seats_every_kit_but_python_and_the_bundled_bots():
    config = load_config(ROOT / "tournaments" / "kits-demo.toml")
    kits = {"typescript", "go", "cpp", "java", "rust"}
    assert kits <= config.bots.keys() and {"random", "greedy"} <= config.bots.keys()
    for language in kits:
        assert config.bots[language].endswith(f"kits/{language}/bot")


def test_new_bot_copies_a_kit_without_build_output_and_prints_the_commands(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from goatarena.cli import main, new_bot

    # Whether this machine has node is not the point here (test_new_bot_toolchain.py).
    monkeypatch.setattr(new_bot, "missing_toolchain", lambda toolchain: None)

    folder = tmp_path / "mine"
    done = CliRunner().invoke(main, ["new-bot", "typescript", str(folder)])
    assert done.exit_code == 0, done.output
    assert f"make -C {folder}" in done.output and f"check-bot {folder}/bot" in done.output
    assert (folder / "src" / "protocol.ts").is_file() and os.access(folder / "bot", os.X_OK)
    assert not (folder / "node_modules").exists() and not (folder / "dist").exists()
    again = CliRunner().invoke(main, ["new-bot", "go", str(folder)])
    assert again.exit_code != 0
    assert again.output.strip().count("\n") == 0 and "not an empty folder" in again.output
    unknown = CliRunner().invoke(main, ["new-bot", "cobol", str(tmp_path / "other")])
    assert unknown.exit_code == 2 and not (tmp_path / "other").exists()


def test_a_kit_copy_leaves_out_what_its_own_build_made(tmp_path):
    # The Go kit builds its ./bot program in place; a copy made after a local build
    # must not carry that binary (nor Rust's Cargo.lock) into someone's new bot.
    kit = tmp_path / "kit"
    shutil.copytree(ROOT / "kits" / "go", kit, ignore=shutil.ignore_patterns("bot"))
    (kit / "bot").write_bytes(b"\x7fELF built here")
    copy_kit(kit, tmp_path / "mine")
    copied = {p.relative_to(tmp_path / "mine").as_posix() for p in (tmp_path / "mine").rglob("*")}
    assert "bot" not in copied and "main.go" in copied and "agent/agent.go" in copied
    assert ".gitignore" in copied


@pytest.mark.slow
def test_a_new_python_bot_passes_check_bot_from_another_folder(tmp_path):
    folder = tmp_path / "py"
    run([sys.executable, "-m", "goatarena", "new-bot", "python", str(folder)], tmp_path)
    assert sys.executable in (folder / "bot").read_text()
    run(["make", "-C", str(folder)], tmp_path)
    checked = run(
        [sys.executable, "-m", "goatarena", "check-bot", "--games", "2", str(folder / "bot")],
        tmp_path,
    )
    assert "all 10 checks passed" in checked.stdout


def test_the_package_leaves_out_every_kit_build_output():
    # What a kit's .gitignore names is build output: the installed package must not ship
    # it (a locally built Go binary, Rust's target/), so new-bot never copies it either.
    from fnmatch import fnmatch

    with open(ROOT / "pyproject.toml", "rb") as file:
        excluded = tomllib.load(file)["tool"]["setuptools"]["exclude-package-data"]["goatarena"]
    for ignore in (ROOT / "kits").glob("*/.gitignore"):
        for line in ignore.read_text().split():
            path = f"kits/{ignore.parent.name}/{line.strip('/')}"
            if (ignore.parent / line.strip("/")).is_dir() or line.endswith("/"):
                path += "/x"
            assert any(fnmatch(path, pattern) for pattern in excluded), path
