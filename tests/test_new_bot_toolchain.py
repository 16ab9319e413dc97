"""``new-bot`` checks the kit's toolchain and names what is missing and its install command."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from goatarena.cli import main
from goatarena.cli import new_bot as new_bot_module
from goatarena.cli._toolchain import Toolchain, missing_toolchain

KITS = Path(__file__).resolve().parent.parent / "kits"


def fake_kits(tmp_path: Path, check: str, apt: list[str]) -> Path:
    """A kits folder whose go kit has the toolchain ``check`` and ``apt`` packages."""
    kit = tmp_path / "kits" / "go"
    kit.mkdir(parents=True)
    listed = ", ".join(f'"{package}"' for package in apt)
    (kit / "kit.toml").write_text(
        f'language = "go"\ntitle = "Go"\n[toolchain]\ncheck = "{check}"\napt = [{listed}]\n'
    )
    (kit / "main.go").write_text("package main\n")
    return tmp_path / "kits"


@pytest.mark.parametrize("kit", sorted(path.parent.name for path in KITS.glob("*/kit.toml")))
def test_every_kit_names_its_check_and_its_debian_packages(kit):
    toolchain = Toolchain.from_kit(KITS / kit)
    assert toolchain.check.strip() and toolchain.title
    assert kit == "python" or toolchain.apt  # the Python kit needs only goatarena itself


def test_a_missing_tool_is_named_with_the_command_that_installs_it(tmp_path, monkeypatch):
    kits = fake_kits(
        tmp_path, "true && goatarena-no-such-tool --version", ["goatarena-no-such-pkg"]
    )
    monkeypatch.setattr(new_bot_module, "KITS", kits)
    folder = tmp_path / "mine"
    made = CliRunner().invoke(main, ["new-bot", "go", str(folder)])
    assert made.exit_code == 2
    # The folder is still made and the commands printed; the last line says what is missing.
    assert (folder / "main.go").is_file() and f"make -C {folder}" in made.output
    error = made.output.strip().splitlines()[-1]
    assert error.startswith(f"goatarena: error: {folder} is made, but cannot be built here yet")
    assert "`goatarena-no-such-tool --version` failed" in error
    assert "goatarena-no-such-pkg" in error
    if shutil.which("apt-get"):
        assert "apt-get install goatarena-no-such-pkg" in error


def test_only_the_packages_not_installed_are_named():
    dpkg_query = shutil.which("dpkg-query")
    status = dpkg_query and subprocess.run(
        [dpkg_query, "-W", "-f=${Status}", "make"], capture_output=True, text=True
    )
    if not status or not status.stdout.endswith(" installed") or not shutil.which("apt-get"):
        pytest.skip("needs Debian's dpkg and apt-get, with make installed")
    toolchain = Toolchain("Go", "false", ("make", "goatarena-no-such-pkg"))
    said = missing_toolchain(toolchain)
    assert said is not None and said.endswith("apt-get install goatarena-no-such-pkg")


def test_a_present_toolchain_says_nothing_more(tmp_path, monkeypatch):
    monkeypatch.setattr(new_bot_module, "KITS", fake_kits(tmp_path, "true", ["make"]))
    made = CliRunner().invoke(main, ["new-bot", "go", str(tmp_path / "mine")])
    assert made.exit_code == 0, made.output
    assert "error" not in made.output and "--bot builtin:random" in made.output


def test_new_bot_from_outside_the_repository_names_a_missing_go(tmp_path):
    # PATH holds only this interpreter's folder: no go, whatever this machine has.
    env = {**os.environ, "PATH": str(Path(sys.executable).parent)}
    made = subprocess.run(
        [sys.executable, "-m", "goatarena", "new-bot", "go", "mybot"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert made.returncode == 2, made.stderr
    assert (tmp_path / "mybot" / "main.go").is_file()
    lines = made.stderr.strip().splitlines()
    assert len(lines) == 1 and "`go version` failed" in lines[0] and "golang-go" in lines[0]
