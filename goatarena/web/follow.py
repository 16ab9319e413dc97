"""Following a results database while another process writes it: the site's cache.

One task (:meth:`Follower.follow`) reads the games stored since it last looked, a batch
at a time in a worker thread, into the index (:mod:`goatarena.web.index`), and tells the
event stream's listeners of each; beside it, whenever games arrived, the standings are
refitted by ``goatarena standings --format json`` in a process of its own (one fit at a
time, at most one a second, never per request), so that the answer is that command's by
construction and a fit's memory and CPU never stay with the site. Requests read what
it keeps; the store is asked only for a page's own summaries or one game's record,
through a few read-only connections (:class:`Readers`), each used by one thread at a
time.
"""

from __future__ import annotations

import gc
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import msgspec
import trio

from goatarena.errors import StoreError
from goatarena.formats.sprt_course import SprtCourseKeeper
from goatarena.report.facts import bots_folder, parse_config
from goatarena.store.browsing import (
    newest_number,
    numbered_summaries,
    open_to_follow,
    require_summaries,
)
from goatarena.store.database import Store
from goatarena.store.standings import TOURNAMENT_FOLDER, retired_bots
from goatarena.store.summary import GameSummary
from goatarena.web.answers import (
    GameEvent,
    GameRow,
    SeatResult,
    StandingsAnswer,
    StandingsEvent,
    encode,
)
from goatarena.web.index import GameIndex

T = TypeVar("T")

POLL_S = 0.25
"""How often the store is looked at for new games."""
BATCH = 5_000
"""Games read into the index between two looks at the listeners."""
FIT_PAUSE_S = 1.0
"""The least time between two refits (a fit of a large store takes seconds anyway)."""
FIT_SHARE = 0.2
"""The most of the site's time its fits may take: a fit that took t seconds (its process's
start included, and its wait for a CPU on a busy machine) is followed by a pause of at
least 4t, so that a ladder storing games all the time never keeps a CPU fitting."""
RETRY_S = 5.0
"""How long after a failed fit the next is tried."""
QUEUE = 64
"""Events a listener may fall behind by before it is dropped (a client that does not read)."""
MAX_LISTENERS = 1_000
"""Event streams open at once; more are refused."""


def game_row(number: int, summary: GameSummary) -> GameRow:
    """The public row of a stored game."""
    seats = [
        SeatResult(
            bot=bot,
            rank=summary.ranks[seat],
            score=summary.scores[seat],
            violations=list(summary.violations[seat]),
            forfeit=summary.forfeits[seat],
            median_ms=None if latency is None else latency.median_ms,
            max_ms=None if latency is None else latency.max_ms,
        )
        for seat, (bot, latency) in enumerate(zip(summary.players, summary.latency, strict=False))
    ]
    return GameRow(
        number=number,
        key=summary.key,
        game=summary.game,
        round=summary.round,
        seats=seats,
        decisions=summary.decisions,
        duration_s=summary.duration_s,
        finished_at=summary.finished_at,
    )


class Readers:
    """A few read-only connections to the store, each lent to one worker thread at a time."""

    def __init__(self, path: Path, count: int = 2) -> None:
        self.path = path
        self._free = [open_to_follow(path) for _ in range(count)]
        self._limit = trio.Semaphore(count)

    async def run(self, work: Callable[[Store], T]) -> T:
        """``work(store)`` in a worker thread with a connection of its own."""
        async with self._limit:
            store = self._free.pop()
            try:
                return await trio.to_thread.run_sync(work, store)
            finally:
                self._free.append(store)

    def close(self) -> None:
        """Close every connection."""
        for store in self._free:
            store.close()


class Follower:
    """What the site knows of the store: the index, the standings, who listens."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._store = open_to_follow(path)
        require_summaries(self._store)
        self.config: dict[str, Any] = parse_config(self._store.meta("config"))
        self.tournament = self._store.meta("tournament") or path.stem
        self.folder = bots_folder(self.config, self._store.meta(TOURNAMENT_FOLDER))
        """The tournament file's folder: paths in violations' details are shown from it."""
        self._stored_at_start = newest_number(self._store)
        self.index = GameIndex()
        self.sprt = SprtCourseKeeper.of(self.config)
        """A gauntlet's SPRT course (None for other formats)."""
        self.standings: StandingsAnswer | None = None
        self.loaded = False
        """Whether the games stored when the site started are all read."""
        self._listeners: set[trio.MemorySendChannel[bytes]] = set()
        self._streams = 0
        """Event streams open, including those no longer sent to (a client that stopped
        reading may hold its connection until it closes it): at most MAX_LISTENERS."""
        self.fit_seconds = math.nan
        """How long the last fit took."""

    def close(self) -> None:
        """Close the follower's own connection."""
        self._store.close()

    async def follow(
        self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """Read new games until cancelled, and refit beside it; started once the first
        batch is read."""
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._refit_while_games_arrive)
            started = False
            failed = ""
            while True:
                try:
                    rows = await trio.to_thread.run_sync(self._read_batch)
                except StoreError as error:
                    if not started:  # the site does not start on a database it cannot read
                        raise
                    if str(error) != failed:  # one line for each new cause, not each look
                        failed = str(error)
                        print(f"goatarena: following: {error}", file=sys.stderr, flush=True)
                    await trio.sleep(RETRY_S)
                    continue
                failed = ""
                if self.loaded and rows:
                    events = [GameEvent(game=game_row(n, summary)) for n, summary in rows]
                    self.publish_all([("game", encode(event)) for event in events])
                if len(rows) < BATCH and not self.loaded:
                    self.loaded = True
                    # What the start read lives as long as the site: kept out of the
                    # collector's full passes, which would otherwise walk all of it
                    # (a pause of a tenth of a second and more at 100,000 games) again
                    # and again as pages are drawn.
                    gc.collect()
                    gc.freeze()
                if not started:
                    started = True
                    task_status.started()
                if len(rows) < BATCH:
                    await trio.sleep(POLL_S)

    async def _refit_while_games_arrive(self) -> None:
        """Refit whenever games arrived since the last fit, at most every
        :data:`FIT_PAUSE_S` and for at most :data:`FIT_SHARE` of the time; one fit at a
        time, each in a process of its own."""
        while True:
            # The first fit starts at once, beside the reading of the index.
            current = self.standings
            first = current is None
            stale = current is None or current.stored < self.index.newest
            if not (first or (self.loaded and stale)):
                await trio.sleep(POLL_S)
                continue
            began = time.monotonic()
            try:
                self.standings = await self._fit()
            except StoreError as error:  # the cached standings stay; tried again later
                print(f"goatarena: {error}", file=sys.stderr)
                await trio.sleep(RETRY_S)
                continue
            self.fit_seconds = time.monotonic() - began
            event = StandingsEvent(stored=self.standings.stored, games=self.standings.games)
            self.publish("standings", encode(event))
            took = self.fit_seconds
            await trio.sleep(max(POLL_S, FIT_PAUSE_S - took, took / FIT_SHARE - took))

    def _retired(self) -> list[str]:
        """The ladder's retired versions, read afresh (the follower's own connection is
        the reading thread's)."""
        store = open_to_follow(self.path)
        try:
            return retired_bots(store)
        finally:
            store.close()

    def _read_batch(self) -> list[tuple[int, GameSummary]]:
        rows = []
        for number, summary in numbered_summaries(self._store, after=self.index.newest):
            rows.append((number, summary))
            if len(rows) >= BATCH:
                break
        with self.index.lock:
            self.index.add_all(rows)
            if self.sprt is not None:
                for _, summary in rows:
                    self.sprt.add(summary)
        return rows

    async def _fit(self) -> StandingsAnswer:
        """The standings as ``goatarena standings --format json`` prints them, computed by
        that command in a process of its own: the fit's memory (a gigabyte at a million
        games) is given back when it ends, and its work never holds up a request."""
        stored = self.index.newest if self.loaded else self._stored_at_start
        command = [sys.executable, "-m", "goatarena", "standings", "--db", str(self.path),
                   "--format", "json"]  # fmt: skip
        done = await trio.run_process(command, capture_stdout=True, capture_stderr=True,
                                      check=False)  # fmt: skip
        if done.returncode != 0:
            lines = done.stderr.decode(errors="replace").strip().splitlines() or ["?"]
            raise StoreError(f"the standings could not be computed: {lines[-1]}")
        standings = msgspec.json.decode(done.stdout, type=StandingsAnswer)
        retired = await trio.to_thread.run_sync(self._retired)
        return msgspec.structs.replace(standings, retired=retired, stored=stored)

    # -- the event stream ----------------------------------------------------------------

    def listen(
        self,
    ) -> tuple[trio.MemorySendChannel[bytes], trio.MemoryReceiveChannel[bytes]] | None:
        """A new listener's channels of events (None when too many listen already); the
        listener gives the first back to :meth:`forget` when it leaves."""
        if self._streams >= MAX_LISTENERS:
            return None
        send, receive = trio.open_memory_channel[bytes](QUEUE)
        self._listeners.add(send)
        self._streams += 1
        return send, receive

    def forget(self, channel: trio.MemorySendChannel[bytes]) -> None:
        """Stop sending to a listener that left (once for each :meth:`listen`)."""
        self._listeners.discard(channel)
        channel.close()
        self._streams -= 1

    def publish(self, kind: str, data: bytes) -> None:
        """Send one event to every listener; one that fell too far behind is dropped."""
        self.publish_all([(kind, data)])

    def publish_all(self, events: list[tuple[str, bytes]]) -> None:
        """Send events (kind, data) to every listener as one piece: a burst of games (a
        batch read at once) counts once against a listener's :data:`QUEUE`, and its bytes
        are shared by every listener."""
        message = b"".join(
            b"event: " + kind.encode() + b"\ndata: " + data + b"\n\n" for kind, data in events
        )
        for channel in list(self._listeners):
            try:
                channel.send_nowait(message)
            except (trio.WouldBlock, trio.BrokenResourceError, trio.ClosedResourceError):
                self._listeners.discard(channel)
                channel.close()

    @property
    def listeners(self) -> int:
        """How many event streams are open."""
        return self._streams
