"""The command line where its output cannot go: a full disk, closed streams, a terminal
whose encoding cannot show every character, file names that are not UTF-8.

These run ``python -m goatarena`` as a process: what is tested is what the process does
with its real standard output and error.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from goatarena.cli import main
from goatarena.store.opening import open_store
from tests.helpers import RANDOM_BOT
from tests.test_replay import finished_game
from tests.test_tournament import stored_keys, write_config

FULL = Path("/dev/full")  # every write fails with ENOSPC, as on a full disk
needs_dev_full = pytest.mark.skipif(not FULL.exists(), reason="needs /dev/full")


def goatarena(*args: str | Path, **options) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "goatarena", *map(str, args)], timeout=120, check=False, **options
    )


def small_database(path: Path) -> Path:
    store = open_store(path)
    for number in range(3):
        store.add_game(f"g/{number}", 1, finished_game("goat-lords", 3, seed=number))
    store.close()
    return path


@needs_dev_full
@pytest.mark.parametrize(
    "command",
    [["games"], ["--help"], ["run", "--help"], ["standings"], ["export"], ["replay", "1"]],
    ids=lambda c: " ".join(c),
)
def test_output_to_a_full_disk_is_one_line_and_a_non_zero_exit(tmp_path, command):
    db = small_database(tmp_path / "t.sqlite")
    # Help is printed by click before any command runs: it must end the same way.
    needs_db = command[0] in ("standings", "export", "replay")
    args = [*command, "--db", db] if needs_db else command
    with FULL.open("w") as full:
        done = goatarena(*args, stdout=full, stderr=subprocess.PIPE)
    assert done.returncode == 2
    assert (
        done.stderr.decode()
        == "goatarena: error: cannot write the output: No space left on device\n"
    )


@needs_dev_full
def test_a_run_whose_progress_cannot_be_written_still_plays_and_stores_every_game(tmp_path):
    config = write_config(tmp_path / "t.toml", bots={"a": RANDOM_BOT, "b": RANDOM_BOT})
    db = tmp_path / "t.sqlite"
    with FULL.open("w") as full:
        done = goatarena(
            "run", config, "--db", db, "--sandbox", "none", stdout=subprocess.PIPE, stderr=full
        )
    assert done.returncode == 0
    assert b"overall" in done.stdout  # the standings, at the end
    assert len(stored_keys(db)) == 2


def test_a_run_started_with_its_output_closed_plays_and_stores_every_game(tmp_path):
    config = write_config(tmp_path / "t.toml", bots={"a": RANDOM_BOT, "b": RANDOM_BOT})
    db = tmp_path / "t.sqlite"

    def close_output() -> None:
        os.close(1)
        os.close(2)

    done = goatarena("run", config, "--db", db, "--sandbox", "none", preexec_fn=close_output)
    assert done.returncode == 0
    assert len(stored_keys(db)) == 2


def test_a_terminal_that_cannot_show_every_character_gets_the_rest(tmp_path):
    db = small_database(tmp_path / "t.sqlite")
    env = {**os.environ, "PYTHONIOENCODING": "latin-1"}
    for args in (["games"], ["replay", "1", "--db", db]):
        done = goatarena(*args, env=env, capture_output=True)
        assert done.returncode == 0, done.stderr
        assert b"Goat Lords" in done.stdout and b"Traceback" not in done.stderr


def test_a_database_whose_name_is_not_utf8_can_be_read(tmp_path):
    db = small_database(Path(os.fsdecode(bytes(tmp_path) + b"/r\xe9sultats.sqlite")))
    for args in (["standings"], ["list"], ["replay", "2"]):
        result = CliRunner().invoke(main, [*args, "--db", str(db)])
        assert result.exit_code == 0, result.output
    assert "bot2" in result.output


@needs_dev_full
def test_a_live_board_that_cannot_be_written_stops_the_game_in_one_line(tmp_path):
    # The board is drawn inside the game's trio loop: the failure comes out wrapped.
    args = ["play", "mountain-goats", "--watch", "--delay", "0", "--sandbox", "none"]
    with FULL.open("w") as full:
        done = goatarena(
            *args, "--bot", RANDOM_BOT, "--bot", RANDOM_BOT, stdout=full, stderr=subprocess.PIPE
        )
    assert done.returncode == 2
    assert (
        done.stderr.decode()
        == "goatarena: error: cannot write the output: No space left on device\n"
    )
