"""Built-in bots (``builtin:random``, ...) and how a bot command is split.

The built-in bots ship inside the package, so a command names them from any folder:
the tests that run goatarena do it from a temporary folder outside the repository.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from goatarena.bots import BUILTIN_MODULES
from goatarena.bots.random_bot import parse_seed
from goatarena.errors import BotError
from goatarena.referee.command import parse_command
from tests.helpers import goatarena

REPOSITORY = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", sorted(BUILTIN_MODULES))
def test_a_builtin_name_runs_its_module_with_this_interpreter(name):
    argv = parse_command(f"builtin:{name} --seed 3")
    assert argv == [sys.executable, "-m", BUILTIN_MODULES[name], "--seed", "3"]


def test_an_unknown_builtin_name_is_refused_naming_the_known_ones():
    with pytest.raises(BotError, match="no built-in bot 'builtin:nosuch'.*builtin:random"):
        parse_command("builtin:nosuch")


@pytest.mark.parametrize(
    ("command", "word"),
    [
        ("./bot | tee bot.log", "|"),
        ("make && ./bot", "&&"),
        ("./bot > out.txt", ">"),
        ("./bot 2> err.txt", "2>"),
        ("cd bot; ./bot", None),  # "bot;" is one word: ";" glued to a word is passed on
        ("./bot ; echo", ";"),
    ],
)
def test_shell_syntax_in_a_command_is_refused_saying_no_shell_runs_it(command, word):
    if word is None:
        assert parse_command(command) == ["cd", "bot;", "./bot"]
        return
    with pytest.raises(BotError) as caught:
        parse_command(command)
    message = str(caught.value)
    assert f"({word})" in message and "no shell runs a bot command" in message
    assert "sh -c " in message and "\n" not in message


def test_a_shell_command_given_to_sh_is_accepted_and_so_is_an_argv_list():
    assert parse_command("sh -c './bot | tee bot.log'") == ["sh", "-c", "./bot | tee bot.log"]
    assert parse_command(["./bot", "|"]) == ["./bot", "|"]  # an explicit argv is as meant


@pytest.mark.parametrize(
    ("argv", "seed"),
    [([], None), (["7"], 7), (["--seed", "7"], 7), (["--seed", "7", "7"], 7)],
)
def test_the_random_bot_takes_its_seed_as_an_option_or_a_bare_number(argv, seed):
    assert parse_seed(argv) == seed


def test_the_random_bot_refuses_two_different_seeds():
    with pytest.raises(SystemExit):
        parse_seed(["--seed", "7", "8"])


def test_every_bundled_bot_takes_seed_as_an_option():
    for name in BUILTIN_MODULES:
        shown = subprocess.run(
            [sys.executable, "-m", BUILTIN_MODULES[name], "--help"],
            capture_output=True,
            text=True,
            check=True,
        )
        assert "--seed" in shown.stdout, name


def test_play_names_builtin_bots_from_outside_the_repository(tmp_path):
    played = goatarena(
        "play", "mountain-goats", "--seed", "3", "--json", "--quiet",
        "--bot", "builtin:random", "--bot", "builtin:greedy --seed 1",
        cwd=tmp_path,
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    outcome = json.loads(played.stdout.strip().splitlines()[-1])
    assert outcome["violations"] == [None, None]
    assert not (tmp_path / "bots").exists() and REPOSITORY not in tmp_path.parents


def test_check_bot_checks_a_builtin_bot_from_outside_the_repository(tmp_path):
    checked = goatarena(
        "check-bot", "--game", "mountain-goats", "--games", "1", "builtin:random", cwd=tmp_path
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "checks passed" in checked.stdout


def test_a_tournament_file_names_builtin_bots(tmp_path):
    (tmp_path / "t.toml").write_text(
        'name = "builtins"\nseed = 1\ndeals = 1\n'
        '[bots]\nrandom = "builtin:random"\ngreedy = "builtin:greedy"\n'
        '[[games]]\nname = "mountain-goats"\nplayers = 2\n'
    )
    ran = goatarena("run", "t.toml", "--sandbox", "none", cwd=tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "greedy" in ran.stdout and "random" in ran.stdout


def test_the_shell_hint_for_a_builtin_bot_names_what_a_shell_can_run():
    with pytest.raises(BotError) as caught:
        parse_command("builtin:random | tee bot.log")
    assert str(caught.value).endswith(
        "use: sh -c 'python3 -m goatarena.bots.random_bot | tee bot.log'"
    )
