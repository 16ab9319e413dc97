"""A competition killed (``kill -9``) at each step of a submission's course, as its
organiser runs it (``goatarena run FILE --serve PORT``), then started again: what was
acknowledged is kept and finished once, what was not leaves nothing behind, and the
ladder's file lists each version once."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from goatarena.competition.uploads import pack_folder
from goatarena.formats.tournament_file import load_config
from goatarena.referee.sandbox import probe
from tests.helpers import goatarena

pytestmark = pytest.mark.skipif(probe() is not None, reason="no sandbox on this machine")

KIT = Path(__file__).resolve().parent.parent / "goatarena" / "kits" / "python"
FILE = """\
name = "class"
format = "ladder"
[time]
move_ms = 300
[bots]
random = "builtin:random"
[ladder]
poll_s = 0.5
[competition]
languages = ["python"]
validation_games = 1
compare_games = 40
[[games]]
name = "mountain-goats"
"""


@contextmanager
def running(folder: Path, port: int = 0) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``goatarena run class.toml --serve 127.0.0.1:PORT`` in ``folder``: the run and its
    site's address; stopped (Ctrl-C) at the end if it still runs."""
    run = subprocess.Popen(
        [sys.executable, "-m", "goatarena", "run", "class.toml", "--serve", f"127.0.0.1:{port}"],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, cwd=folder,
    )  # fmt: skip
    try:
        assert run.stderr is not None
        url = None
        for line in run.stderr:
            found = re.search(r"a competition, serving at (http://[0-9.:]+)", line)
            if found:
                url = found.group(1)
                break
        assert url is not None, "the site never said where it serves"
        yield run, url
    finally:
        if run.poll() is None:
            run.send_signal(signal.SIGINT)
            run.wait(timeout=60)


def site_of(run: subprocess.Popen[str]) -> int:
    """The process id of the run's site (``goatarena serve``, a child of the run)."""
    for entry in Path("/proc").iterdir():
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == run.pid and b"\0serve\0" in command:
            return int(entry.name)
    raise AssertionError("the run has no site process")


def is_alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def kill_run(run: subprocess.Popen[str]) -> None:
    """``kill -9`` the run alone, as an organiser or the OOM killer would; its site's
    process must end by itself."""
    site = site_of(run)
    os.kill(run.pid, signal.SIGKILL)
    run.wait()
    deadline = time.monotonic() + 20
    while is_alive(site) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not is_alive(site), "the site outlived its killed run"


def wait_for(check: Callable[[], bool], what: str, seconds: float = 180) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"never {what}"
        time.sleep(0.05)


def rows(folder: Path, query: str) -> list[tuple[object, ...]]:
    """What the competition's database holds, read as a backup tool would."""
    with sqlite3.connect(folder / "results" / "class-competition" / "competition.sqlite") as db:
        return db.execute(query).fetchall()


def submission(url: str, token: str, number: int) -> dict[str, object]:
    answer = httpx.get(
        f"{url}/api/submissions/{number}", headers={"Authorization": f"Bearer {token}"}, timeout=30
    )
    assert answer.status_code == 200, answer.text
    found: dict[str, object] = answer.json()
    return found


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def post(url: str, token: str, archive: bytes) -> int:
    posted = httpx.post(
        f"{url}/api/submissions?language=python",
        content=archive,
        headers={"Authorization": f"Bearer {token}"},
        timeout=60,
    )
    assert posted.status_code == 202, posted.text
    return int(posted.json()["submission"])


@pytest.mark.slow
def test_killed_during_a_validation_and_a_comparison_each_is_finished_once(tmp_path):
    """kill -9 of the run while an acknowledged submission is validated (its sender's
    goatarena submit following it), then while the next one is compared with it (the
    ladder playing meanwhile): each is taken up again when the run starts again and
    finished once, and the sender's submit ends as if nothing happened; one row per
    submission and version, and each version once in the ladder's file."""
    (tmp_path / "class.toml").write_text(FILE)
    token = goatarena("entrant", "add", "class.toml", "alice", cwd=tmp_path).stdout.split()[-1]
    shutil.copytree(KIT, tmp_path / "mybot")
    archive = pack_folder(tmp_path / "mybot")
    port, first = free_port(), 1

    def state() -> object:
        answer = httpx.get(
            f"{url}/api/submissions/{first}", headers={"Authorization": f"Bearer {token}"}
        )
        return answer.json().get("state")

    with running(tmp_path, port) as (run, url):
        sender = subprocess.Popen(
            [sys.executable, "-m", "goatarena", "submit", url, "mybot", "--token", token],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
        )  # fmt: skip
        wait_for(lambda: state() == "validating", "validating")
        kill_run(run)
    # Killed mid-validation: the database says so, and no version was made of it.
    assert rows(tmp_path, "SELECT id, state FROM submissions") == [(first, "validating")]
    assert "alice@1" not in load_config(tmp_path / "class.toml").bots

    with running(tmp_path, port) as (run, url):
        out, err = sender.communicate(timeout=180)  # it follows the restarted server
        assert sender.returncode == 0, err
        assert "the server is not answering: waiting for it" in out
        assert out.strip().splitlines()[-1] == "alice@1"
        assert submission(url, token, first)["state"] == "active"
        second = post(url, token, archive)
        wait_for(
            lambda: str(submission(url, token, second)["comparison"]).startswith("comparing"),
            "comparing",
        )
        kill_run(run)
    comparing = rows(tmp_path, f"SELECT comparison FROM submissions WHERE id = {second}")
    assert comparing == [("comparing with alice@1",)]  # killed mid-comparison

    with running(tmp_path) as (run, url):
        wait_for(
            lambda: not str(submission(url, token, second)["comparison"]).startswith("comparing"),
            "compared",
        )
        said = str(submission(url, token, second)["comparison"])
    assert re.match(r"alice@2 (is stronger than|is not stronger than|against) alice@1: ", said)
    assert rows(tmp_path, "SELECT id, state, version FROM submissions ORDER BY id") == [
        (first, "active", "alice@1"),
        (second, "active", "alice@2"),
    ]
    assert rows(tmp_path, "SELECT name, submission, state FROM versions ORDER BY name") == [
        ("alice@1", first, "retired"),
        ("alice@2", second, "active"),
    ]
    text = (tmp_path / "class.toml").read_text()
    assert text.count('"alice@1" =') == 1 and text.count('"alice@2" =') == 1
    config = load_config(tmp_path / "class.toml")
    assert config.ladder.retired == ["alice@1"]
    standings = goatarena("standings", "--db", "results/class.sqlite", cwd=tmp_path)
    assert standings.returncode == 0, standings.stderr


def test_a_second_server_of_one_competition_waits_for_the_first_then_says_so(tmp_path):
    """Two servers would build one submission in each other's folder and make a version
    of it twice: the second waits for the first to let go (a run killed ends its site
    within seconds), then refuses in one line."""
    from goatarena.competition.place import claim
    from goatarena.errors import ConfigError

    folder = tmp_path / "results" / "class-competition"
    held = claim(folder)
    with pytest.raises(ConfigError, match=r"^another server is working on this competition"):
        claim(folder, wait_s=0.2)
    os.close(held)  # as the first server's end does, however it ends
    os.close(claim(folder, wait_s=0))


@contextmanager
def dying_server(answers: list[bytes | None]) -> Iterator[str]:
    """A server that takes one request per connection and answers it with the next of
    ``answers``, or (None) reads part of it and closes the connection unanswered, as a
    server killed in the middle of it does (the kernel closes a dead process's sockets)."""
    import socket
    import threading

    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        for answer in answers:
            connection, _ = listener.accept()
            with connection:
                head = b""
                while b"\r\n\r\n" not in head:
                    head += connection.recv(4096)
                if answer is None:
                    continue  # killed while the request arrived
                length = re.search(rb"(?i)content-length: *(\d+)", head)
                body = head.split(b"\r\n\r\n", 1)[1]
                while length and len(body) < int(length.group(1)):
                    body += connection.recv(65536)
                connection.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        listener.close()


def test_submit_says_in_one_line_that_an_upload_a_server_died_in_is_not_stored(tmp_path):
    shutil.copytree(KIT, tmp_path / "mybot")
    with dying_server([None]) as url:
        sent = goatarena("submit", url, "mybot", "--token", "1.x", cwd=tmp_path)
    assert sent.returncode == 2
    said = sent.stderr.strip().splitlines()
    assert len(said) == 1, sent.stderr
    assert said[0].startswith("goatarena: the upload was not acknowledged (cannot reach")


def answer(status: str, body: bytes) -> bytes:
    return (
        b"HTTP/1.1 %s\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (status.encode(), len(body), body)
    )


ACCEPTED = answer("202 Accepted", b'{"submission": 7, "status": "/api/submissions/7"}')


def test_submit_says_in_one_line_that_an_acknowledged_upload_is_kept_when_its_server_dies(
    tmp_path,
):
    shutil.copytree(KIT, tmp_path / "mybot")
    with dying_server([ACCEPTED, *[None] * 5]) as url:
        sent = goatarena("submit", url, "mybot", "--token", "1.x", "--wait-s", "1", cwd=tmp_path)
    assert sent.returncode == 1
    assert sent.stdout.startswith("uploaded mybot")
    said = sent.stderr.strip().splitlines()
    assert len(said) == 1, sent.stderr
    assert said[0].startswith("goatarena: submission 7 is stored, but following it stopped")


def test_submit_following_a_submission_waits_for_its_server_to_come_back(tmp_path):
    """A server killed (and restarted by systemd, say) while submit follows an
    acknowledged submission: submit waits for it and ends as the submission does."""
    shutil.copytree(KIT, tmp_path / "mybot")
    active = answer("200 OK", b'{"number": 7, "state": "active", "version": "alice@1"}')
    with dying_server([ACCEPTED, None, None, active]) as url:
        sent = goatarena("submit", url, "mybot", "--token", "1.x", cwd=tmp_path)
    assert sent.returncode == 0, sent.stderr
    assert "the server is not answering: waiting for it" in sent.stdout
    assert sent.stdout.strip().splitlines()[-1] == "alice@1"


@pytest.fixture
def competition(tmp_path):
    from goatarena.competition.pipeline import Competition

    (tmp_path / "class.toml").write_text(FILE)
    opened = Competition(tmp_path / "class.toml", tmp_path / "results" / "class.sqlite")
    yield opened
    opened.close()


def alice(competition):
    from goatarena.competition.entrants import add_entrant, sign_in

    found = sign_in(competition.store, add_entrant(competition.store, "alice"))
    assert found is not None
    return found


def built_and_named(competition, entrant, *, previous: str | None = None) -> tuple[int, str]:
    """A submission as a stop between the ladder file's edit and the database's leaves
    it: built (read-only), validated, named in the file, still "validating" in the
    database. Its number and command."""
    from goatarena.formats.ladder.edit import add_version

    number = competition.store.add_submission(entrant.id, "python", 1)
    folder = competition.place.build(number)
    folder.mkdir(parents=True)
    (folder / "bot").write_text("#!/bin/sh\n")
    folder.chmod(0o555)
    command = str(folder.absolute() / "bot")
    competition.store.set_state(number, "validating", build_log="built\n")
    add_version(competition.file, entrant.name, command)
    return number, command


def test_a_version_the_file_names_before_a_stop_is_recorded_not_built_again(competition):
    """Killed after the ladder's file named the new version but before the database
    did: the version may be playing already, so it is recorded as it is (its build is
    not removed and made again under the ladder), once."""
    import trio

    entrant = alice(competition)
    number, command = built_and_named(competition, entrant)
    trio.run(competition.process, number)  # as the restarted server takes it up
    done = competition.store.submission(number)
    assert done is not None and done.state == "active" and done.version == "alice@1", done
    assert done.build_log == "built\n"
    assert (competition.place.build(number) / "bot").exists()  # never removed: no archive
    assert [(v.name, v.command) for v in competition.store.versions()] == [("alice@1", command)]
    assert competition.file.read_text().count(command) == 1


def test_a_comparison_is_due_from_the_moment_its_version_is_active(competition):
    """A stop right after a version became active, before its comparison began, leaves
    the comparison due (the server plays it when it starts again); one finished is
    never played again."""
    import trio

    entrant = alice(competition)
    first, _ = built_and_named(competition, entrant)
    trio.run(competition.process, first)
    assert competition.store.submission(first).comparison is None  # type: ignore[union-attr]
    second, _ = built_and_named(competition, entrant)
    trio.run(competition.process, second)
    made = competition.store.submission(second)
    assert made is not None and made.state == "active" and made.version == "alice@2"
    assert made.comparison == "comparing with alice@1"
    assert [due.id for due in competition.store.comparisons_left()] == [second]
    competition.store.set_comparison(second, "alice@2 against alice@1: +0 ± 9 Elo")
    trio.run(competition.compare, second)  # its bots do not even run: nothing is played
    kept = competition.store.submission(second)
    assert kept is not None and kept.comparison == "alice@2 against alice@1: +0 ± 9 Elo"


def test_an_archive_stored_but_never_recorded_is_removed_when_the_server_starts(tmp_path):
    """Killed between storing an archive and recording its row (or while writing it):
    the upload was never acknowledged, and the next start leaves nothing of it."""
    from goatarena.competition.pipeline import Competition

    (tmp_path / "class.toml").write_text(FILE)
    uploads = tmp_path / "results" / "class-competition" / "uploads"
    uploads.mkdir(parents=True)
    (uploads / "1.tar.gz").write_bytes(b"stored, never recorded")
    (uploads / ".2.part").write_bytes(b"half an upload")
    opened = Competition(tmp_path / "class.toml", tmp_path / "results" / "class.sqlite")
    try:
        assert list(uploads.iterdir()) == []
    finally:
        opened.close()


@pytest.mark.slow
def test_killed_during_uploads_keeps_the_acknowledged_whole_and_nothing_of_the_rest(tmp_path):
    """kill -9 of the whole server (its run and its site) while one upload is still
    arriving and just after another was acknowledged: the acknowledged one is kept whole
    and built when the server runs again; of the other there is no archive, no part of
    one, no row."""
    import socket

    (tmp_path / "class.toml").write_text(FILE)
    tokens = {
        name: goatarena("entrant", "add", "class.toml", name, cwd=tmp_path).stdout.split()[-1]
        for name in ("alice", "bob")
    }
    shutil.copytree(KIT, tmp_path / "mybot")
    archive = pack_folder(tmp_path / "mybot")
    uploads = tmp_path / "results" / "class-competition" / "uploads"

    with running(tmp_path) as (run, url):
        host, port = url.removeprefix("http://").split(":")
        arriving = socket.create_connection((host, int(port)))
        arriving.sendall(
            b"POST /api/submissions?language=python HTTP/1.1\r\nHost: arena\r\n"
            b"Authorization: Bearer %s\r\nContent-Length: %d\r\n\r\n%s"
            % (tokens["bob"].encode(), len(archive), archive[: len(archive) // 2])
        )
        number = post(url, tokens["alice"], archive)  # acknowledged
        site = site_of(run)
        os.kill(site, signal.SIGKILL)
        os.kill(run.pid, signal.SIGKILL)
        run.wait()
    try:
        answered = arriving.recv(1024)
    except ConnectionResetError:
        answered = b""
    assert answered == b""  # bob's upload was never answered
    arriving.close()
    taken = rows(tmp_path, "SELECT id, entrant, state FROM submissions")
    assert taken in ([(number, 1, "uploaded")], [(number, 1, "building")])
    assert sorted(path.name for path in uploads.iterdir()) == [f"{number}.tar.gz"]
    assert (uploads / f"{number}.tar.gz").read_bytes() == archive

    with running(tmp_path) as (run, url):
        built = ("validating", "active")  # built after the restart: a build never survives
        wait_for(lambda: submission(url, tokens["alice"], number)["state"] in built, "built")
    assert rows(tmp_path, "SELECT id FROM submissions") == [(number,)]
    assert sorted(path.name for path in uploads.iterdir()) == [f"{number}.tar.gz"]


KILLED_AT = """
import os, signal, sys
from importlib import import_module

where, when, matching = sys.argv.pop(1), sys.argv.pop(1), sys.argv.pop(1)
module, _, name = where.partition(":")
owner_name, _, method = name.rpartition(".")
owner = import_module(module)
for part in filter(None, owner_name.split(".")):
    owner = getattr(owner, part)
original = getattr(owner, method)

def killed(*args, **kwargs):
    if matching not in " ".join(map(str, args)):
        return original(*args, **kwargs)
    if when == "after":
        original(*args, **kwargs)
    os.kill(os.getpid(), signal.SIGKILL)

setattr(owner, method, killed)
sys.argv[0] = "goatarena"
from goatarena.entry import main
main()
"""
"""``python -c KILLED_AT MODULE:OWNER.FUNCTION before|after MATCH ARGS...``: goatarena
ARGS, killed by SIGKILL just before (or after) FUNCTION runs with an argument holding
MATCH: a real ``kill -9`` at one exact moment, without a hook in goatarena itself."""


@contextmanager
def killed_at(folder: Path, where: str, when: str, matching: str = "") -> Iterator[str]:
    """``goatarena serve class.toml`` that kills itself at ``where`` (see
    :data:`KILLED_AT`); its address. It must have died by the block's end."""
    server = subprocess.Popen(
        [sys.executable, "-c", KILLED_AT, where, when, matching, "serve", "class.toml",
         "--port", "0"],
        stderr=subprocess.PIPE, text=True, cwd=folder,
    )  # fmt: skip
    try:
        assert server.stderr is not None
        found = re.search(r"http://[0-9.:]+", server.stderr.readline())
        assert found
        yield found.group(0)
        assert server.wait(timeout=60) == -signal.SIGKILL
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


@pytest.mark.slow
@pytest.mark.parametrize("when", ["before", "after"])
def test_killed_between_storing_an_upload_and_answering_it(tmp_path, when):
    """kill -9 after the archive is stored whole, just before its row is written (or
    just after, before the answer): the sender's goatarena submit says in one line that
    it was not acknowledged; a restarted server keeps nothing of the first, and builds
    the second (stored whole, with its row)."""
    from tests.competition_helpers import served

    (tmp_path / "class.toml").write_text(FILE)
    token = goatarena("entrant", "add", "class.toml", "alice", cwd=tmp_path).stdout.split()[-1]
    shutil.copytree(KIT, tmp_path / "mybot")
    uploads = tmp_path / "results" / "class-competition" / "uploads"
    where = "goatarena.store.competition:CompetitionStore.add_submission"
    with killed_at(tmp_path, where, when) as url:
        sent = goatarena("submit", url, "mybot", "--token", token, cwd=tmp_path)
    assert sent.returncode == 2
    said = sent.stderr.strip().splitlines()
    assert len(said) == 1 and said[0].startswith("goatarena: the upload was not acknowledged")
    assert [path.name for path in uploads.iterdir()] == ["1.tar.gz"]  # stored whole
    with served(tmp_path) as url:
        if when == "before":
            assert rows(tmp_path, "SELECT id FROM submissions") == []
            assert list(uploads.iterdir()) == []
        else:
            assert rows(tmp_path, "SELECT id FROM submissions") == [(1,)]
            built = ("validating", "active")
            wait_for(lambda: submission(url, token, 1)["state"] in built, "built")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("where", "matching", "retired"),
    [
        ("os:replace", "class.toml", False),  # the file's edit, before its rename
        ("goatarena.store.competition:CompetitionStore.set_version_state", "", True),
    ],
)
def test_killed_while_the_organiser_retires_a_version(tmp_path, where, matching, retired):
    """kill -9 while the organiser retires a version: before the ladder file's rename
    the file is as it was (never half-written) and the version plays on; after it, but
    before the database, a restarted server reads the file and retires it there too."""
    from goatarena.competition.entrants import add_entrant
    from goatarena.formats.ladder.edit import add_version
    from goatarena.store.competition import open_competition_store
    from tests.competition_helpers import served

    file = tmp_path / "class.toml"
    file.write_text(FILE)
    store = open_competition_store(
        tmp_path / "results" / "class-competition" / "competition.sqlite"
    )
    try:
        add_entrant(store, "alice")
        organiser = add_entrant(store, "boss", organiser=True)
        entrant = store.entrant_named("alice")
        assert entrant is not None
        number = store.add_submission(entrant.id, "python", 1)
        name, _ = add_version(file, "alice", "builtin:random")
        store.add_version(name, entrant.id, number, "builtin:random")
    finally:
        store.close()
    before = file.read_text()
    with killed_at(tmp_path, where, "before", matching) as url, pytest.raises(httpx.HTTPError):
        httpx.post(
            f"{url}/api/versions/{name}/retire",
            headers={"Authorization": f"Bearer {organiser}"},
            timeout=60,
        )
    config = load_config(file)  # whole, whichever moment it was killed at
    assert (name in config.ladder.retired) is retired
    if not retired:
        assert file.read_text() == before
    assert rows(tmp_path, "SELECT state FROM versions") == [("active",)]
    with served(tmp_path):
        assert rows(tmp_path, "SELECT state FROM versions") == [
            ("retired" if retired else "active",)
        ]
    assert file.read_text().count(f'"{name}" =') == 1


@pytest.mark.slow
def test_killed_between_the_ladder_files_edit_and_the_databases(tmp_path):
    """kill -9 once a validated version is in the ladder's file (where the ladder may
    start playing it) but not yet in the database: the restarted server records it as
    it is, never building it again under the ladder, and names it once."""
    from tests.competition_helpers import served

    (tmp_path / "class.toml").write_text(FILE)
    token = goatarena("entrant", "add", "class.toml", "alice", cwd=tmp_path).stdout.split()[-1]
    shutil.copytree(KIT, tmp_path / "mybot")
    archive = pack_folder(tmp_path / "mybot")
    where = "goatarena.store.competition:CompetitionStore.add_version"
    with killed_at(tmp_path, where, "before") as url:
        post(url, token, archive)
    bot = tmp_path / "results" / "class-competition" / "builds" / "1" / "bot"
    assert load_config(tmp_path / "class.toml").bots["alice@1"] == str(bot)
    assert rows(tmp_path, "SELECT state FROM submissions") == [("validating",)]
    built = bot.stat()
    with served(tmp_path) as url:
        wait_for(lambda: submission(url, token, 1)["state"] == "active", "active", 60)
    assert bot.stat().st_ino == built.st_ino and bot.stat().st_mtime == built.st_mtime
    assert rows(tmp_path, "SELECT name, submission, state FROM versions") == [
        ("alice@1", 1, "active")
    ]
    assert (tmp_path / "class.toml").read_text().count('"alice@1" =') == 1


@pytest.mark.slow
@pytest.mark.parametrize("when", ["before", "after"])
def test_killed_as_a_rated_game_is_stored(tmp_path, when):
    """kill -9 of a competition's run (its site served beside it) just before its first
    rated game is stored, or just after: that game is absent, or stored once; the run
    started again never stores a game twice, and the standings count every stored game."""
    from collections import Counter

    from goatarena.store.opening import open_store

    file = tmp_path / "class.toml"
    file.write_text(FILE.replace("[bots]\n", '[bots]\nother = "builtin:random"\n'))
    where = "goatarena.store.database:Store.add_game"
    run = subprocess.Popen(
        [sys.executable, "-c", KILLED_AT, where, when, "", "run", "class.toml",
         "--serve", "127.0.0.1:0"],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, cwd=tmp_path,
    )  # fmt: skip
    _, err = run.communicate(timeout=120)
    assert run.returncode == -signal.SIGKILL, err
    db = tmp_path / "results" / "class.sqlite"
    store = open_store(db, create=False)
    try:
        kept = [game.key for game in store.games()]
    finally:
        store.close()
    assert len(kept) == (1 if when == "after" else 0)

    file.write_text(file.read_text().replace("poll_s = 0.5", "poll_s = 0.5\nstop_games = 4"))
    again = goatarena("run", "class.toml", "--quiet", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    store = open_store(db, create=False)
    try:
        keys = [game.key for game in store.games()]
    finally:
        store.close()
    assert len(keys) == len(set(keys)) and set(kept) <= set(keys)
    deals = Counter(key.rsplit("/", 1)[0] for key in keys)
    assert set(deals.values()) <= {1, 2}, deals  # a deal is two games, each stored once
    standings = goatarena("standings", "--db", str(db), "--format", "json", cwd=tmp_path)
    assert standings.returncode == 0, standings.stderr
    assert json.loads(standings.stdout)["games"] == len(keys)


@pytest.mark.slow
def test_a_site_killed_alone_is_started_again_by_its_run_and_finishes_the_work(tmp_path):
    """kill -9 of the site's process alone (the kernel out of memory picks the biggest)
    while a submission is validated: the run, playing on, starts its site again on the
    same address, which takes the submission up and makes its version once."""
    (tmp_path / "class.toml").write_text(FILE)
    token = goatarena("entrant", "add", "class.toml", "alice", cwd=tmp_path).stdout.split()[-1]
    shutil.copytree(KIT, tmp_path / "mybot")
    archive = pack_folder(tmp_path / "mybot")

    def state(url: str, number: int) -> object:
        try:
            return submission(url, token, number)["state"]
        except httpx.HTTPError:
            return None  # the site is not back yet

    scratch = tmp_path / "results" / "class-competition" / "scratch"
    with running(tmp_path, free_port()) as (run, url):
        number = post(url, token, archive)
        wait_for(lambda: state(url, number) == "validating", "validating")
        killed = site_of(run)
        os.kill(killed, signal.SIGKILL)
        wait_for(lambda: not is_alive(killed), "killed")
        # The bot's stderr meanwhile is left in the competition's folder, not in /tmp.
        left = [path.name for path in scratch.iterdir()]
        assert len(left) == 1 and left[0].startswith("goatarena-validation-")
        wait_for(lambda: state(url, number) == "active", "active again")
        assert site_of(run) != killed and run.poll() is None
    assert list(scratch.iterdir()) == []  # cleared as the site started again
    assert rows(tmp_path, "SELECT name, submission, state FROM versions") == [
        ("alice@1", number, "active")
    ]
    assert (tmp_path / "class.toml").read_text().count('"alice@1" =') == 1
