"""Which folder a bot's command makes its own, and which words are refused
(goatarena.referee.command_paths); the attacks themselves are tests/test_sandbox_folders.py."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from goatarena.referee.command_paths import ForeignPath, command_folders, own_folder


def layout(tmp_path: Path) -> Path:
    """A bot's folder holding its program, a data file, a class folder and links out."""
    bot = tmp_path / "bots" / "alice"
    (bot / "classes").mkdir(parents=True)
    (bot / "bot.py").write_text("")
    (bot / "book.bin").write_text("")
    (tmp_path / "bots" / "bob").mkdir()
    (tmp_path / "shared").mkdir()
    (bot / "peek").symlink_to("../bob")
    (bot / "lib").symlink_to(os.path.realpath("/usr/lib"))
    return bot


def test_the_programs_folder_is_the_bots_own_and_words_inside_it_are_fine(tmp_path):
    bot = layout(tmp_path)
    argv = [sys.executable, "-u", "bots/alice/bot.py", "bots/alice/book.bin", "--depth=3"]
    named = command_folders(argv, tmp_path)
    assert named.own == str(bot)
    assert command_folders(["java", "-cp", "bots/alice/classes", "Bot"], tmp_path).own == str(
        bot / "classes"
    )
    # The system's programs and files are no one's own, but may be named.
    assert command_folders(["/usr/bin/env", "python3", str(bot / "bot.py")], tmp_path).own == str(
        bot
    )
    assert command_folders([sys.executable, str(bot / "bot.py"), "/usr/lib"], tmp_path).own


@pytest.mark.parametrize(
    "word, leads_to",
    [
        ("bots/alice/peek", "bots/bob"),
        ("bots/alice/lib", os.path.realpath("/usr/lib")),
        ("bots/bob", "bots/bob"),
        ("./shared", "shared"),
        ("/usr", "/usr"),
        ("/", "/"),
    ],
)
def test_a_word_leading_out_of_its_folder_is_refused_in_one_line(tmp_path, word, leads_to):
    layout(tmp_path)
    with pytest.raises(ForeignPath) as refused:
        command_folders([sys.executable, "bots/alice/bot.py", word], tmp_path, name="alice")
    message = str(refused.value)
    target = leads_to if leads_to.startswith("/") else str(tmp_path / leads_to)
    assert message.startswith("bot 'alice': the word ") and f"leads to {target}," in message
    assert "\n" not in message


def test_a_path_given_to_the_bot_may_be_named(tmp_path):
    layout(tmp_path)
    argv = [sys.executable, "bots/alice/bot.py", "shared"]
    assert command_folders(argv, tmp_path, [str(tmp_path / "shared")]).own is not None


def test_a_folder_holding_the_system_is_no_bots_own():
    with pytest.raises(ForeignPath, match="leads to /usr, outside the system's folders"):
        command_folders(["python3", "."], Path("/usr"))


def test_a_relative_entry_on_path_makes_no_working_folder_a_runtimes(tmp_path, monkeypatch):
    bot = layout(tmp_path)
    monkeypatch.setenv("PATH", f".{os.pathsep}{os.environ['PATH']}")
    monkeypatch.chdir(tmp_path)
    assert own_folder([sys.executable, "bots/alice/bot.py"], tmp_path) == str(bot)
