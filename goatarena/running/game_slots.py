"""A competition's budget of timed games at once, shared by every process that plays them.

A competition's ladder (``goatarena run FILE``) and its site's validations and comparisons
(``goatarena serve FILE``, or ``run FILE --serve``) play timed games on one machine, in
separate processes. Each game (a ladder's deal, a validation, a comparison's pair of
games) holds one of ``count`` slots while it plays, so the machine never plays more timed
games at once than the ladder is configured for (its ``concurrency``), and the games'
clocks keep their precision with submissions coming in.

A slot is a file ``slot-K.lock`` in the competition's folder, held with ``flock``: a
holder killed in any way lets go of it (the kernel closes its descriptors), so nothing
leaks. Waiters queue through ``line.lock``: only the one holding it may take the next free
slot, so a ladder that lets a slot go and asks again at once goes behind a validation
that was waiting (no waiter starves). Taking either lock never blocks: a waiter tries
again every :data:`POLL_S` seconds, in its own event loop, and may be cancelled meanwhile.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from pathlib import Path

import trio

POLL_S = 0.01
"""How often a waiter tries again for the line or a slot."""


def competition_folder(db: Path) -> Path:
    """A competition's own folder, beside its results database ``db`` (0700: the
    runner's alone; :mod:`goatarena.competition.place` lists what it holds)."""
    return db.with_name(f"{db.stem}-competition")


class GameSlots:
    """``count`` slots in ``folder`` (made 0700 if need be, with the folder it is in),
    for timed games at once."""

    def __init__(self, folder: Path, count: int) -> None:
        self.folder = folder
        self.count = max(1, count)

    @classmethod
    def of_competition(cls, db: Path, count: int) -> GameSlots:
        """The slots of the competition whose results database is ``db``."""
        return cls(competition_folder(db) / "slots", count)

    def _open(self, name: str) -> int:
        path = self.folder / name
        try:
            return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except FileNotFoundError:  # the first look: the folders are made once
            # The competition's folder first, so that it is made 0700 whoever comes first.
            self.folder.parent.mkdir(mode=0o700, exist_ok=True)
            self.folder.mkdir(mode=0o700, exist_ok=True)
            return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)

    def _try(self, name: str) -> int | None:
        """The descriptor holding lock file ``name``, or None when another holds it."""
        handle = self._open(name)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(handle)
            return None
        return handle

    def _free_slot(self) -> int | None:
        for index in range(self.count):
            handle = self._try(f"slot-{index}.lock")
            if handle is not None:
                return handle
        return None

    async def _take(self) -> int:
        """Wait in line, then for a free slot; the descriptor that holds the slot."""
        line = self._try("line.lock")
        while line is None:
            await trio.sleep(POLL_S)
            line = self._try("line.lock")
        try:
            slot = self._free_slot()
            while slot is None:
                await trio.sleep(POLL_S)
                slot = self._free_slot()
            return slot
        finally:
            os.close(line)

    @asynccontextmanager
    async def held(self) -> AsyncIterator[None]:
        """Hold a slot while the body plays its game (waiting for one first)."""
        slot = await self._take()
        try:
            yield
        finally:
            os.close(slot)

    def taken(self) -> int:
        """How many slots are held now (by any process)."""
        held = 0
        for index in range(self.count):
            handle = self._try(f"slot-{index}.lock")
            if handle is None:
                held += 1
            else:
                os.close(handle)
        return held


def holding(slots: GameSlots | None) -> AbstractAsyncContextManager[None]:
    """A slot of ``slots`` held while the block plays (None: no slots to share, nothing
    held)."""
    return slots.held() if slots is not None else nullcontext()
