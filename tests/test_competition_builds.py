"""Builds in the sandbox: an honest build works and is kept read-only; a hostile build
cannot read other submissions, the store, root's files or the network, nor outlive its time."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
import trio

from goatarena.competition.builds import (
    BuildLimits,
    build_folder,
    close_after_build,
    open_to_build,
    pin_python,
)
from goatarena.referee.sandbox import probe

pytestmark = pytest.mark.skipif(probe() is not None, reason="no sandbox on this machine")

KITS = Path(__file__).resolve().parent.parent / "goatarena" / "kits"
LIMITS = BuildLimits(
    seconds=20, memory_bytes=512 << 20, processes=64, file_bytes=16 << 20, log_bytes=8 << 10
)
SECRET = "goat-secret-7f3a"


def competition(tmp_path: Path) -> tuple[Path, Path]:
    """A competition's folder with another entrant's build and its database in it."""
    folder = tmp_path / "results" / "class-competition"
    other = folder / "builds" / "1"
    other.mkdir(parents=True)
    (other / "main.py").write_text(f"# {SECRET}\n")
    (folder / "competition.sqlite").write_text(SECRET)
    (tmp_path / "results" / "class.sqlite").write_text(SECRET)
    return folder, folder / "builds" / "2"


def build(tmp_path: Path, makefile: str, limits: BuildLimits = LIMITS):
    folder, mine = competition(tmp_path)
    mine.mkdir()
    (mine / "Makefile").write_text(makefile)
    open_to_build(mine)
    result = trio.run(
        lambda: build_folder(
            mine,
            "make",
            "./bot",
            limits,
            tmp_path / "build.log",
            hidden=(str(tmp_path / "results" / "class.sqlite"),),
            hidden_where_possible=(str(folder), str(tmp_path / "results")),
        )
    )
    close_after_build(mine)
    return result, mine


def recipe(*lines: str) -> str:
    body = "".join(f"\t@-{line}\n" for line in lines)  # @: make does not echo it
    return f"all:\n{body}\tprintf '#!/bin/sh\\n' > bot; chmod +x bot\n"


def test_an_honest_python_build_is_kept_read_only(tmp_path):
    folder, mine = competition(tmp_path)
    import shutil

    shutil.copytree(KITS / "python", mine)
    pin_python(mine)
    open_to_build(mine)
    result = trio.run(lambda: build_folder(mine, "make", "./bot", LIMITS, tmp_path / "build.log"))
    close_after_build(mine)
    assert result.ok, result.log
    assert result.command == str(mine / "bot")
    for path in [mine, *mine.rglob("*")]:
        assert path.stat().st_mode & 0o222 == 0, path
        assert path.stat().st_uid == os.getuid()


@pytest.mark.parametrize(
    "attack",
    [
        "cat ../1/main.py",
        "cat $(CURDIR)/../1/main.py",
        "cat $(CURDIR)/../../competition.sqlite",
        "cat $(CURDIR)/../../../class.sqlite",
        "find / -name main.py -path '*builds/1*' -exec cat {} +",
    ],
    ids=["relative", "absolute", "competition-db", "results-db", "search"],
)
def test_a_build_cannot_read_other_submissions_or_the_store(tmp_path, attack):
    result, _ = build(tmp_path, recipe(attack))
    assert result.ok
    assert SECRET not in result.log


@pytest.mark.skipif(os.getuid() != 0, reason="root's files: a root runner only")
def test_a_build_cannot_read_roots_files(tmp_path):
    secret = Path("/root") / f".goatarena-test-{os.getpid()}"
    secret.write_text(SECRET)
    secret.chmod(0o644)  # readable by all: only the sandbox stands in the way
    try:
        result, _ = build(tmp_path, recipe(f"cat {secret}", "id -u"))
    finally:
        secret.unlink()
    assert SECRET not in result.log
    assert "\n0\n" not in result.log  # it never runs as root


def test_a_build_has_no_network(tmp_path):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.setblocking(False)
    port = listener.getsockname()[1]
    connect = (
        f"import socket; socket.create_connection(('127.0.0.1', {port}), 2); print('{SECRET}')"
    )
    try:
        result, _ = build(tmp_path, recipe(f'python3 -c "{connect}"'))
        with pytest.raises(BlockingIOError):
            listener.accept()
    finally:
        listener.close()
    assert SECRET not in result.log


def test_a_build_that_outlives_its_time_is_stopped(tmp_path):
    quick = BuildLimits(
        seconds=1, memory_bytes=512 << 20, processes=64, file_bytes=1 << 20, log_bytes=4096
    )
    result, _ = build(tmp_path, "all:\n\t(sleep 60 &); sleep 60\n", quick)
    assert not result.ok
    assert "longer than 1 s" in result.reason
    assert result.seconds < 30  # stopped, not waited for


def test_a_failing_build_says_so_and_its_log_is_capped(tmp_path):
    result, _ = build(tmp_path, "all:\n\tyes goat | head -c 100000\n\texit 3\n")
    assert not result.ok
    assert "exit status 2" in result.reason  # make's own status for a failed recipe
    assert len(result.log) < LIMITS.log_bytes + 200
    assert result.log.rstrip().endswith("it reached its cap]")


def test_goatarena_build_builds_a_folder_locally_and_gives_it_back(tmp_path):
    from click.testing import CliRunner

    from goatarena.cli import main

    folder = tmp_path / "mybot"
    folder.mkdir()
    (folder / "Makefile").write_text("all:\n\t@id -u > built-by\n\t@echo > bot\n")
    result = CliRunner().invoke(main, ["build", str(folder)])
    assert result.exit_code == 0, result.output
    assert "built" in result.output and "in the sandbox" in result.output
    assert result.output.rstrip().endswith(f"; its bot: {folder / 'bot'}"), result.output
    assert (folder / "built-by").read_text().strip() != "0"  # not the caller's rights
    assert (folder / "built-by").stat().st_uid == folder.stat().st_uid  # but theirs now
    (folder / "Makefile").write_text("all:\n\t@echo compiling; exit 4\n")
    failed = CliRunner().invoke(main, ["build", str(folder)])
    assert failed.exit_code == 1
    assert "compiling" in failed.output and "the build failed (exit status 2)" in failed.output


def test_a_build_that_fills_its_folder_is_stopped(tmp_path):
    small = BuildLimits(
        seconds=30, memory_bytes=512 << 20, processes=64, file_bytes=4 << 20,
        log_bytes=4096, disk_bytes=2 << 20, disk_entries=1000,
    )  # fmt: skip
    fill = (
        "all:\n\tfor n in 1 2 3 4 5 6 7 8; do head -c 1048576 /dev/zero > f$$n; sleep 0.4; done\n"
    )
    result, folder = build(tmp_path, fill, small)
    assert not result.ok
    assert "wrote more than 2 MiB to its folder" in result.reason
    assert not (folder / "f8").exists()


def test_a_build_that_makes_too_many_files_is_stopped(tmp_path):
    small = BuildLimits(
        seconds=30, memory_bytes=512 << 20, processes=64, file_bytes=4 << 20,
        log_bytes=4096, disk_bytes=64 << 20, disk_entries=1000,
    )  # fmt: skip
    result, _ = build(tmp_path, "all:\n\tmkdir d; cd d; seq 5000 | xargs touch; sleep 20\n", small)
    assert not result.ok
    assert "made more than 1000 files" in result.reason
    assert result.seconds < 15
