"""Following a results database while another process writes it: the site's cache.

One task (:meth:`Follower.follow`) reads the games stored since it last looked, a batch
at a time in a worker thread, into the index (:mod:`goatarena.web.index`) and a
standings tally; after each batch it tells the event stream's listeners, and whenever
games arrived it refits the standings in a thread (never more than one fit at a time,
never per request). Requests read what it keeps; the store is asked only for a page's
own summaries or one game's record, through a few read-only connections
(:class:`Readers`), each used by one thread at a time.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import msgspec
import trio

from goatarena.formats.config import TournamentConfig
from goatarena.formats.sprt import SprtTally, tally_of
from goatarena.ratings.standings import StandingsTally
from goatarena.report.facts import parse_config
from goatarena.store.browsing import numbered_summaries, open_to_follow, require_summaries
from goatarena.store.database import Store
from goatarena.store.standings import count_summary, retired_bots, without_bots
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
        self.index = GameIndex()
        self.standings: StandingsAnswer | None = None
        self.loaded = False
        """Whether the games stored when the site started are all read."""
        self._tally = StandingsTally()
        self._counted = 0
        self._sprt = _sprt_of(self.config)
        self._listeners: set[trio.MemorySendChannel[bytes]] = set()
        self.fit_seconds = math.nan

    @property
    def swiss(self) -> bool:
        """Whether the tournament is a Swiss (its standings have the Swiss columns)."""
        return self.config.get("format") == "swiss"

    def close(self) -> None:
        """Close the follower's own connection."""
        self._store.close()

    async def follow(
        self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """Read new games and refit, until cancelled; started once the first batch is read."""
        started = False
        last_fit = -math.inf
        while True:
            rows = await trio.to_thread.run_sync(self._read_batch)
            if self.loaded:
                for number, summary in rows:
                    self.publish("game", encode(GameEvent(game=game_row(number, summary))))
            if len(rows) < BATCH:
                self.loaded = True
            if not started:
                started = True
                task_status.started()
            stale = self.standings is None or self.standings.stored < self.index.newest
            if self.loaded and stale and time.monotonic() - last_fit >= FIT_PAUSE_S:
                began = time.monotonic()
                self.standings = await trio.to_thread.run_sync(self._fit)
                last_fit = time.monotonic()
                self.fit_seconds = last_fit - began
                event = StandingsEvent(stored=self.standings.stored, games=self.standings.games)
                self.publish("standings", encode(event))
            if len(rows) < BATCH:
                await trio.sleep(POLL_S)

    def _read_batch(self) -> list[tuple[int, GameSummary]]:
        rows = []
        swiss = self.swiss
        for number, summary in numbered_summaries(self._store, after=self.index.newest):
            rows.append((number, summary))
            if len(rows) >= BATCH:
                break
        with self.index.lock:
            for number, summary in rows:
                self.index.add(number, summary)
        for _, summary in rows:
            count_summary(self._tally, summary, swiss=swiss)
            if self._sprt is not None and sorted(summary.players) == self._sprt[1]:
                self._sprt[0].add(summary.key, summary)
        self._counted = self.index.newest
        return rows

    def _fit(self) -> StandingsAnswer:
        entered = self.config.get("bots")
        bots = [str(name) for name in entered] if isinstance(entered, dict) else []
        stored = self._counted
        standings = self._tally.standings(
            self.tournament,
            disqualified=self._store.disqualified(),
            bots=bots,
            swiss=self.swiss,
        )
        retired = retired_bots(self._store)
        if retired:
            standings = without_bots(standings, retired)
        return StandingsAnswer(
            **msgspec.structs.asdict(standings),
            sprt=None if self._sprt is None else self._sprt[0].status(),
            retired=retired,
            stored=stored,
        )

    # -- the event stream ----------------------------------------------------------------

    def listen(
        self,
    ) -> tuple[trio.MemorySendChannel[bytes], trio.MemoryReceiveChannel[bytes]] | None:
        """A new listener's channels of events (None when too many listen already); the
        listener gives the first back to :meth:`forget` when it leaves."""
        if len(self._listeners) >= MAX_LISTENERS:
            return None
        send, receive = trio.open_memory_channel[bytes](QUEUE)
        self._listeners.add(send)
        return send, receive

    def forget(self, channel: trio.MemorySendChannel[bytes]) -> None:
        """Stop sending to a listener that left."""
        self._listeners.discard(channel)
        channel.close()

    def publish(self, kind: str, data: bytes) -> None:
        """Send one event to every listener; one that fell too far behind is dropped."""
        message = b"event: " + kind.encode() + b"\ndata: " + data + b"\n\n"
        for channel in list(self._listeners):
            try:
                channel.send_nowait(message)
            except (trio.WouldBlock, trio.BrokenResourceError, trio.ClosedResourceError):
                self._listeners.discard(channel)
                channel.close()

    @property
    def listeners(self) -> int:
        """How many event streams are open."""
        return len(self._listeners)


def _sprt_of(config: dict[str, Any]) -> tuple[SprtTally, list[str]] | None:
    """A gauntlet's SPRT tally and its two bots (sorted), when the file has an SPRT."""
    if not config.get("sprt"):
        return None
    try:
        parsed = msgspec.convert(config, TournamentConfig)
    except msgspec.ValidationError:
        return None  # written by another version: no test to show
    if parsed.sprt is None or len(parsed.challengers) != 1:
        return None
    tally = tally_of(parsed.sprt, parsed.bots, parsed.challengers[0], ())
    return tally, sorted((tally.challenger, tally.baseline))
