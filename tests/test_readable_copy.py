"""The private readable copy of a bot's folder follows the folder: a bot edited in place
while the same referee process goes on (a ladder's, a cluster worker's) is copied again."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from goatarena.referee import readable_copy
from goatarena.referee.bot_uids import BOT_GID
from goatarena.referee.readable_copy import COPIES_PREFIX


def test_a_folder_edited_in_place_is_copied_again(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    folder.mkdir(mode=0o700)  # closed to the bots' group: a copy is what they are shown
    (folder / "bot.py").write_text("VERSION = 1\n")
    (folder / "bot.py").chmod(0o600)
    first = readable_copy.readable_folder(str(folder), BOT_GID, [])
    assert first != str(folder)
    assert readable_copy.readable_folder(str(folder), BOT_GID, []) == first  # unchanged
    (folder / "bot.py").write_text("VERSION = 2\n")  # same size: the change time tells
    second = readable_copy.readable_folder(str(folder), BOT_GID, [])
    assert second != first
    assert (Path(second) / "bot.py").read_text() == "VERSION = 2\n"
    assert (Path(first) / "bot.py").read_text() == "VERSION = 1\n"  # a running bot's view
    (folder / "helper.py").write_text("")  # a new file
    third = readable_copy.readable_folder(str(folder), BOT_GID, [])
    assert third not in (first, second) and os.path.exists(Path(third) / "helper.py")
    readable_copy.remove_copies()
    assert not any(os.path.exists(copy) for copy in (first, second, third))


def test_a_folder_holding_the_temporary_folder_is_not_copied_into_itself(tmp_path, monkeypatch):
    folder = tmp_path / "bot"
    folder.mkdir(mode=0o700)
    (folder / "bot.py").write_text("")
    scratch = folder / "tmp"  # the runner's temporary folder, inside the bot's
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.setattr(readable_copy, "_root", [])  # this test's copies, in its scratch
    monkeypatch.setattr(readable_copy, "_copies", {})
    try:
        copy = Path(readable_copy.readable_folder(str(folder), BOT_GID, []))
        assert copy.is_relative_to(scratch) and (copy / "bot.py").exists()
        assert not [p for p in (copy / "tmp").iterdir() if p.name.startswith(COPIES_PREFIX)]
    finally:
        readable_copy.remove_copies()
    assert list(scratch.iterdir()) == []


def test_copies_left_by_a_process_that_is_gone_are_swept_and_a_live_ones_kept(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    script = (
        "import sys, time; from goatarena.referee import readable_copy as r;"
        " r.readable_folder(sys.argv[1], 65534, []); print('made', flush=True); time.sleep(60)"
    )
    folder = tmp_path / "bot"
    folder.mkdir(mode=0o700)
    (folder / "bot.py").write_text("")
    env = dict(os.environ, TMPDIR=str(tmp_path))
    maker = subprocess.Popen(
        [sys.executable, "-c", script, str(folder)], stdout=subprocess.PIPE, env=env, text=True
    )
    try:
        assert maker.stdout is not None and maker.stdout.readline() == "made\n"
        [made] = tmp_path.glob(COPIES_PREFIX + "*")
        assert readable_copy.sweep_copies() == [] and made.exists()  # its maker lives
    finally:
        maker.kill()
        maker.wait()
    assert readable_copy.sweep_copies() == [str(made)] and not made.exists()
