"""A running ladder's tournament file, read again when it changes.

``goatarena ladder add/update/retire`` and hand edits change the file; the ladder looks
at its modification time every ``ladder.poll_s`` seconds and, when it changed, loads it
again. A file that does not load, or whose change would make the stored games
incomparable (a bot's command changed, the time control, the format, ...), is not
applied and the progress line says why; one that is applied becomes the run's
configuration (the command line's settings for this run kept), is stored as the
tournament's claim, so that readers see the roster the ladder sees, and its roster is
applied.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

import msgspec

from goatarena.errors import GoatArenaError
from goatarena.formats.config import TournamentConfig
from goatarena.formats.growth import incomparable_changes
from goatarena.formats.tournament_file import load_config
from goatarena.referee.bot_copies import with_copies
from goatarena.running.ladder_runner import Runner
from goatarena.store.database import Store


class LadderFile:
    """The tournament file of a running ladder: whether it changed, and applying it."""

    def __init__(self, runner: Runner, source: Path, apply: Callable[[], None]) -> None:
        self.runner = runner
        self.source = source
        self._apply = apply
        self._mtime: float | None = None
        self.changed()

    def changed(self) -> bool:
        """Whether the file was modified since the last look (it is remembered now)."""
        try:
            mtime = self.source.stat().st_mtime_ns
        except OSError:
            return False
        changed = self._mtime is not None and mtime != self._mtime
        self._mtime = mtime
        return changed

    async def reload(self) -> str | None:
        """Read the file again and apply it; the reason it was not applied, or None."""
        runner = self.runner
        try:
            new = load_config(self.source)
        except GoatArenaError as error:
            return self._refuse(f"{self.source} not applied: {error}")
        new = _keep_run_settings(new, runner.config)
        changes = incomparable_changes(runner.config, new)
        if new.format != "ladder":
            changes.append(f"format: 'ladder' -> {new.format!r}")
        if changes:
            return self._refuse(f"{self.source} not applied: {'; '.join(changes)}")
        runner.config = new
        sandboxes = new.sandboxes(runner.hidden, runner.hidden_where_possible)
        if runner.cluster is None:  # a cluster's workers make their own copies
            sandboxes = await with_copies(sandboxes, new.bots, strict=False)
        runner._sandboxes = sandboxes
        await runner._in_store(partial(_update_claim, runner.store, new))
        self._apply()
        return None

    def _refuse(self, message: str) -> str:
        if self.runner.progress is not None:
            self.runner.progress.note = message
        return message


def _keep_run_settings(new: TournamentConfig, old: TournamentConfig) -> TournamentConfig:
    """The file as read again, with what the command line set for this run kept."""
    return msgspec.structs.replace(new, concurrency=old.concurrency, sandbox=old.sandbox)


def _update_claim(store: Store, config: TournamentConfig) -> None:
    """Store the file as applied, so that readers see the roster as the ladder does."""
    store.update_claim(
        fingerprint=config.fingerprint(), config_json=msgspec.json.encode(config).decode()
    )
