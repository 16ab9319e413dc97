"""The private readable copy of a bot's folder follows the folder: a bot edited in place
while the same referee process goes on (a ladder's, a cluster worker's) is copied again."""

from __future__ import annotations

import os
from pathlib import Path

from goatarena.referee import readable_copy
from goatarena.referee.bot_uids import BOT_GID


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
