"""What a running ladder uses of :class:`goatarena.running.runner.Runner`.

The runner imports the ladder's modules, so they name it by its parts, as a protocol.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar

import trio

from goatarena.formats.config import TournamentConfig
from goatarena.formats.schedule import ScheduledGame
from goatarena.referee.sandbox import SandboxPolicy
from goatarena.running.executors import Executor
from goatarena.running.game_slots import GameSlots
from goatarena.running.job import JobOutcome
from goatarena.running.progress import Progress
from goatarena.store.database import Store

T = TypeVar("T")


class Runner(Protocol):
    """What a ladder uses of :class:`goatarena.running.runner.Runner`."""

    config: TournamentConfig
    store: Store
    progress: Progress | None
    disqualified: dict[str, str]
    secret: str
    finished: set[str]
    hidden: list[Path]
    hidden_where_possible: list[Path]
    cluster: str | None
    _sandboxes: dict[str, SandboxPolicy]
    _tournament: str
    _executor: Executor | None
    _limiter: trio.CapacityLimiter
    slots: GameSlots | None
    ladder: Any

    async def _in_store(self, call: Callable[[], T]) -> T:
        """Run ``call`` on the store off the event loop."""

    async def _take(self, scheduled: ScheduledGame, outcome: JobOutcome) -> None:
        """Store one outcome."""
