"""Editing a ladder's file (add, update, retire) and its [ladder] settings' checks."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from goatarena.cli import main
from goatarena.errors import ConfigError
from goatarena.formats.ladder.edit import add_bot, retire_bot, update_bot
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
    result = CliRunner().invoke(main, ["ladder", "update", str(path), "beta", "python3 b2.py"])
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
