"""Editing a ladder's file (add, update, retire) and its [ladder] settings' checks."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from goatarena.cli import main
from goatarena.errors import ConfigError
from goatarena.formats.ladder.edit import add_bot, retire_bot, sweep_leftovers, update_bot
from goatarena.formats.ladder.roster import ErrorWatch, base_name, next_version
from goatarena.formats.tournament_file import load_config
from tests.helpers import RANDOM_BOT

LADDER = f"""# my ladder
name = "lad"
format = "ladder"

[bots]
# the first two
alpha = "{RANDOM_BOT}"
beta = "{RANDOM_BOT}"

[[games]]
name = "mountain-goats"
"""


def ladder_file(tmp_path: Path, text: str = LADDER) -> Path:
    path = tmp_path / "lad.toml"
    path.write_text(text)
    return path


def test_add_update_and_retire_keep_the_file_valid_and_its_comments(tmp_path):
    path = ladder_file(tmp_path)
    assert add_bot(path, "gamma", "python3 gamma.py") == f"added gamma to {path}"
    assert update_bot(path, "alpha", "python3 alpha2.py").startswith("added alpha@2")
    assert update_bot(path, "alpha", "python3 alpha3.py").startswith("added alpha@3")
    assert retire_bot(path, "beta") == f"retired beta in {path}"
    text = path.read_text()
    assert "# my ladder" in text and "# the first two" in text
    config = load_config(path)
    assert list(config.bots) == ["alpha", "beta", "gamma", "alpha@2", "alpha@3"]
    assert config.bots["alpha@3"].endswith("alpha3.py")  # resolved against the folder
    assert config.ladder.retired == ["alpha", "alpha@2", "beta"]
    tomllib.loads(text)


def test_editing_refuses_what_makes_no_sense_and_leaves_the_file_alone(tmp_path):
    path = ladder_file(tmp_path)
    before = path.read_text()
    for call, message in (
        (lambda: add_bot(path, "alpha", "x"), "in the ladder already"),
        (lambda: add_bot(path, "a@2", "x"), "versions are named"),
        (lambda: add_bot(path, "bad name", "x"), "not allowed"),
        (lambda: update_bot(path, "nobody", "x"), "no bot 'nobody'"),
        (lambda: retire_bot(path, "nobody"), "no bot 'nobody'"),
    ):
        with pytest.raises(ConfigError, match=message):
            call()
    retire_bot(path, "beta")
    with pytest.raises(ConfigError, match="retired already"):
        retire_bot(path, "beta")
    assert path.read_text() != before
    assert not list(tmp_path.glob(".lad.toml.*"))  # no temporary file left behind
    round_robin = ladder_file(tmp_path, LADDER.replace('format = "ladder"\n', ""))
    with pytest.raises(ConfigError, match="not a ladder"):
        add_bot(round_robin, "gamma", "x")


def test_the_ladder_commands_edit_the_file_and_say_so_in_one_line(tmp_path):
    path = ladder_file(tmp_path)
    (tmp_path / "b2.py").write_text("")
    update = ["ladder", "update", str(path), "beta", f"python3 {tmp_path / 'b2.py'}"]
    result = CliRunner().invoke(main, update)
    assert result.exit_code == 0, result.output
    assert result.output == f"added beta@2 to {path}; beta is retired\n"
    result = CliRunner().invoke(main, ["ladder", "retire", str(path), "nobody"])
    assert result.exit_code != 0 and "no bot 'nobody'" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ("suspend_share = 2.0", "ladder.suspend_share: must be between 0 and 1"),
        ("floor = -1", "ladder.floor"),
        ('retired = ["nobody"]', "ladder.retired: 'nobody' is not one of the bots"),
        ("stop_games = -3", "ladder.stop_games: must be at least 0"),
    ],
)
def test_bad_ladder_settings_name_the_field(tmp_path, settings, message):
    path = ladder_file(tmp_path, LADDER + f"\n[ladder]\n{settings}\n")
    with pytest.raises(ConfigError, match=message):
        load_config(path)


def test_ladder_settings_outside_a_ladder_are_refused(tmp_path):
    text = LADDER.replace('format = "ladder"\n', "") + "\n[ladder]\nstop_games = 3\n"
    with pytest.raises(ConfigError, match="only a ladder has these settings"):
        load_config(ladder_file(tmp_path, text))


def test_versions_and_the_error_watch():
    assert base_name("greedy@12") == "greedy" and base_name("greedy") == "greedy"
    assert next_version(["greedy", "greedy@2", "other"], "greedy") == "greedy@3"
    watch = ErrorWatch(games=50, share=0.10)
    reasons = [watch.add("x", violated=number % 4 == 0) for number in range(30)]
    assert all(reason is None for reason in reasons[:20])
    assert reasons[-1] is not None and reasons[-1].startswith("suspended: ")
    clean = ErrorWatch(games=50, share=0.10)
    assert all(clean.add("y", violated=n % 20 == 0) is None for n in range(200))


SEPARATORS = "\u0085\u2028\u2029"


def test_a_command_holding_line_separators_keeps_the_file_editable(tmp_path):
    path = ladder_file(tmp_path)
    runner = CliRunner()
    command = f"builtin:random --tag a{SEPARATORS}b"
    added = runner.invoke(main, ["ladder", "add", str(path), "odd", command])
    assert added.exit_code == 0, added.output
    text = path.read_text(encoding="utf-8")
    assert not any(char in text for char in SEPARATORS)  # written as escapes
    assert "\\u2028" in text
    for args in (
        ["add", str(path), "gamma", "builtin:random"],
        ["update", str(path), "odd", "builtin:greedy"],
        ["retire", str(path), "gamma"],
    ):
        result = runner.invoke(main, ["ladder", *args])
        assert result.exit_code == 0, result.output
    config = load_config(path)
    assert config.bots["odd"] == command
    assert config.ladder.retired == ["odd", "gamma"]
    # A file that holds the separators raw (an older version, a hand edit) is split on
    # "\n" only: the line holding them stays one line.
    path.write_text(text.replace("\\u2028", "\u2028"), encoding="utf-8")
    assert add_bot(path, "delta", "builtin:random").startswith("added delta")
    assert load_config(path).bots["odd"] == command


def test_ladder_add_refuses_a_program_that_does_not_exist(tmp_path):
    path = ladder_file(tmp_path)
    before = path.read_text()
    for command, named in (
        ("./bots/ghost/bot", "bots/ghost/bot: file not found"),
        ("python3 ghost.py", "ghost.py: file not found"),
        ("no-such-program-here --fast", "no-such-program-here: program not found on PATH"),
    ):
        result = CliRunner().invoke(main, ["ladder", "add", str(path), "ghost", command])
        assert result.exit_code == 2, result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and named in lines[0], result.output
        assert f"nothing was added to {path}" in lines[0]
        assert path.read_text() == before
    script = tmp_path / "not-executable"
    script.write_text("#!/bin/sh\n")
    result = CliRunner().invoke(main, ["ladder", "add", str(path), "ghost", str(script)])
    assert result.exit_code == 2 and "not executable" in result.output
    update = CliRunner().invoke(main, ["ladder", "update", str(path), "beta", "./gone"])
    assert update.exit_code == 2 and "gone: file not found" in update.output
    assert path.read_text() == before
    script.chmod(0o755)
    result = CliRunner().invoke(main, ["ladder", "add", str(path), "ghost", str(script)])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    ("name", "said"),
    [("bjö", "ASCII letters"), ("my bot", "'my bot' is not allowed"), ("x" * 65, "at most 64")],
)
def test_a_bad_bot_name_is_refused_naming_the_name_and_the_file(tmp_path, name, said):
    path = ladder_file(tmp_path)
    result = CliRunner().invoke(main, ["ladder", "add", str(path), name, "builtin:random"])
    assert result.exit_code == 2
    assert said in result.output and f"nothing was added to {path}" in result.output
    assert ".lad.toml." not in result.output  # not the hidden file the edit is checked in


def test_a_refused_edit_names_the_users_file_not_the_temporary_one(tmp_path):
    path = ladder_file(tmp_path)
    with pytest.raises(ConfigError) as refused:
        add_bot(path, "gamma", "   ")
    assert str(refused.value).startswith(f"{path}: bots.gamma: empty command")
    assert not list(tmp_path.glob(".lad.toml.*"))


def test_ladder_why_takes_the_ladder_file_and_says_so_when_databases_are_many(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    path = ladder_file(tmp_path)
    results = tmp_path / "results"
    results.mkdir()
    for name in ("one", "two"):
        (results / f"{name}.sqlite").touch()
    result = CliRunner().invoke(main, ["ladder", "why", "600"])
    assert result.exit_code == 2
    assert "several results databases under results/ (one.sqlite, two.sqlite)" in result.output
    assert "--db results/one.sqlite" in result.output
    assert "goatarena ladder why FILE 600" in result.output
    result = CliRunner().invoke(main, ["ladder", "why", str(path), "600"])
    assert result.exit_code == 2 and "no results database results/lad.sqlite" in result.output
    result = CliRunner().invoke(main, ["ladder", "why", str(path), "1", "2"])
    assert result.exit_code == 2 and "give the ladder's FILE and one game KEY" in result.output
    result = CliRunner().invoke(main, ["ladder", "why", str(path)])
    assert result.exit_code == 2 and "which game? give its KEY after the file" in result.output


KILLED_MID_EDIT = """\
import os, signal, sys
from pathlib import Path
from goatarena.formats.ladder.edit import add_bot

os.replace = lambda *args: os.kill(os.getpid(), signal.SIGKILL)  # killed before the rename
add_bot(Path(sys.argv[1]), "late", sys.argv[2])
"""


def killed_mid_edit(path: Path) -> Path:
    """The hidden file an edit of ``path`` killed (kill -9) just before its rename left."""
    before = set(path.parent.iterdir())
    done = subprocess.run([sys.executable, "-c", KILLED_MID_EDIT, str(path), RANDOM_BOT])
    assert done.returncode == -signal.SIGKILL
    (left,) = set(path.parent.iterdir()) - before
    return left


def test_an_edit_killed_mid_way_leaves_a_hidden_file_that_the_next_edit_sweeps(tmp_path):
    path = ladder_file(tmp_path)
    before = path.read_text()
    left = killed_mid_edit(path)
    assert left.name.startswith(".lad.toml.") and left.name.endswith(".toml")
    assert path.read_text() == before  # the file itself is as it was
    # A file of the organiser's of a like name, and one a living edit holds, stay.
    notes = tmp_path / ".lad.toml.my-notes.toml"
    notes.write_text("mine")
    living = tmp_path / ".lad.toml.abcd1234.toml"
    living.write_text("")
    long_ago = time.time() - 600
    for old in (left, notes, living):
        os.utime(old, (long_ago, long_ago))
    with open(living) as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        assert sweep_leftovers(path) == [left]
    assert not left.exists() and notes.exists() and living.exists()
    # A fresh leftover is swept by a later edit, once past the instant an edit takes.
    fresh = killed_mid_edit(path)
    assert sweep_leftovers(path) == []
    os.utime(fresh, (long_ago, long_ago))
    add_bot(path, "gamma", RANDOM_BOT)
    # ... with the one whose holder let it go; the organiser's file stays.
    assert sorted(p.name for p in tmp_path.iterdir()) == [".lad.toml.my-notes.toml", "lad.toml"]
    assert "gamma" in load_config(path).bots and "late" not in load_config(path).bots


def test_an_edit_puts_the_new_file_on_the_disk_before_its_rename_and_the_rename_after(
    tmp_path, monkeypatch
):
    """A power cut cannot be staged in a test; what it needs can: the hidden file synced
    before it is renamed over the ladder's file, then the folder holding the rename."""
    path = ladder_file(tmp_path)
    done: list[tuple[str, str]] = []
    sync, rename = os.fsync, os.replace

    def fsync(handle: int) -> None:
        done.append(("fsync", os.readlink(f"/proc/self/fd/{handle}")))
        sync(handle)

    def replace(source, target) -> None:
        done.append(("rename", str(source)))
        rename(source, target)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    add_bot(path, "gamma", RANDOM_BOT)
    (renamed,) = [name for step, name in done if step == "rename"]
    assert Path(renamed).name.startswith(".lad.toml.")
    assert done == [("fsync", renamed), ("rename", renamed), ("fsync", str(tmp_path))]
