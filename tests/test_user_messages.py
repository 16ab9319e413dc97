"""Messages for a user's mistakes: one line that says what is wrong and what to do."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from goatarena.cli import main
from tests.helpers import misbehaving

TOURNAMENT = """\
name = "two"
seed = 1
deals = 1
[time]
startup_ms = 30000
[bots]
random = "builtin:random"
greedy = "builtin:greedy"
[[games]]
name = "mountain-goats"
players = 2
"""


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A finished two-game tournament's database."""
    folder = tmp_path_factory.mktemp("played")
    (folder / "two.toml").write_text(TOURNAMENT)
    db = folder / "two.sqlite"
    ran = invoke("run", str(folder / "two.toml"), "--db", str(db), "--sandbox", "none", "--quiet")
    assert ran.exit_code == 0, ran.output
    return db


def test_run_refuses_a_database_in_a_folder_that_does_not_exist(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "two.toml").write_text(TOURNAMENT)
    ran = invoke("run", "two.toml", "--db", "no/such/dir/x.sqlite", "--sandbox", "none")
    assert ran.exit_code == 2
    assert ran.output.strip().splitlines() == [
        "goatarena: error: cannot keep results in no/such/dir/x.sqlite:"
        " the folder no/such/dir does not exist (make it first)"
    ]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["two.toml"]


def test_list_says_there_is_no_such_bot_and_names_the_known_ones(played):
    listed = invoke("list", "--db", str(played), "--bot", "nosuch")
    assert listed.exit_code == 2
    assert listed.output.strip() == (
        f"goatarena: error: no bot 'nosuch' in {played}: its bots are greedy, random"
    )
    close = invoke("list", "--db", str(played), "--bot", "gredy")
    assert close.exit_code == 2 and "did you mean 'greedy'?" in close.output


def test_list_of_a_known_bot_with_no_matching_game_is_no_error(played):
    listed = invoke("list", "--db", str(played), "--bot", "greedy", "--violations")
    assert listed.exit_code == 0 and "0 of 2 stored games" in listed.output


@pytest.mark.parametrize("number", ["0", "3"])
def test_replay_of_a_number_out_of_range_says_they_start_at_1(played, number):
    replayed = invoke("replay", number, "--db", str(played))
    assert replayed.exit_code == 2
    assert replayed.output.strip() == (
        f"goatarena: error: {played} has no game number {number}: the games are numbered"
        " from 1 to 2 in finishing order (goatarena list shows them)"
    )


def test_a_bot_command_with_a_pipe_is_refused_by_play_in_one_line():
    played = invoke(
        "play", "mountain-goats", "--sandbox", "none",
        "--bot", "builtin:random | tee bot.log", "--bot", "builtin:random",
    )  # fmt: skip
    assert played.exit_code == 2
    lines = played.output.strip().splitlines()
    assert len(lines) == 1 and "no shell runs a bot command" in lines[0] and "sh -c" in lines[0]


def test_play_marks_the_moves_played_for_a_forfeited_seat():
    played = invoke(
        "play", "mountain-goats", "--seed", "3", "--sandbox", "none",
        "--bot", misbehaving("exit", 2), "--bot", "builtin:random",
    )  # fmt: skip
    assert played.exit_code == 0, played.output
    moves = [
        (int(found[1]), found[2], found[0])
        for found in re.finditer(r"^  \[(\d+)\] (\d) .*$", played.output, re.MULTILINE)
    ]
    assert len(moves) > 6
    marked = {number for number, _, line in moves if "forfeited seat" in line}
    seat_zero = [number for number, seat, _ in moves if seat == "0"]
    # It played its first two decisions (0 and 2) itself and crashed at the third (4).
    assert marked == {number for number in seat_zero if number >= 4}
    assert "crash at decision 4" in played.output
