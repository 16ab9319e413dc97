"""Drive a tournament: schedule games, play them concurrently, store each as it ends.

Rerunning a tournament against its database resumes it: stored games are skipped and
any game that was interrupted is played again from its start (it was never stored).
Swiss rounds are paired from the stored results, so a resumed Swiss pairs exactly as
the interrupted one did. A file that grew keeps the games of its earlier version (see
:mod:`goatarena.formats.growth`); a gauntlet with an SPRT stops as soon as the test
decides; a ladder (:mod:`goatarena.running.ladder`) chooses its tables as the games
come in, until it is stopped.

The store is used from one worker thread at a time, never from the event loop: a disk
that is slow, full or locked by another process must not hold up the games being played.
A store that fails stops the run with its :class:`~goatarena.errors.StoreError`; every
game stored before is kept, and the game that could not be stored is played on resume.

Bots run in their sandboxes, which hide the runner's own files; deals mix in the secret
kept in the database; no process plays a deal twice; and when no more games run at once
than there are CPUs, each game slot has a CPU of its own, to which its bots are pinned.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from itertools import groupby
from pathlib import Path
from typing import TypeVar

import trio

from goatarena.errors import ClusterError, StoreError
from goatarena.formats.config import TournamentConfig
from goatarena.formats.growth import claim_store
from goatarena.formats.schedule import (
    ScheduledGame,
    entry_label,
    match_id,
    schedule_games,
    schedule_keys,
)
from goatarena.formats.size import count_games, swiss_rounds
from goatarena.formats.sprt import SprtStatus, SprtTally, progress_note, tally_of
from goatarena.formats.swiss_rounds import SwissEvent, pair_round, round_games
from goatarena.referee.bot_copies import with_copies
from goatarena.referee.records import MatchResult
from goatarena.referee.sandbox import SandboxPolicy, require_sandbox
from goatarena.referee.violations import Cause
from goatarena.running.executors import Executor, open_executor
from goatarena.running.game_slots import GameSlots
from goatarena.running.job import JobOutcome, deal_of, job_for
from goatarena.running.ladder import LadderRun
from goatarena.running.pool import MAX_START_FAILURES
from goatarena.running.progress import Progress
from goatarena.store.database import Store
from goatarena.store.opening import database_files, results_beside
from goatarena.store.standings import TOURNAMENT_FOLDER

T = TypeVar("T")

GONE = frozenset({Cause.CRASH.value, Cause.ESCAPE.value})
"""Causes of a violation that end the bot's process."""


class Runner:
    """One run of a tournament against its store."""

    def __init__(
        self,
        config: TournamentConfig,
        store: Store,
        *,
        progress: Progress | None = None,
        log_dir: Path | None = None,
        hidden: Sequence[Path] = (),
        hidden_where_possible: Sequence[Path] = (),
        cluster: str | None = None,
    ) -> None:
        self.config = config
        self.store = store
        self.progress = progress
        self.log_dir = log_dir
        db = store.path
        self.hidden = [
            *hidden,
            *database_files(db),
            *results_beside(db),  # other tournaments' (their deal secrets): always
            *([log_dir] if log_dir is not None else []),
        ]
        """The runner's own files: masked wherever a bot's sandbox would show them."""
        self.hidden_where_possible = [
            *hidden_where_possible,
            db.parent,  # the results folder: whole, unless it is a bot's own
            Path.cwd(),
        ]
        """The runner's folders: masked unless a bot is given that very folder."""
        self.secret = ""
        self._sandboxes: dict[str, SandboxPolicy] = {}
        self.cluster = cluster
        """The Dask scheduler that plays the games, or None to play them on this machine."""
        self.finished = store.finished_keys()
        self.played = 0
        self.failed: dict[str, str] = {}
        """Games that could not be played (they kept killing workers), with the reason."""
        self.disqualified = store.disqualified()
        self._start_failures: dict[str, int] = defaultdict(int)
        self._crashes: dict[str, int] = defaultdict(int)
        self.suspended: dict[str, str] = {}
        """Bots put out during this run (start-up failures, crashes), with the reason."""
        # Bot pools are per run: a rerun starts fresh processes everywhere.
        self._tournament = f"{config.name}-{config.fingerprint()}-{uuid.uuid4().hex[:8]}"
        self._limiter = trio.CapacityLimiter(config.workers)
        self._store_thread = trio.CapacityLimiter(1)
        self._executor: Executor | None = None
        self._claimed = False
        self._sprt: SprtTally | None = None
        self._sprt_scope: trio.CancelScope | None = None
        self.source: Path | None = None
        """The tournament file: a ladder reads it again as it runs, for bots that come and go."""
        self.ladder: LadderRun | None = None
        self.slots: GameSlots | None = None
        """A competition's slots its ladder's deals take, shared with the validations and
        comparisons of its site (None: not a competition, or played on a cluster)."""

    def schedule(self) -> Iterator[ScheduledGame]:
        """The games of a round-robin or gauntlet, made as they are asked for (a Swiss is
        paired as it goes, a ladder's tables chosen as games come in)."""
        if self.config.format == "ladder":
            return iter(())
        return schedule_games(self.config, secret=self.secret)

    def claim(self) -> None:
        """Bind the store to this tournament, or refuse: a store holding games of an
        earlier version of the file is taken over when the file only grew, so its games
        are kept and only new ones are played (see :mod:`goatarena.formats.growth`)."""
        if not self._claimed:
            claim_store(self.store, self.config, workdir=Path.cwd())
            if self.source is not None:  # the report shows the bots' paths relative to it
                self.store.remember(TOURNAMENT_FOLDER, str(self.source.parent.absolute()))
            if self.config.secret_deals:
                self.secret = self.store.deal_secret()
        self._claimed = True

    def stored_of_schedule(self) -> int:
        """How many of the scheduled games are stored already (all stored ones for a Swiss)."""
        if self.config.format in ("swiss", "ladder") or not self.finished:
            return len(self.finished)
        # Keys only (no seeds, no games), and done once every stored key is found.
        left, found = len(self.finished), 0
        for key in schedule_keys(self.config):
            if key in self.finished:
                found += 1
                if found == left:
                    break
        return found

    def sprt_status(self) -> SprtStatus | None:
        """Where the SPRT stands, if the tournament has one."""
        return None if self._sprt is None else self._sprt.status()

    async def _in_store(self, call: Callable[[], T]) -> T:
        """Run ``call`` on the store in the store's one worker thread, off the event loop.

        A call that has begun is not abandoned on cancellation: a game is stored whole or
        not at all, and never twice.
        """
        return await trio.to_thread.run_sync(call, limiter=self._store_thread)

    def expected_games(self) -> int:
        """How many games the whole tournament has (Swiss: as paired now, byes aside)."""
        return count_games(self.config)

    async def run(self) -> None:
        """Play every game not yet stored (an SPRT: until it decides)."""
        sandboxes = self.config.sandboxes(self.hidden, self.hidden_where_possible)
        for policy in sandboxes.values():
            require_sandbox(policy)  # refuse before anything is stored or disqualified
        if self.cluster is None:  # a cluster's workers make their own copies
            ladder = self.config.format == "ladder"  # runs on without a bot that cannot start
            sandboxes = await with_copies(sandboxes, self.config.bots, strict=not ladder)
        if not self._claimed:
            await self._in_store(self.claim)
        self._sandboxes = sandboxes
        async with open_executor(
            self.config, cluster=self.cluster, log_dir=self.log_dir
        ) as executor:
            self._executor = executor
            self._limiter = trio.CapacityLimiter(executor.capacity)
            if self.progress is not None:
                self.progress.slots = executor.capacity
                self.progress.start()
            if self.config.format == "ladder":
                if self.config.competition is not None and self.cluster is None:
                    self.slots = GameSlots.of_competition(self.store.path, self.config.workers)
                self.ladder = LadderRun(self, source=self.source)
                await self.ladder.run()
            elif self.config.sprt is not None:
                await self._play_sprt()
            elif self.config.format != "swiss":
                await self._play_all(self.schedule())
            else:
                async with trio.open_nursery() as swisses:
                    for index in range(len(self.config.games)):
                        swisses.start_soon(self._play_swiss, index)

    async def _play_all(self, games: Iterable[ScheduledGame]) -> None:
        """Play the games strictly in order, as many at a time as the executor takes:
        each of that many worker tasks takes the next group when it is free, so that only
        the games being played exist (a task per game would hold the whole schedule), and
        a deal's games are not scattered (tasks started at once reach a limiter in
        whatever order the scheduler runs them)."""
        assert self._executor is not None
        pending = self._groups(games)

        async def worker() -> None:
            for group in pending:  # shared: every group is taken by exactly one worker
                await self._play_group(group)

        async with trio.open_nursery() as nursery:
            for _ in range(self._executor.capacity):
                nursery.start_soon(worker)

    def _groups(self, games: Iterable[ScheduledGame]) -> Iterator[list[ScheduledGame]]:
        """The games not stored yet, in their order, as the executor takes them."""
        assert self._executor is not None
        unstored = (game for game in games if game.key not in self.finished)
        if not self._executor.groups_deals:
            return ([game] for game in unstored)
        # A cluster plays the rotations of a deal on one machine, for fair clocks (they
        # come one after another in every schedule).
        return (list(deal) for _, deal in groupby(unstored, key=lambda game: deal_of(game.key)))

    async def _play_group(self, games: list[ScheduledGame]) -> None:
        """Play games through the executor and store each outcome as it comes back."""
        assert self._executor is not None
        async with self._limiter:
            jobs = [
                job_for(
                    self.config,
                    game,
                    tournament=self._tournament,
                    disqualified=self.disqualified,
                    sandboxes=self._sandboxes,
                    match=match_id(game.key, self.secret),
                )
                for game in games
            ]
            outcomes = await self._executor.play(jobs)
        for scheduled, outcome in zip(games, outcomes, strict=True):
            await self._take(scheduled, outcome)

    async def _take(self, scheduled: ScheduledGame, outcome: JobOutcome) -> None:
        """Store one outcome: the record, the bots put out, or the failure."""
        if outcome.refused is not None:
            raise ClusterError(outcome.refused)
        out = dict(outcome.disqualified)
        for bot in scheduled.seating:
            # Counted here, across every referee: each sees only some of a bot's starts.
            if bot in outcome.start_failures:
                self._start_failures[bot] += 1
                if self._start_failures[bot] >= MAX_START_FAILURES:
                    out.setdefault(
                        bot,
                        f"failed to start {self._start_failures[bot]} times in a row:"
                        f" {outcome.start_failures[bot]}",
                    )
            elif bot not in self.disqualified:
                self._start_failures[bot] = 0
        if outcome.result is not None:
            self._count_crashes(scheduled, outcome, out)
        for bot, reason in out.items():
            if bot not in self.disqualified:
                self.disqualified[bot] = reason
                self.suspended[bot] = reason
                await self._in_store(partial(self.store.disqualify, bot, reason))
        if outcome.result is not None:
            result = outcome.result
            try:
                await self._in_store(
                    lambda: self.store.add_game(scheduled.key, scheduled.round, result)
                )
            except StoreError as error:
                raise StoreError(
                    f"{error}; the games stored before are kept: run the same command"
                    " again to resume"
                ) from None
            # Not added to ``finished``: a schedule never repeats a key, and a set of
            # every key played would grow with the run.
            self.played += 1
            if self._sprt is not None:
                self._sprt_step(scheduled.key, result)
        else:
            reason = outcome.failed or "no record came back"
            self.failed[scheduled.key] = reason
            await self._in_store(lambda: self.store.add_failed(scheduled.key, reason))
        if self.progress is not None:
            self.progress.advance(result=outcome.result, key=scheduled.key)

    def _count_crashes(
        self, scheduled: ScheduledGame, outcome: JobOutcome, out: dict[str, str]
    ) -> None:
        """Count the games each bot's process crashed in, in a row; add a bot that
        reached the crash limit to ``out`` (a bot that dies at every game would otherwise
        be started again for every game, its start-up burning CPU each time)."""
        assert outcome.result is not None
        limit = self.config.crash_limit
        for bot, violation in zip(scheduled.seating, outcome.result.violations, strict=True):
            if bot in self.disqualified or bot in out or bot in outcome.start_failures:
                continue  # not its process's doing in this game, or counted as a start
            if violation is None or violation.cause not in GONE:
                self._crashes[bot] = 0
                continue
            self._crashes[bot] += 1
            if limit and self._crashes[bot] >= limit:
                out[bot] = (
                    f"suspended after crashing in {self._crashes[bot]} games in a row"
                    f" (last: {violation.cause}: {violation.detail})"
                )

    async def _play_sprt(self) -> None:
        """Play deal after deal until the test decides (or the deals run out)."""
        config = self.config
        assert config.sprt is not None
        stored = await self._in_store(lambda: list(self.store.summaries()))
        self._sprt = tally_of(
            config.sprt, config.bots, config.challengers[0], ((g.key, g) for g in stored)
        )
        self._sprt_step()
        if self._sprt.status().verdict != "running":
            return
        with trio.CancelScope() as scope:
            self._sprt_scope = scope
            await self._play_all(self.schedule())

    def _sprt_step(self, key: str | None = None, result: MatchResult | None = None) -> None:
        """Count a finished game; stop the games still running once the test decides."""
        assert self._sprt is not None
        if key is not None and result is not None:
            self._sprt.add(key, result)
        status = self._sprt.status()
        if self.progress is not None:
            self.progress.note = progress_note(status)
        if status.verdict != "running" and self._sprt_scope is not None:
            # Games cut short are never stored: the record stays complete or absent.
            self._sprt_scope.cancel()

    async def _play_swiss(self, index: int) -> None:
        entry = self.config.games[index]
        label = entry_label(index, entry)
        bots = list(self.config.bots)
        byes: dict[str, int] = defaultdict(int)
        for round_number in range(1, swiss_rounds(self.config, entry.players) + 1):
            stored = await self._in_store(lambda: list(self.store.summaries(game=entry.name)))
            before = SwissEvent(label, bots, entry.players, round_number, defaultdict(int, byes))
            # The rating fit and the split search take a while on large fields: in a
            # thread, so that other events' games keep their clocks.
            pairing = await trio.to_thread.run_sync(
                partial(pair_round, before, stored, seed=self.config.seed)
            )
            for name in pairing.byes:
                byes[name] += 1
            await self._play_all(round_games(self.config, entry, before, pairing, self.secret))
