"""Pre-flight and relative paths: a tournament runs the same from any folder, and a bot
that cannot start stops the run before anything is written, saying why."""

from __future__ import annotations

import shlex
import shutil
import sys

import pytest
from click.testing import CliRunner

from goatarena.cli import main
from goatarena.formats.tournament_file import load_config, resolve_command
from goatarena.referee.sandbox import explain_denial, probe
from tests.helpers import RANDOM_BOT, ROOT
from tests.test_tournament import write_config


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def test_words_naming_files_beside_the_tournament_file_become_absolute(tmp_path):
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "mine.py").write_text("")
    assert resolve_command("python3 bots/mine.py --depth 3", tmp_path) == shlex.join(
        ["python3", str(tmp_path / "bots" / "mine.py"), "--depth", "3"]
    )
    # Nothing to resolve: the command is kept exactly as written.
    assert resolve_command("python3  other.py 'a b'", tmp_path) == "python3  other.py 'a b'"
    # A word too long to be a file name (a whole program after -c, say) is no path.
    program = "python3 -c " + shlex.quote("print(1)\n" * 100)
    assert resolve_command(program, tmp_path) == program
    assert resolve_command("/usr/bin/env -S bots/mine.py", tmp_path).endswith(
        str(tmp_path / "bots" / "mine.py")
    )
    # Written as a relative path, a program not built yet is resolved all the same.
    assert resolve_command("../kits/go/bot", tmp_path / "t") == str(tmp_path / "kits/go/bot")
    assert resolve_command("./bot --fast", tmp_path) == f"{tmp_path / 'bot'} --fast"


def test_a_tournament_runs_the_same_from_another_folder(tmp_path, monkeypatch):
    folder = tmp_path / "project"
    (folder / "bots").mkdir(parents=True)
    shutil.copy(ROOT / "bots" / "python" / "random_bot.py", folder / "bots" / "r.py")
    command = f"{shlex.quote(sys.executable)} bots/r.py"
    config = write_config(folder / "t.toml", bots={"a": command, "b": command + " 2"})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    result = run("run", "../project/t.toml", "--quiet")
    assert result.exit_code == 0, result.output
    assert "crash" not in result.output and "disqualified" not in result.output
    assert (elsewhere / "results" / "t.sqlite").exists()
    assert load_config(config).bots["a"].endswith(str(folder / "bots" / "r.py"))


def test_a_missing_bot_stops_the_run_before_anything_is_written(tmp_path):
    bots = {"alpha": RANDOM_BOT, "typo": f"{shlex.quote(sys.executable)} bots/rnadom_bot.py"}
    config = write_config(tmp_path / "t.toml", bots=bots)
    db = tmp_path / "t.sqlite"
    result = run("run", str(config), "--db", str(db))
    assert result.exit_code == 2
    assert "bot 'typo' did not start" in result.output
    assert "bots/rnadom_bot.py" in result.output  # its command
    assert "No such file or directory" in result.output  # its stderr
    assert "'alpha'" not in result.output
    # A typo'd path names nothing beside the file and so stays relative to the working
    # folder: the message says where paths are meant to be.
    assert f"bot paths are relative to {tmp_path.resolve()}" in result.output
    assert sorted(path.name for path in tmp_path.iterdir()) == ["t.toml"]  # no database, no logs


def test_a_bot_with_a_syntax_error_shows_the_end_of_its_stderr(tmp_path):
    script = tmp_path / "broken.py"
    script.write_text("def play(:\n    pass\n")
    bots = {"alpha": RANDOM_BOT, "broken": f"{shlex.quote(sys.executable)} broken.py"}
    config = write_config(tmp_path / "t.toml", bots=bots)
    result = run("run", str(config), "--db", str(tmp_path / "t.sqlite"))
    assert result.exit_code == 2
    lines = result.output.splitlines()
    assert "bot 'broken' did not start" in lines[0] and "exited with code 1" in lines[0]
    shown = [line for line in lines if line.startswith("    | ")]
    # Not just the last line: the file, the line and the error.
    assert len(shown) >= 3 and any("SyntaxError" in line for line in shown)
    assert any("broken.py" in line for line in shown)
    assert not (tmp_path / "t.sqlite").exists()


def test_a_bot_that_never_says_hello_is_named_with_its_timeout(tmp_path):
    silent = f"{shlex.quote(sys.executable)} -c 'import time; time.sleep(30)'"
    config = write_config(tmp_path / "t.toml", bots={"alpha": RANDOM_BOT, "mute": silent})
    config.write_text(config.read_text().replace("[time]", "[time]\nstartup_ms = 300"))
    result = run("run", str(config), "--db", str(tmp_path / "t.sqlite"))
    assert result.exit_code == 2
    assert "bot 'mute' did not start" in result.output and "no hello within 300 ms" in result.output


def test_play_shows_the_end_of_a_broken_bots_stderr(tmp_path):
    script = tmp_path / "broken.py"
    script.write_text("import sys\nprint('first clue', file=sys.stderr)\nraise SystemExit(3)\n")
    result = CliRunner().invoke(
        main,
        ["play", "mountain-goats", "--bot", f"{sys.executable} {script}", "--bot", RANDOM_BOT],
    )
    assert result.exit_code == 2
    assert "did not start: crash: exited with code 3" in result.output
    assert "    | first clue" in result.output


def test_shipped_files_name_bots_relative_to_their_folder():
    for path in sorted((ROOT / "tournaments").glob("*.toml")):
        for command in load_config(path).bots.values():
            named = str(ROOT / "bots") in command or str(ROOT / "kits") in command
            assert named or command.startswith("builtin:"), (path, command)


def test_check_bot_shows_the_end_of_the_stderr_of_a_bot_that_does_not_start(tmp_path):
    script = tmp_path / "broken.py"
    script.write_text("def play(:\n    pass\n")
    result = run("check-bot", f"{sys.executable} {script}", "--games", "1")
    assert result.exit_code == 1
    assert "FAIL  start-up" in result.output and "    | SyntaxError" in result.output


@pytest.mark.skipif(probe() is not None, reason=f"no sandbox here: {probe()}")
def test_a_file_the_sandbox_hides_is_named_hidden_and_a_missing_one_missing(tmp_path):
    """A bot reading a sibling folder's file is told the sandbox hides it, with the hint;
    a file that is nowhere is said to be missing, and the sandbox is not blamed."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "table.txt").write_text("42\n")
    (tmp_path / "bot").mkdir()
    python = shlex.quote(sys.executable)
    bots = {"alpha": RANDOM_BOT}
    for name, wanted in (("hidden", "table.txt"), ("missing", "nothing.txt")):
        # The path is in the program, not its command line: a bot is given the folders
        # its command names.
        script = tmp_path / "bot" / f"{name}.py"
        script.write_text(f"open({str(tmp_path / 'data' / wanted)!r}).read()\n")
        bots[name] = f"{python} {script}"
    config = write_config(tmp_path / "t.toml", bots=bots)
    result = run("run", str(config), "--db", str(tmp_path / "t.sqlite"))
    assert result.exit_code == 2
    lines = result.output.splitlines()
    hidden = next(line for line in lines if "bot 'hidden' did not start" in line)
    assert f"{tmp_path / 'data' / 'table.txt'} exists but the sandbox hides it" in hidden
    assert "[paths.NAME]" in hidden  # the hint: how to give it that file
    missing = next(line for line in lines if "bot 'missing' did not start" in line)
    assert "nothing.txt does not exist outside the sandbox either" in missing
    assert "the sandbox hides" not in missing


def test_a_missing_file_is_the_sandboxs_doing_only_if_it_exists_outside(tmp_path):
    (tmp_path / "here.txt").write_text("")
    there = f"[Errno 2] No such file or directory: '{tmp_path / 'here.txt'}'"
    assert "exists but the sandbox hides it" in (explain_denial(there) or "")
    nowhere = f"[Errno 2] No such file or directory: '{tmp_path / 'gone.txt'}'"
    assert (
        explain_denial(nowhere)
        == f"{tmp_path / 'gone.txt'} does not exist outside the sandbox either"
    )
    # Relative paths are the bot's folder's; C tools put the path before the message.
    assert "hides it" in (
        explain_denial("cat: here.txt: No such file or directory", cwd=tmp_path) or ""
    )
    assert "hides it" in (explain_denial(f"bwrap: execvp {tmp_path}/here.txt: No such file") or "")
    # Named nowhere: the hint, hedged.
    assert (explain_denial("ENOENT: no such file or directory") or "").startswith(
        "if that file exists"
    )
