"""A submission from upload to the ladder: built, validated, made NAME@k, resumed after a
stop; a version that fails its build or the validation gate never joins."""

from __future__ import annotations

import errno
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio

from goatarena.competition.entrants import add_entrant, sign_in
from goatarena.competition.pipeline import Competition
from goatarena.competition.uploads import pack_folder
from goatarena.formats.tournament_file import load_config
from goatarena.referee.sandbox import probe

pytestmark = pytest.mark.skipif(probe() is not None, reason="no sandbox on this machine")

KIT = Path(__file__).resolve().parent.parent / "goatarena" / "kits" / "python"
FILE = """\
name = "class"
format = "ladder"
[time]
move_ms = 300
[bots]
random = "builtin:random"
[competition]
languages = ["python"]
validation_games = 1
compare_games = 4
[[games]]
name = "mountain-goats"
players = 2
"""


@pytest.fixture
def competition(tmp_path):
    file = tmp_path / "class.toml"
    file.write_text(FILE)
    opened = Competition(file, tmp_path / "results" / "class.sqlite")
    yield opened
    opened.close()


def entrant(competition: Competition, name: str):
    found = sign_in(competition.store, add_entrant(competition.store, name))
    assert found is not None
    return found


def bot_folder(tmp_path: Path, main: str | None = None) -> Path:
    folder = tmp_path / "upload"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(KIT, folder)
    if main is not None:
        (folder / "main.py").write_text(main)
    return folder


def test_a_python_submission_becomes_name_at_1_then_name_at_2(tmp_path, competition):
    alice = entrant(competition, "alice")
    first = competition.submit(alice, "python", [pack_folder(bot_folder(tmp_path))])
    trio.run(competition.process, first)
    done = competition.store.submission(first)
    assert done is not None and done.state == "active", done
    assert done.version == "alice@1"
    config = load_config(competition.file)
    assert config.bots["alice@1"] == str(competition.place.build(first) / "bot")
    second = competition.submit(alice, "python", [pack_folder(bot_folder(tmp_path))])
    trio.run(competition.process, second)
    config = load_config(competition.file)
    assert "alice@2" in config.bots and config.ladder.retired == ["alice@1"]
    assert [version.state for version in competition.store.versions_of(alice.id)] == [
        "retired",
        "active",
    ]
    trio.run(competition.compare, second)
    compared = competition.store.submission(second)
    assert compared is not None and compared.comparison is not None
    assert re.fullmatch(
        r"alice@2 (is stronger than|is not stronger than|against) alice@1:"
        r" [+-]\d+ ± \d+ Elo, (H[01] accepted|no verdict) after 4 games",
        compared.comparison,
    ), compared.comparison


def test_a_bot_that_fails_validation_never_joins_and_is_told_why(tmp_path, competition):
    bob = entrant(competition, "bob")
    crashing = "import sys\nprint('bob was here', file=sys.stderr)\nsys.exit(3)\n"
    number = competition.submit(bob, "python", [pack_folder(bot_folder(tmp_path, crashing))])
    trio.run(competition.process, number)
    failed = competition.store.submission(number)
    assert failed is not None and failed.state == "failed"
    assert failed.reason.startswith("validation: check-bot's start-up check failed")
    assert "bob was here" in failed.build_log
    assert not any(name.startswith("bob") for name in load_config(competition.file).bots)


def test_a_failed_build_keeps_its_log(tmp_path, competition):
    carol = entrant(competition, "carol")
    folder = bot_folder(tmp_path)
    (folder / "Makefile").write_text("all:\n\t@echo 'error: goat.c:3: missing hay'; exit 1\n")
    number = competition.submit(carol, "python", [pack_folder(folder)])
    trio.run(competition.process, number)
    failed = competition.store.submission(number)
    assert failed is not None and failed.state == "failed"
    assert "the build failed" in failed.reason
    assert "missing hay" in failed.build_log


def test_a_submission_cut_short_by_a_stop_is_resumed(tmp_path, competition):
    dave = entrant(competition, "dave")
    number = competition.submit(dave, "python", [pack_folder(bot_folder(tmp_path))])
    competition.store.set_state(number, "building")  # the server died mid-build
    stale = competition.place.build(number)
    stale.mkdir(parents=True)
    (stale / "half-built").write_text("")

    async def serve_a_while() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(competition.work)
            while competition.store.submission(number).state != "active":  # type: ignore[union-attr]
                await trio.sleep(0.1)
            nursery.cancel_scope.cancel()

    trio.run(serve_a_while)
    assert not (stale / "half-built").exists()
    assert "dave@1" in load_config(competition.file).bots


def test_the_comparison_reads_as_one_sentence():
    from goatarena.competition.comparison import describe_comparison, elo_interval
    from goatarena.formats.sprt import SprtStatus

    assert elo_interval([0, 0, 50, 0, 0]) == (0.0, 0.0)  # every pair shared: even
    elo, half = elo_interval([5, 10, 20, 30, 10])
    assert 60 < elo < 80 and 30 < half < 60
    status = SprtStatus(
        llr=3.0, lower=-2.94, upper=2.94, verdict="H1", challenger="a@3", baseline="a@2",
        pairs=75, pentanomial=[5, 10, 20, 30, 10], elo0=0, elo1=20, alpha=0.05, beta=0.05,
    )  # fmt: skip
    assert describe_comparison(status, 150) == (
        "a@3 is stronger than a@2: +70 ± 44 Elo, H1 accepted after 150 games"
    )
    import msgspec

    even = msgspec.structs.replace(status, verdict="H0", pentanomial=[0, 0, 50, 0, 0])
    assert describe_comparison(even, 100) == (
        "a@3 is not stronger than a@2: +0 ± 0 Elo, H0 accepted after 100 games"
    )


def test_the_organiser_closes_uploads_by_editing_the_file(tmp_path, competition):
    from goatarena.competition.uploads import UploadRefused

    erin = entrant(competition, "erin")
    text = competition.file.read_text()
    competition.file.write_text(
        text.replace("[competition]", "[competition]\ncloses = 2000-01-01T00:00:00Z")
    )
    with pytest.raises(UploadRefused, match="uploads are closed"):
        competition.submit(erin, "python", [pack_folder(bot_folder(tmp_path))])
    assert competition.store.submissions_of(erin.id) == []


def test_a_submitted_bot_cannot_read_another_entrants_bot(tmp_path, competition):
    alice = entrant(competition, "alice")
    secret = "# alice's secret strategy 9c1e\n"
    honest = bot_folder(tmp_path)
    (honest / "main.py").write_text(secret + (KIT / "main.py").read_text())
    first = competition.submit(alice, "python", [pack_folder(honest)])
    trio.run(competition.process, first)
    assert competition.store.submission(first).state == "active"  # type: ignore[union-attr]
    mallory = entrant(competition, "mallory")
    theirs = competition.place.build(first).absolute()
    snoop = (
        "import sys, pathlib, glob\n"
        f"for path in ['../{first}/main.py', '{theirs}/main.py',"
        f" *glob.glob('{theirs.parent}/*/main.py')]:\n"
        "    try:\n"
        "        print(path, pathlib.Path(path).read_text(), file=sys.stderr)\n"
        "    except OSError as error:\n"
        "        print(path, 'refused:', error, file=sys.stderr)\n"
        "sys.exit(1)\n"
    )
    number = competition.submit(mallory, "python", [pack_folder(bot_folder(tmp_path, snoop))])
    trio.run(competition.process, number)
    failed = competition.store.submission(number)
    assert failed is not None and failed.state == "failed"
    assert "refused:" in failed.build_log  # the bot ran and tried
    assert "secret strategy" not in failed.build_log


def test_an_upload_cut_short_by_a_stop_leaves_nothing_that_is_taken_for_one(tmp_path):
    file = tmp_path / "class.toml"
    file.write_text(FILE)
    first = Competition(file, tmp_path / "results" / "class.sqlite")
    uploads = first.place.folder / "uploads"
    uploads.mkdir(parents=True)
    (uploads / ".1.part").write_bytes(b"half an upload")  # killed while it arrived
    (uploads / "1.zip").write_bytes(b"stored, never recorded")  # killed before its row
    first.close()
    again = Competition(file, tmp_path / "results" / "class.sqlite")
    try:
        assert not (uploads / ".1.part").exists()
        frank = entrant(again, "frank")
        number = again.submit(frank, "python", [pack_folder(bot_folder(tmp_path))])
        assert number == 1
        assert sorted(path.name for path in uploads.iterdir()) == ["1.tar.gz"]
    finally:
        again.close()


def test_ladder_retire_on_the_command_line_is_followed_by_the_competitions_list(
    tmp_path, competition
):
    """The ladder's file is the truth of what plays: ``goatarena ladder retire`` alone
    (not through the competition) retires the version in the competition's list too, and
    a version put back in play by hand is active again."""
    from click.testing import CliRunner

    from goatarena.cli import main
    from goatarena.formats.ladder.edit import add_version

    ann = entrant(competition, "ann")
    submission = competition.store.add_submission(ann.id, "python", 1)
    name, _ = add_version(competition.file, "ann", "builtin:random")
    competition.store.add_version(name, ann.id, submission, "builtin:random")
    before = competition.file.read_text()

    done = CliRunner().invoke(main, ["ladder", "retire", str(competition.file), name])
    assert done.exit_code == 0, done.output
    competition.reload()
    assert competition.store.version(name).state == "retired"
    assert competition.store.versions_of(ann.id)[0].state == "retired"

    competition.file.write_text(before + "\n")  # put back by hand: in play again
    competition.reload()
    assert competition.store.version(name).state == "active"


def test_a_machine_failure_with_one_submission_fails_it_and_the_queue_goes_on(
    tmp_path, competition, monkeypatch
):
    alice = entrant(competition, "alice")
    first = competition.submit(alice, "python", [pack_folder(bot_folder(tmp_path))])

    def disk_full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("goatarena.competition.pipeline.unpack", disk_full)
    trio.run(competition.process, first)
    failed = competition.store.submission(first)
    assert failed is not None and failed.state == "failed"
    assert "No space left on device" in failed.reason
    monkeypatch.undo()
    second = competition.submit(alice, "python", [pack_folder(bot_folder(tmp_path))])
    trio.run(competition.process, second)
    done = competition.store.submission(second)
    assert done is not None and done.state == "active", done


def test_an_organisers_language_run_from_its_build_makes_one_version_per_submission(tmp_path):
    """``run = "python3 -m mybot"`` names nothing in the build's folder: each version's
    command still runs its own build (from its folder), and a second submission becomes
    a second version, not a second record of the first."""
    file = tmp_path / "class.toml"
    organisers = FILE.replace('languages = ["python"]', 'languages = ["mine"]')
    organisers += (
        "[competition.commands.mine]\n"
        'build = "true"\n'
        f"run = {json.dumps(shlex.join([sys.executable, '-m', 'mybot']))}\n"
    )
    file.write_text(organisers)
    competition = Competition(file, tmp_path / "results" / "class.sqlite")
    try:
        alice = entrant(competition, "alice")
        numbers = []
        for which in ("first", "second"):
            folder = tmp_path / which
            (folder / "mybot").mkdir(parents=True)
            (folder / "mybot" / "__init__.py").write_text("")
            # A relative path: read only when the bot runs from its own build's folder.
            marker = "import sys\nprint(open('mybot/which.txt').read(), file=sys.stderr)\n"
            main = (KIT / "main.py").read_text()
            (folder / "mybot" / "__main__.py").write_text(marker + main)
            (folder / "mybot" / "which.txt").write_text(f"{which} build")
            number = competition.submit(alice, "mine", [pack_folder(folder)])
            trio.run(competition.process, number)
            done = competition.store.submission(number)
            assert done is not None and done.state == "active", done
            numbers.append(number)
        versions = competition.store.versions_of(alice.id)
        assert [(version.name, version.submission) for version in versions] == [
            ("alice@1", numbers[0]),
            ("alice@2", numbers[1]),
        ]
        bots = load_config(file).bots
        assert bots["alice@1"] != bots["alice@2"]
        for name, which in (("alice@1", "first"), ("alice@2", "second")):
            # Started from elsewhere, as the ladder's runner may be.
            ran = subprocess.run(
                shlex.split(bots[name]),
                cwd=tmp_path,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert f"{which} build" in ran.stderr, ran.stderr
    finally:
        competition.close()


def test_a_server_starting_sweeps_what_an_edit_of_its_ladder_file_killed_mid_way_left(tmp_path):
    from tests.test_ladder_file import killed_mid_edit

    file = tmp_path / "class.toml"
    file.write_text(FILE)
    left = killed_mid_edit(file)
    long_ago = time.time() - 600
    os.utime(left, (long_ago, long_ago))
    started = Competition(file, tmp_path / "results" / "class.sqlite")
    try:
        assert not left.exists()
        assert file.read_text() == FILE
    finally:
        started.close()
