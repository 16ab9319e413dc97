"""Where a competition keeps its things: the ladder's file, its databases, its folders.

Beside the results database ``results/NAME.sqlite`` (the one ``run`` writes) lies the
competition's folder ``results/NAME-competition/`` (0700, the runner's alone):

- ``competition.sqlite`` — entrants, submissions, versions (:mod:`goatarena.store.competition`);
- ``uploads/N.tar.gz`` or ``N.zip`` — submission N's archive as it arrived;
- ``builds/N/`` — submission N unpacked and built (the build's only writable folder),
  then read-only: a version's bot is its submission's build (``builds/N/bot``, or the
  language's own command);
- ``logs/build-N.log`` — submission N's build log (capped);
- ``scratch/`` — a validation's bot stderr while it runs (cleared when a server starts);
- ``slots/`` — the timed games' slots the ladder and the site share
  (:mod:`goatarena.running.game_slots`);
- ``server.lock`` — held by the one server that works on the submissions (:func:`claim`).
"""

from __future__ import annotations

import fcntl
import os
import time
from dataclasses import dataclass
from pathlib import Path

from goatarena.errors import ConfigError
from goatarena.formats.competition import CompetitionSettings
from goatarena.formats.config import TournamentConfig
from goatarena.formats.tournament_file import load_config
from goatarena.running.game_slots import competition_folder
from goatarena.store.competition import CompetitionStore, open_competition_store


@dataclass(frozen=True)
class Place:
    """The paths of one competition."""

    file: Path
    db: Path

    @property
    def folder(self) -> Path:
        """The competition's own folder, beside the results database."""
        return competition_folder(self.db)

    @property
    def database(self) -> Path:
        """Entrants, submissions and versions."""
        return self.folder / "competition.sqlite"

    @property
    def logs(self) -> Path:
        """The ladder run's folder of bots' stderr logs (``run`` keeps them there)."""
        return self.db.with_name(f"{self.db.stem}-logs")

    def upload(self, number: int, kind: str) -> Path:
        """Submission ``number``'s archive (``kind``: ``tar.gz`` or ``zip``)."""
        return self.folder / "uploads" / f"{number}.{kind}"

    def build(self, number: int) -> Path:
        """The folder submission ``number`` is unpacked and built in (then read-only)."""
        return self.folder / "builds" / str(number)


def load_competition(file: Path) -> tuple[TournamentConfig, CompetitionSettings]:
    """The ladder's file and its ``[competition]``; ConfigError if it has none."""
    config = load_config(file)
    if config.competition is None:
        raise ConfigError(f"{file} is no competition: it has no [competition] section")
    return config, config.competition


def default_db(config: TournamentConfig) -> Path:
    """The results database ``run`` writes for ``config`` (from the working folder)."""
    return Path("results") / f"{config.name}.sqlite"


def open_place(file: Path, db: Path | None = None) -> tuple[Place, CompetitionStore]:
    """A competition's paths and its database, opened (and made, if need be)."""
    config, _ = load_competition(file)
    place = Place(file, db or default_db(config))
    return place, open_competition_store(place.database)


CLAIM_WAIT_S = 15.0
"""How long a server starting waits for another to let the competition go: a run killed
(``kill -9``) ends its site's process, which takes a few seconds to stop."""


def claim(folder: Path, *, wait_s: float = CLAIM_WAIT_S) -> int:
    """Hold the competition's folder for this process: two servers working on the same
    submissions would build one in the other's folder and make a version of it twice.
    The descriptor that holds it (closing it lets go; so does the process's end, however
    it ends); ConfigError when another server still holds it after ``wait_s`` seconds."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    handle = os.open(folder / "server.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    deadline = time.monotonic() + wait_s
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return handle
        except BlockingIOError:
            if time.monotonic() > deadline:
                os.close(handle)
                raise ConfigError(
                    f"another server is working on this competition ({folder}): stop it first"
                ) from None
            time.sleep(0.1)
