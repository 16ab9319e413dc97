"""Attacks through what a bot's folder and command name, each by the hostile test bot
tests/bots/hostile_folders.py: a submission whose command names a link to the system (so
that every other bot would have it masked), links to a root-owned folder, to another
bot's folder or to the results (so that a root runner would copy them readable for it),
a folder of too many files to copy, and copies left behind in /tmp (a worker's log
folder: tests/test_cluster.py).

Every game is played through the command line, as an organiser would; a test checks that
the attack was made and failed, and that the honest seats lost nothing. Where only the
sandbox stops an attack it is also made with ``--sandbox none``, where it must work.
"""

from __future__ import annotations

import fcntl
import json
import os
import shlex
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from goatarena.cli import main
from goatarena.referee.readable_copy import COPIES_PREFIX, COPY_LIMIT_ENTRIES, LOCK_NAME
from goatarena.referee.sandbox import probe
from tests.helpers import ROOT
from tests.test_sandbox import HONEST, assert_honest_game

pytestmark = pytest.mark.skipif(probe() is not None, reason=f"no sandbox here: {probe()}")

HOSTILE = ROOT / "tests" / "bots" / "hostile_folders.py"
RANDOM_BOT = ROOT / "bots" / "python" / "random_bot.py"
ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="the runner is not root here")
SYSTEM_LIBRARIES = next(
    os.path.realpath(path)
    for path in ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib")
    if os.path.isdir(path)
)
"""A folder every bot's runtime (and a root runner's setpriv) loads libraries from."""


def submission(folder: Path, mode: int = 0o755, **links: str) -> Path:
    """A bot's folder holding the hostile bot and the given links (name -> target)."""
    folder.mkdir(parents=True, mode=mode)
    folder.chmod(mode)
    shutil.copy(HOSTILE, folder / "bot.py")
    (folder / "bot.py").chmod(0o644 if mode & 0o044 else 0o600)
    for name, target in links.items():
        (folder / name).symlink_to(target)
    return folder


def hostile(folder: Path, *words: object) -> str:
    return shlex.join([sys.executable, str(folder / "bot.py"), uuid.uuid4().hex, *map(str, words)])


def play(tmp_path: Path, first: str, *options: str, second: str = HONEST):
    """``play`` of ``first`` against ``second``: the result and the first seat's log."""
    logs = tmp_path / f"logs-{uuid.uuid4().hex[:8]}"
    result = CliRunner().invoke(
        main,
        ["play", "mountain-goats", "--json", "--quiet", "--log-dir", str(logs)]
        + ["--move-ms", "5000", *options, "--bot", first, "--bot", second],
    )
    log = logs / "seat0.log"
    return result, log.read_text() if log.exists() else ""


def assert_refused(result, *named: str) -> None:
    """One line per refusal, naming what it must, and no game."""
    assert result.exit_code != 0, result.output
    assert "Traceback" not in result.output, result.output
    for word in named:
        assert word in result.output, (word, result.output)


def outcome_of(result) -> dict:
    assert result.exit_code == 0, result.output
    return json.loads(result.output.strip().splitlines()[-1])


def tournament(folder: Path, bots: dict[str, str]) -> Path:
    lines = ['name = "t"', "seed = 0", "[time]", "move_ms = 5000", "[bots]"]
    lines += [f"{json.dumps(name)} = {json.dumps(command)}" for name, command in bots.items()]
    lines += ['[[games]]\nname = "mountain-goats"\nplayers = 2']
    (folder / "t.toml").write_text("\n".join(lines) + "\n")
    return folder / "t.toml"


# -- one submission disqualifies the field --------------------------------------------------


def test_a_command_word_leading_into_the_system_is_refused_or_masks_nothing(tmp_path):
    folder = submission(tmp_path / "mallory", lib=SYSTEM_LIBRARIES)
    # A link in its folder, named as a word: it would be its own, masked for every other.
    result, _ = play(tmp_path, hostile(folder, folder / "lib"))
    assert_refused(result, f"{folder / 'lib'}'", f"leads to {SYSTEM_LIBRARIES}")
    assert len([line for line in result.output.splitlines() if "leads to" in line]) == 1
    # The system's folder itself as a word: the system's, never anyone's to mask.
    result, log = play(tmp_path, hostile(folder, SYSTEM_LIBRARIES))
    assert_honest_game(outcome_of(result))
    assert "tried folders" in log, log
    # A tournament: the honest bots start, and play every game without a violation.
    arena = tmp_path / "arena"
    arena.mkdir()
    for name in ("alice", "bob"):
        (arena / name).mkdir()
        shutil.copy(RANDOM_BOT, arena / name / "bot.py")
    bots = {
        "mallory": hostile(folder, SYSTEM_LIBRARIES),
        **{name: f"{sys.executable} {arena / name / 'bot.py'}" for name in ("alice", "bob")},
    }
    db = arena / "t.sqlite"
    result = CliRunner().invoke(
        main, ["run", "--quiet", str(tournament(arena, bots)), "--db", str(db)]
    )
    assert result.exit_code == 0, result.output
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT result FROM games").fetchall()
    assert len(rows) == 6
    assert all(json.loads(text)["violations"] == [None, None] for (text,) in rows)


def test_no_system_or_runtime_folder_is_ever_masked_for_a_bot(tmp_path):
    from goatarena.referee.sandbox_view import view_args

    folder = submission(tmp_path / "bot")
    (folder / "theirs").mkdir()  # another bot's folder inside this one's: masked
    shared = [SYSTEM_LIBRARIES, "/usr/share", "/etc", "/etc/ssl", sys.prefix]
    args = view_args(
        [sys.executable, str(folder / "bot.py")],
        tmp_bytes=1 << 20,
        read_paths=(),
        write_paths=(),
        hidden=(),
        hidden_where_possible=[*shared, str(folder / "theirs")],
        cwd=tmp_path,
    )
    masked = {args[at + 1] for at, word in enumerate(args) if word in ("--tmpfs", "/dev/null")}
    assert str(folder / "theirs") in masked
    assert not masked.intersection([*shared, *map(os.path.realpath, shared)]), masked


def test_a_run_refuses_a_word_leading_out_before_anything_is_written(tmp_path):
    arena = tmp_path / "arena"
    (arena / "bob").mkdir(parents=True)
    shutil.copy(RANDOM_BOT, arena / "bob" / "bot.py")
    folder = submission(arena / "mallory", peek="../bob", res="../results")
    bots = {
        "mallory": hostile(folder, folder / "peek", folder / "res"),
        "bob": f"{sys.executable} {arena / 'bob' / 'bot.py'}",
    }
    db = arena / "t.sqlite"
    result = CliRunner().invoke(
        main, ["run", "--quiet", str(tournament(arena, bots)), "--db", str(db)]
    )
    assert_refused(result, "bot 'mallory'", f"leads to {arena / 'bob'}")
    assert "bob" not in result.output.replace(str(arena / "bob"), "")  # no honest bot blamed
    assert not db.exists()


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_another_tournaments_database_in_a_bots_own_folder_stays_hidden(tmp_path, sandbox):
    """The results folder is hidden whole unless it is a bot's own folder; then every
    other database in it (and its logs) is still hidden, file by file."""
    folder = submission(tmp_path / "bot")
    with sqlite3.connect(folder / "old.sqlite") as connection:
        connection.execute("CREATE TABLE secrets (deal TEXT)")
    (folder / "old-logs").mkdir()
    (folder / "old-logs" / "bob.log").write_text("bob's stderr")
    snooper = hostile(folder, "@old.sqlite", "@old-logs")
    config = tournament(tmp_path, {"snooper": snooper, "honest": HONEST})
    db = folder / "new.sqlite"
    result = CliRunner().invoke(
        main, ["run", "--quiet", str(config), "--db", str(db), "--sandbox", sandbox]
    )
    assert result.exit_code == 0, result.output
    log = (folder / "new-logs" / "snooper.log").read_text()
    assert "tried folders" in log, log
    breaches = [line for line in log.splitlines() if line.startswith("BREACH")]
    if sandbox == "none":  # the attack is real
        assert len(set(breaches)) == 2, log  # in each of its games
    else:
        assert breaches == [], breaches


# -- the readable copy as a privilege ---------------------------------------------------------


@ROOT_ONLY
@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_links_out_of_a_copied_folder_show_nothing_of_root_another_bot_or_the_results(
    tmp_path, sandbox
):
    vault = tmp_path / "vault"  # root's alone
    vault.mkdir(mode=0o700)
    (vault / "key.pem").write_text("-----BEGIN PRIVATE KEY-----")
    (vault / "key.pem").chmod(0o600)
    bob = tmp_path / "bob"
    bob.mkdir(mode=0o700)
    (bob / "secret.txt").write_text("bob's weights")
    (bob / "secret.txt").chmod(0o600)
    results = tmp_path / "results"
    results.mkdir(mode=0o700)
    (results / "other.sqlite").write_text("another tournament's deal secrets")
    # Its own folder is closed to the bots' group, so a root runner copies it.
    folder = submission(
        tmp_path / "mallory", 0o700, model=str(vault), peek="../bob", res="../results"
    )
    reads = ["@model/key.pem", "@peek/secret.txt", "@res/other.sqlite", "@model", "@peek"]
    result, log = play(tmp_path, hostile(folder, *reads), "--sandbox", sandbox)
    assert_honest_game(outcome_of(result))
    assert "tried folders" in log, log
    breaches = [line for line in log.splitlines() if line.startswith("BREACH")]
    if sandbox == "none":  # the attack is real
        assert len(breaches) >= 3, log
    else:
        assert breaches == [], breaches
    # Named as words of its command, the links (or the folders themselves) are refused.
    for word, target in [
        (folder / "model", vault),
        (folder / "peek", bob),
        (folder / "res", results),
        (vault, vault),
        (bob / "secret.txt", bob / "secret.txt"),
    ]:
        result, _ = play(tmp_path, hostile(folder, word))
        assert_refused(result, f"'{word}'", f"leads to {target}")


# -- a folder of too many files ----------------------------------------------------------------


@ROOT_ONLY
def test_a_folder_of_too_many_files_to_copy_is_refused_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    folder = submission(tmp_path / "many", 0o700)
    crowd = folder / "crowd"
    crowd.mkdir()
    for number in range(COPY_LIMIT_ENTRIES + 1):
        os.close(os.open(crowd / str(number), os.O_CREAT | os.O_WRONLY, 0o600))
    result, _ = play(tmp_path, hostile(folder))
    assert_refused(result, str(folder), f"more than {COPY_LIMIT_ENTRIES} files", "chmod -R a+rX")
    assert list(tmp_path.glob(COPIES_PREFIX + "*")) == []


@ROOT_ONLY
def test_a_named_pipe_in_a_copied_folder_holds_nothing_up(tmp_path):
    """Copying would open the pipe and wait for a writer for ever (or refuse the copy)."""
    folder = submission(tmp_path / "piped", 0o700)
    os.mkfifo(folder / "pipe", 0o600)
    result, log = play(tmp_path, hostile(folder, "@pipe"))
    assert_honest_game(outcome_of(result))
    assert "tried folders" in log and "BREACH" not in log, log


# -- copies left behind ------------------------------------------------------------------------


def lock_is_free(copy: Path) -> bool:
    """Whether no process holds ``copy``'s lock (as the sweep asks)."""
    lock = os.open(copy / LOCK_NAME, os.O_RDWR | os.O_CLOEXEC)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:
        return False
    finally:
        os.close(lock)


def holders(copy: Path) -> list[str]:
    """The processes that have ``copy``'s lock file open (what keeps it from a sweep)."""
    found = []
    for fd_folder in Path("/proc").glob("[0-9]*/fd"):
        try:
            if any(os.readlink(fd).startswith(str(copy / LOCK_NAME)) for fd in fd_folder.iterdir()):
                found.append((fd_folder.parent / "cmdline").read_text().replace("\0", " "))
        except OSError:
            continue
    return found


@ROOT_ONLY
def test_copies_are_removed_after_play_and_run_and_swept_after_a_kill(tmp_path, monkeypatch):
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    folder = submission(tmp_path / "closed", 0o700)  # copied for a root runner's bot

    def copies() -> list[Path]:
        return list(scratch.glob(COPIES_PREFIX + "*"))

    result, log = play(tmp_path, hostile(folder))
    assert_honest_game(outcome_of(result))
    assert "tried folders" in log
    assert copies() == []
    arena = tmp_path / "arena"
    arena.mkdir()
    bots = {"closed": hostile(folder), "honest": HONEST}
    db = arena / "results" / "t.sqlite"  # the default: made by the run
    monkeypatch.chdir(arena)
    result = CliRunner().invoke(main, ["run", "--quiet", str(tournament(arena, bots))])
    assert result.exit_code == 0, result.output
    assert copies() == []
    # The runner's files are its own: the results folder 0700, the database and logs 0600.
    assert db.parent.stat().st_mode & 0o077 == 0
    assert db.stat().st_mode & 0o077 == 0
    for log_file in (arena / "results" / "t-logs").iterdir():
        assert log_file.stat().st_mode & 0o077 == 0, log_file
    # A play killed while its bot plays leaves its copy; the next command sweeps it.
    killed = subprocess.Popen(
        [sys.executable, "-m", "goatarena", "play", "mountain-goats", "--quiet"]
        + ["--move-ms", "60000", "--bot", hostile(folder, "linger"), "--bot", HONEST],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
    )
    try:
        deadline = time.monotonic() + 60

        # Killed once its folder of copies has its maker's lock file: a folder killed
        # before it had one is swept only after a grace (its maker may be starting).
        def locked() -> bool:
            return any((copy / LOCK_NAME).exists() for copy in copies())

        while not locked() and time.monotonic() < deadline and killed.poll() is None:
            time.sleep(0.05)
        assert locked(), "the killed play made no copy"
    finally:
        killed.send_signal(signal.SIGKILL)
        killed.wait()
    [left] = copies()
    # A child the killed play had forked but not yet started its program in holds the
    # lock until it does: the sweep is for the next start once no process holds it.
    deadline = time.monotonic() + 30
    while not lock_is_free(left) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert lock_is_free(left), f"held by: {holders(left)}"
    result, _ = play(tmp_path, hostile(folder))
    assert_honest_game(outcome_of(result))
    assert not left.exists(), f"left: {sorted(left.iterdir())}, held by: {holders(left)}"
    assert copies() == []


# -- a ladder's newcomers ------------------------------------------------------------------------


@pytest.mark.slow
def test_a_ladder_newcomer_reaching_out_of_its_folder_is_refused_and_the_others_play_on(tmp_path):
    from goatarena.formats.ladder.edit import add_bot
    from tests.test_ladder import games_of, run_with, until

    arena = tmp_path / "arena"
    for name in ("alice", "bob"):
        (arena / name).mkdir(parents=True)
        shutil.copy(RANDOM_BOT, arena / name / f"{name}.py")
    bots = {name: f"{sys.executable} {arena / name / f'{name}.py'}" for name in ("alice", "bob")}
    path = tmp_path / "lad.toml"
    lines = [f"{json.dumps(name)} = {json.dumps(command)}" for name, command in bots.items()]
    path.write_text(
        'name = "lad"\nformat = "ladder"\nseed = 5\nconcurrency = 2\n\n[bots]\n'
        + "\n".join(lines)
        + '\n\n[ladder]\npoll_s = 0.2\n\n[[games]]\nname = "mountain-goats"\nplayers = 2\n'
    )
    folder = submission(tmp_path / "mallory", lib=SYSTEM_LIBRARIES)
    beside = arena / "alice" / "mallory.py"  # a file of its own in another bot's folder
    shutil.copy(HOSTILE, beside)

    async def script(runner) -> None:
        ladder = runner.ladder
        await until(lambda: games_of(runner, "alice") >= 2, "alice and bob play")
        add_bot(path, "linked", hostile(folder, folder / "lib"))
        add_bot(path, "lodger", f"{sys.executable} {beside} {uuid.uuid4().hex}")
        add_bot(path, "fair", hostile(folder))
        await until(
            lambda: {"linked", "lodger"} <= set(ladder.put_out) and "fair" in ladder.validated,
            "the newcomers are validated",
        )
        played = games_of(runner, "alice")
        await until(lambda: games_of(runner, "alice") >= played + 4, "alice plays on")

    runner = run_with(path, tmp_path / "lad.sqlite", script)
    put_out = runner.ladder.put_out
    assert f"leads to {SYSTEM_LIBRARIES}" in put_out["linked"], put_out
    assert f"shares its folder {arena / 'alice'} with bot 'alice'" in put_out["lodger"], put_out
    assert "alice" not in put_out and "bob" not in put_out and "fair" not in put_out
    assert games_of(runner, "linked") == games_of(runner, "lodger") == 0
