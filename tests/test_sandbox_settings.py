"""Sandbox settings: refusing where there is no sandbox, ``none``, paths, pausing without
cgroups, and what the settings do to a tournament's identity."""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import trio
from click.testing import CliRunner

from goatarena.cli import main
from goatarena.errors import ConfigError
from goatarena.formats.tournament_file import load_config
from goatarena.referee import cgroups, launcher, sandbox, seccomp
from goatarena.referee.bot import open_bot
from goatarena.referee.bot_uids import BOT_GID, UID_BASE
from goatarena.referee.process_tree import process_tree
from goatarena.referee.sandbox import SandboxPolicy, probe, sandbox_argv
from tests.helpers import RANDOM_BOT, may_be_real_time, python_bot


@pytest.fixture
def no_sandbox_here(monkeypatch):
    monkeypatch.setattr(sandbox, "probe", lambda: "no user namespaces (a test says so)")


def write(path: Path, extra: str = "") -> Path:
    lines = ['name = "s"', extra, "[bots]", f"a = {json.dumps(RANDOM_BOT)}"]
    lines += [f"b = {json.dumps(RANDOM_BOT)}", '[[games]]\nname = "mountain-goats"\nplayers = 2']
    path.write_text("\n".join(lines) + "\n")
    return path


def test_play_refuses_in_one_line_where_bots_cannot_be_sandboxed(no_sandbox_here):
    result = CliRunner().invoke(
        main, ["play", "mountain-goats", "--bot", RANDOM_BOT, "--bot", RANDOM_BOT]
    )
    assert result.exit_code == 2
    [line] = result.output.strip().splitlines()
    assert "cannot be sandboxed" in line and "--sandbox none" in line
    assert "Traceback" not in result.output


def test_run_refuses_before_it_stores_anything_and_none_runs_anyway(tmp_path, no_sandbox_here):
    config = write(tmp_path / "s.toml")
    db = tmp_path / "s.sqlite"
    refused = CliRunner().invoke(main, ["run", "--quiet", str(config), "--db", str(db)])
    assert refused.exit_code == 2 and "cannot be sandboxed" in refused.output
    ran = CliRunner().invoke(
        main, ["run", "--quiet", str(config), "--db", str(db), "--sandbox", "none"]
    )
    assert ran.exit_code == 0, ran.output
    assert "a " in ran.output and "b " in ran.output


def test_sandbox_settings_leave_the_tournament_the_same(tmp_path):
    plain = load_config(write(tmp_path / "a.toml"))
    other = load_config(write(tmp_path / "b.toml", 'sandbox = "none"\nponder = true\ntmp_mb = 8'))
    assert plain.fingerprint() == other.fingerprint()
    public = load_config(write(tmp_path / "c.toml", "secret_deals = false"))
    assert public.fingerprint() != plain.fingerprint()


def test_paths_must_name_a_bot(tmp_path):
    with pytest.raises(ConfigError, match="paths.c: no bot of that name"):
        load_config(write(tmp_path / "s.toml", '[paths.c]\nread = ["x"]'))


def test_runner_files_inside_a_given_folder_are_masked(tmp_path):
    tmp_path.chmod(0o755)  # readable by a root runner's bots: shown as it is, not copied
    (tmp_path / "bot.py").write_text("")
    (tmp_path / "r.sqlite").write_text("")
    (tmp_path / "logs").mkdir()
    policy = SandboxPolicy(hidden=(str(tmp_path / "r.sqlite"), str(tmp_path / "logs")))
    argv = sandbox_argv(
        ["python3", str(tmp_path / "bot.py")], policy, bwrap="bwrap", cwd=tmp_path, bot_uid=UID_BASE
    )
    joined = " ".join(argv)
    assert f"--ro-bind-try {tmp_path} {tmp_path}" in joined
    assert f"--ro-bind /dev/null {tmp_path / 'r.sqlite'}" in joined
    assert f"--tmpfs {tmp_path / 'logs'}" in joined
    assert "--unshare-net" in argv and "--cap-drop" in argv


def states(pids: list[int]) -> set[str]:
    found = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            found.add(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0])
    return found


def cpu_ticks(pids: list[int]) -> int:
    """The CPU time the processes have used, in clock ticks (user and system)."""
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
    return total


async def halts(pids: list[int]) -> bool:
    """Whether the processes come to use no CPU at all for a while: paused, whether by
    the freezer (the processes then only look asleep) or by SIGSTOP."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        before = cpu_ticks(pids)
        await trio.sleep(0.3)
        if cpu_ticks(pids) == before:
            return True
    return False


async def settles(pids: list[int], wanted: Callable[[set[str]], bool]) -> bool:
    """Whether the processes' states come to be as wanted. A stopped process shows as
    stopped only once it has run again to take the signal: on a busy machine, a while.
    The referee's loop runs meanwhile, as it does between turns in a match."""
    deadline = time.monotonic() + 10
    while not wanted(states(pids)):
        if time.monotonic() > deadline:
            return False
        await trio.sleep(0.01)
    return True


@pytest.mark.skipif(probe() is not None, reason="no sandbox here")
def test_without_cgroups_pausing_stops_the_whole_process_tree(monkeypatch):
    monkeypatch.setattr(launcher.BotCgroup, "create", classmethod(lambda cls, **_: None))
    code = (
        "import os, sys, time\n"
        "for _ in range(2):\n"
        "    if os.fork() == 0:\n"
        "        os.setsid()\n"
        "        while True: pass\n"
        'print(\'{"type":"hello","name":"t"}\', flush=True)\n'
        "sys.stdin.readline(); time.sleep(60)\n"
    )

    async def main() -> None:
        async with open_bot(python_bot(code), sandbox=SandboxPolicy()) as bot:
            assert bot.confinement.cgroup is None
            assert await bot.greet(30) == "t"  # greeting pauses it
            tree = process_tree(bot.pid)
            assert len(tree) >= 5  # bubblewrap, its init, the bot and two burners
            assert await settles(tree[1:], lambda found: found == {"T"})
            bot.resume()
            assert await settles(tree[1:], lambda found: "T" not in found)
            bot.pause()
            assert await settles(tree[1:], lambda found: found == {"T"})

    trio.run(main)


@pytest.mark.skipif(probe() is not None, reason="no sandbox here")
@pytest.mark.parametrize("ponder", [False, True])
def test_a_greeted_bot_is_paused_unless_it_may_ponder(ponder):
    code = 'print(\'{"type":"hello","name":"t"}\', flush=True)\nwhile True: pass\n'

    async def main() -> None:
        async with open_bot(python_bot(code), sandbox=SandboxPolicy(ponder=ponder)) as bot:
            assert await bot.greet(30) == "t"
            inside = process_tree(bot.pid)[1:]
            if ponder:
                time.sleep(0.1)
                assert "T" not in states(inside)
            else:
                assert await halts(inside)

    trio.run(main)


ANSWER = 'print(\'{"type":"action","index":0}\', flush=True)'
FORK = "if os.fork() == 0:\n    while True: pass"
FORKS_THEN_ANSWERS = f"{FORK}\n{ANSWER}"
ANSWERS_THEN_FORKS = f"{ANSWER}\n{FORK}"  # the fork is under way as the bot is paused


@pytest.mark.skipif(probe() is not None, reason="no sandbox here")
@pytest.mark.parametrize(
    "turn", [FORKS_THEN_ANSWERS, ANSWERS_THEN_FORKS], ids=["forks-first", "answers-first"]
)
@pytest.mark.parametrize("cgroup", [True, False], ids=["cgroup", "no-cgroup"])
def test_pausing_stops_processes_started_since_the_last_pause(turn, cgroup, monkeypatch):
    if not cgroup:
        monkeypatch.setattr(launcher.BotCgroup, "create", classmethod(lambda cls, **_: None))
    code = (
        "import os, sys\n"
        'print(\'{"type":"hello","name":"t"}\', flush=True)\n'
        "for line in sys.stdin:\n"
        "    if line != 'go\\n': continue\n"
        + "".join(f"    {line}\n" for line in turn.splitlines())
    )

    async def main() -> None:
        async with open_bot(python_bot(code), sandbox=SandboxPolicy()) as bot:
            assert await bot.greet(30) == "t"
            for turns in range(1, 6):  # in quick succession, as decisions come
                bot.resume()
                await bot.send_bytes(b"go\n")
                await bot.receive_line()
                bot.pause()
                await trio.sleep(0.05)  # the fork done, wherever it was
                inside = process_tree(bot.pid)[1:]
                # Its init, the bot and a child per turn (the last may come at the next).
                assert len(inside) >= 1 + turns
                assert await halts(inside), states(inside)

    trio.run(main)


def test_a_results_folder_inside_a_bots_folder_is_hidden_whole_but_never_the_bots_folder(
    tmp_path,
):
    tmp_path.chmod(0o755)
    (tmp_path / "bot.py").write_text("")
    (tmp_path / "results").mkdir()
    policy = SandboxPolicy(
        hidden=(str(tmp_path / "results"),), hidden_where_possible=(str(tmp_path),)
    )
    argv = sandbox_argv(
        ["python3", "bot.py"], policy, bwrap="bwrap", cwd=tmp_path, bot_uid=UID_BASE
    )
    joined = " ".join(argv)
    assert f"--tmpfs {tmp_path / 'results'}" in joined
    assert f"--tmpfs {tmp_path} " not in joined


WRITER = """
import json, sys
folder, public = sys.argv[1], sys.argv[2]
with open(folder + "/out.txt", "w") as file:
    file.write(open(public + "/model.txt").read())
try:
    open(public + "/forged.txt", "w")
    print("wrote into a read-only path", file=sys.stderr)
except OSError as error:
    print(f"read-only: {error.strerror}", file=sys.stderr)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "writer"}), flush=True)
    elif message["type"] == "decide":
        print(json.dumps({"type": "action", "index": 0}), flush=True)
    elif message["type"] == "quit":
        break
"""


@pytest.mark.skipif(probe() is not None, reason="no sandbox here")
def test_paths_given_to_a_bot_can_be_read_or_written_as_given(tmp_path):
    scratch, public = tmp_path / "scratch", tmp_path / "public"
    scratch.mkdir()
    public.mkdir()
    (public / "model.txt").write_text("weights")
    if os.geteuid() == 0:  # its bots run in group nogroup, to which a path to write is given
        os.chown(scratch, 0, BOT_GID)
        scratch.chmod(0o775)
    bot = f"{python_bot(WRITER)} {scratch} {public}"
    result = CliRunner().invoke(
        main,
        ["play", "mountain-goats", "--seed", "1", "--quiet", "--log-dir", str(tmp_path / "l")]
        + ["--read", str(public), "--write", str(scratch), "--bot", bot, "--bot", RANDOM_BOT],
    )
    assert result.exit_code == 0, result.output
    assert (scratch / "out.txt").read_text() == "weights"
    assert not (public / "forged.txt").exists()
    assert "read-only: Read-only file system" in (tmp_path / "l" / "seat0.log").read_text()


def test_doctor_says_which_system_calls_and_cpu_shares_bots_get():
    result = CliRunner().invoke(main, ["doctor"])
    assert "Traceback" not in result.output
    [calls] = [line for line in result.output.splitlines() if line.startswith("system calls")]
    refused = seccomp.filter_program() is not None
    assert ("seccomp refuses ptrace" in calls) is refused, calls
    [share] = [line for line in result.output.splitlines() if line.startswith("CPU share")]
    cpu = "cpu" in cgroups.detect().controllers
    assert ("one share per bot" in share) is cpu, share
    [clock] = [line for line in result.output.splitlines() if line.startswith("referee's clock")]
    assert ("real-time (SCHED_FIFO 1)" in clock) is may_be_real_time(), clock


def test_whatever_a_bind_shows_of_the_runner_is_masked_after_it_and_the_bot_shown_above(
    tmp_path,
):
    """A tree given whole (as /usr is) holding an arena: the masks come after the bind
    of the tree, each secret once, and the bot's own folder after the mask over it."""
    tree = tmp_path / "tree"
    own, other = tree / "arena" / "bots" / "a", tree / "arena" / "bots" / "b"
    for folder in (own, other):
        folder.mkdir(parents=True)
        (folder / "bot.py").write_text("")
    (tree / "arena" / "r.sqlite").write_text("")
    tmp_path.chmod(0o755)
    for folder in (tree, tree / "arena", tree / "arena" / "bots", own, other):
        folder.chmod(0o755)
    policy = SandboxPolicy(
        read_paths=(str(tree),),
        hidden=(str(tree / "arena" / "r.sqlite"),),
        hidden_where_possible=(str(tree / "arena"), str(own), str(other)),
    )
    argv = sandbox_argv(
        ["python3", str(own / "bot.py")], policy, bwrap="bwrap", cwd=tmp_path, bot_uid=UID_BASE
    )
    words = " ".join(argv)
    at = words.index
    assert at(f"--ro-bind-try {tree} {tree}") < at(f"--tmpfs {tree / 'arena'} ")
    assert at(f"--tmpfs {tree / 'arena'} ") < at(f"--ro-bind-try {own} {own}")
    # Inside the masked arena, the database and the other bot need no mask of their own.
    assert str(tree / "arena" / "r.sqlite") not in words.split(" -- ")[0]
    assert f"--tmpfs {other}" not in words
    assert f"--remount-ro {tree / 'arena'}" in words


def test_a_runners_file_that_is_a_bots_own_folder_refuses_the_bot(tmp_path):
    tmp_path.chmod(0o755)
    (tmp_path / "bot.py").write_text("")
    policy = SandboxPolicy(hidden=(str(tmp_path),))
    with pytest.raises(sandbox.SandboxLayoutError, match="cannot hide"):
        sandbox_argv(
            ["python3", str(tmp_path / "bot.py")],
            policy,
            bwrap="bwrap",
            cwd=tmp_path,
            bot_uid=UID_BASE,
        )


def test_doctor_on_a_v1_freezer_says_how_to_get_the_cheaper_one(tmp_path, monkeypatch):
    # A cgroup v1 machine without the unified hierarchy pauses by freezer.state, 30 times
    # dearer than cgroup.freeze: doctor says how to mount the unified hierarchy.
    from goatarena.referee import doctor
    from goatarena.referee.cgroups import CgroupSupport

    v1 = CgroupSupport(1, bases={"freezer": tmp_path, "memory": tmp_path})
    monkeypatch.setattr(doctor, "detect", lambda: v1)
    rows = dict(doctor.isolation_report()[0])
    assert rows["between turns"].startswith("cgroup v1 freezer")
    assert "mount -t cgroup2 none /sys/fs/cgroup/unified" in rows["between turns"]
    (tmp_path / "cgroup.freeze").write_text("0")  # the unified hierarchy's freezer
    rows = dict(doctor.isolation_report()[0])
    assert "unified" in rows["between turns"] and "mount -t" not in rows["between turns"]
