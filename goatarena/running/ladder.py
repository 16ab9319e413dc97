"""Play a ladder: tables chosen as the games come in, until stopped, while bots come and go.

One :class:`~goatarena.formats.ladder.state.Matchmaker` per game entry chooses each
next table from the games stored so far; a table is one deal, played in every seat
rotation. Its choice (rule and reason) is stored before its games, so that
``goatarena ladder why`` can say why a game was played and a ladder killed at any
moment resumes where it was: the matchmakers are rebuilt from the stored games in their
order, and a deal cut short is played again (only its missing rotations; games are keyed
and never stored twice).

The tournament file is read again every ``ladder.poll_s`` seconds: a bot added passes
the pre-flight and a validation game against itself before it plays anyone (one that
fails is suspended with the reason); a retired version leaves the tables (its games stay).
A version whose recent games hold too many violations is suspended. The ladder stops on
Ctrl-C or SIGTERM (rerun to resume) or when its stop rule is met.
"""

from __future__ import annotations

import dataclasses
import time
from collections import Counter
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, Protocol, TypeVar

import msgspec
import trio

from goatarena.errors import GoatArenaError
from goatarena.formats.config import TournamentConfig
from goatarena.formats.growth import incomparable_changes
from goatarena.formats.ladder.deal_spread import DealSpread
from goatarena.formats.ladder.deals import deal_games, deal_key, parse_deal
from goatarena.formats.ladder.matchmaking import (
    MatchRules,
    TableChoice,
    default_rules,
    plan_pairs,
)
from goatarena.formats.ladder.roster import SUSPENDED, ErrorWatch, active_bots
from goatarena.formats.ladder.state import Matchmaker
from goatarena.formats.ladder.stop import stop_reason
from goatarena.formats.schedule import ScheduledGame, deal_seed, entry_label, match_id
from goatarena.formats.tournament_file import load_config
from goatarena.ratings.clusters import rotation_deal
from goatarena.referee.match import MatchResult
from goatarena.referee.sandbox import SandboxPolicy
from goatarena.running.executors import Executor
from goatarena.running.job import JobOutcome, job_for
from goatarena.running.preflight import start_failure
from goatarena.running.progress import Progress
from goatarena.store.database import Store, StoredGame

T = TypeVar("T")


class Runner(Protocol):
    """What a ladder uses of :class:`goatarena.running.runner.Runner` (which imports
    this module, so it is named here by its parts)."""

    config: TournamentConfig
    store: Store
    progress: Progress | None
    disqualified: dict[str, str]
    secret: str
    finished: set[str]
    hidden: list[Path]
    cluster: str | None
    _sandboxes: dict[str, SandboxPolicy]
    _tournament: str
    _executor: Executor | None
    _limiter: trio.CapacityLimiter
    ladder: Any

    async def _in_store(self, call: Callable[[], T]) -> T:
        """Run ``call`` on the store off the event loop."""

    async def _take(self, scheduled: ScheduledGame, outcome: JobOutcome) -> None:
        """Store one outcome."""


def rules_of(config: TournamentConfig, players: int) -> MatchRules:
    """The matchmaking rule's settings for tables of ``players``: the ``[ladder]``
    table's where it sets them, else the defaults for that table size."""
    settings = config.ladder
    chosen = {
        name: getattr(settings, name)
        for name in ("min_games", "floor", "explore")
        if getattr(settings, name) is not None
    }
    return dataclasses.replace(default_rules(players), top_k=settings.top_k, **chosen)


class LadderRun:
    """The ladder part of one run of a :class:`~goatarena.running.runner.Runner`."""

    def __init__(self, runner: Runner, *, source: Path | None = None) -> None:
        self.runner = runner
        self.source = source
        """The tournament file, read again while the ladder runs (None: never)."""
        config = runner.config
        self.matchmakers = [
            Matchmaker(
                players=entry.players, seed=config.seed, rules=rules_of(config, entry.players)
            )
            for entry in config.games
        ]
        self.spreads = [DealSpread() for _ in config.games]
        """Per game entry, each bot's deal adjustment of its quick estimate's interval."""
        self._labels = {entry_label(i, e): i for i, e in enumerate(config.games)}
        self.watch = ErrorWatch(
            games=config.ladder.suspend_games, share=config.ladder.suspend_share
        )
        self.put_out: dict[str, str] = dict(runner.disqualified)
        self.validated: set[str] = set()
        self._validating: set[str] = set()
        self._redo: list[tuple[int, int, tuple[str, ...]]] = []
        self._changed = trio.Event()
        self._planning = trio.Lock()
        self._turn = 0
        self._mtime: float | None = None
        self._started = time.monotonic()
        self.stopped: str | None = None
        """Why the ladder stopped by its own rule (None: it was interrupted)."""
        self.last_game: dict[str, float] = {}
        """When each bot's last game of this run ended (monotonic clock)."""
        self.history: dict[str, list[float]] = {}
        """Each bot's estimate after each of its recent games (for the trend)."""
        progress = runner.progress
        self.on_change: Callable[[], None] = progress.report if progress else lambda: None
        """Called when a bot joins or leaves the tables (the board redraws)."""

    # --- resuming ------------------------------------------------------------------------

    def rebuild(self, stored: list[StoredGame], choices: dict[str, tuple[str, str]]) -> None:
        """Replay the stored games into the matchmakers, in their order; find the deals
        cut short, to be finished first."""
        per_deal: Counter[str] = Counter()
        deals: dict[str, tuple[int, int, tuple[str, ...]]] = {}
        for game in stored:
            parsed = parse_deal(game.key)
            if parsed is None or parsed[0] not in self._labels:
                continue
            label, table, bots = parsed
            entry = self._labels[label]
            self._heard(entry, game.result, chosen_here=False, live=False, key=game.key)
            key = deal_key(entry, self.runner.config.games[entry], table, bots)
            per_deal[key] += 1
            deals[key] = (entry, table, bots)
            self.validated.update(game.result.players)
        for key in choices:
            parsed = parse_deal(key)
            if parsed is not None and parsed[0] in self._labels:
                deals.setdefault(key, (self._labels[parsed[0]], parsed[1], parsed[2]))
        for key, (entry, table, bots) in sorted(deals.items()):
            matchmaker = self.matchmakers[entry]
            matchmaker.index = max(matchmaker.index, table + 1)
            if per_deal[key] < len(bots):
                self._redo.append((entry, table, bots))

    # --- the roster ----------------------------------------------------------------------

    def apply_roster(self, nursery: trio.Nursery | None = None) -> None:
        """Seat the active, validated bots; take out the others; validate newcomers."""
        active = active_bots(self.runner.config, self.put_out)
        for name in active:
            if name in self.validated:
                for matchmaker in self.matchmakers:
                    matchmaker.add(name)
            elif name not in self._validating and nursery is not None:
                self._validating.add(name)
                nursery.start_soon(self._validate, name)
        for matchmaker in self.matchmakers:
            for name in list(matchmaker.active):
                if name not in active:
                    matchmaker.retire(name)
        self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = trio.Event()
        self.on_change()

    async def _validate(self, name: str) -> None:
        """Pre-flight and a validation game of ``name`` against itself, then seat it."""
        runner, config = self.runner, self.runner.config
        reason = None
        if runner.cluster is None:  # on a cluster the bots start on the workers, not here
            reason = await start_failure(
                config.bots[name],
                startup_s=config.time.startup_ms / 1000,
                limits=config.limits,
                sandbox=runner._sandboxes.get(name),
            )
        if reason is None:
            reason = await self._self_play(name)
        self._validating.discard(name)
        if reason is not None:
            await self.suspend(name, f"{SUSPENDED}did not pass its validation: {reason}")
            return
        self.validated.add(name)
        self.apply_roster()

    async def _self_play(self, name: str) -> str | None:
        """Play the first game entry with ``name`` in every seat; why it failed, or None."""
        runner, config = self.runner, self.runner.config
        entry = config.games[0]
        key = f"{entry_label(0, entry)}/validation/{name}/r0"
        game = ScheduledGame(
            key=key,
            game=entry.name,
            seed=deal_seed(config.seed, key, secret=runner.secret),
            seating=(name,) * entry.players,
            options=dict(entry.options),
        )
        job = job_for(
            config,
            game,
            tournament=runner._tournament,
            sandboxes=runner._sandboxes,
            match=match_id(key, runner.secret),
        )
        assert runner._executor is not None
        async with runner._limiter:
            (outcome,) = await runner._executor.play([job])
        if outcome.result is None:
            return outcome.failed or outcome.refused or "the game did not finish"
        for violation in outcome.result.violations:
            if violation is not None:
                return f"{violation.cause}: {violation.detail}"
        return None

    async def suspend(self, name: str, reason: str) -> None:
        """Take ``name`` out of the tables for ``reason``, stored (until a new version)."""
        if name in self.put_out:
            return
        self.put_out[name] = reason
        await self.runner._in_store(partial(self.runner.store.disqualify, name, reason))
        self.apply_roster()

    # --- playing -------------------------------------------------------------------------

    async def run(self) -> None:
        """Play until stopped: by the caller, a signal, or the stop rule."""
        runner = self.runner
        stored = await runner._in_store(lambda: list(runner.store.games()))
        choices = await runner._in_store(runner.store.ladder_choices)
        self.rebuild(stored, choices)
        self._note_mtime()
        assert runner._executor is not None
        async with trio.open_nursery() as nursery:
            self.apply_roster(nursery)
            nursery.start_soon(self._watch, nursery)
            for _ in range(runner._executor.capacity):
                nursery.start_soon(self._worker, nursery)

    async def _worker(self, nursery: trio.Nursery) -> None:
        while True:
            if self.stopped is not None:
                nursery.cancel_scope.cancel()
                return
            await self._replan()
            chosen = self._next_deal()
            if chosen is None:
                await self._changed.wait()
                continue
            await self._play_deal(*chosen)

    async def _replan(self) -> None:
        """Remake the plans of open pairs that are due, in a worker thread: at a thousand
        bots a plan takes a tenth of a second, which must not hold up the games' clocks."""
        for matchmaker in self.matchmakers:
            if matchmaker.plan_due():
                async with self._planning:
                    if matchmaker.plan_due():
                        snapshot = matchmaker.contenders()
                        plan = await trio.to_thread.run_sync(plan_pairs, snapshot, matchmaker.rules)
                        matchmaker.set_plan(plan)

    def _next_deal(
        self,
    ) -> tuple[int, int, tuple[str, ...], TableChoice | None] | None:
        """The next deal: one cut short first, then the matchmakers' in turn."""
        if self._redo:
            entry, table, bots = self._redo.pop(0)
            return entry, table, bots, None
        count = len(self.matchmakers)
        for step in range(count):
            entry = (self._turn + step) % count
            matchmaker = self.matchmakers[entry]
            table = matchmaker.index
            choice = matchmaker.next_table()
            if choice is not None:
                self._turn = entry + 1
                return entry, table, choice.bots, choice
        return None

    async def _play_deal(
        self, entry: int, table: int, bots: tuple[str, ...], choice: TableChoice | None
    ) -> None:
        runner = self.runner
        config = runner.config
        if choice is not None:
            key = deal_key(entry, config.games[entry], table, bots)
            await runner._in_store(
                partial(runner.store.add_ladder_choice, key, choice.rule, choice.reason)
            )
        games = [
            game
            for game in deal_games(config, entry, table, bots, secret=runner.secret)
            if game.key not in runner.finished
        ]
        assert runner._executor is not None
        async with runner._limiter:
            jobs = [
                job_for(
                    config,
                    game,
                    tournament=runner._tournament,
                    disqualified=runner.disqualified,
                    sandboxes=runner._sandboxes,
                    match=match_id(game.key, runner.secret),
                )
                for game in games
            ]
            outcomes = await runner._executor.play(jobs)
        for scheduled, outcome in zip(games, outcomes, strict=True):
            await runner._take(scheduled, outcome)
            for name in bots:  # put out by the runner (it failed to start, again and again)
                if name in runner.disqualified and name not in self.put_out:
                    self.put_out[name] = runner.disqualified[name]
                    self.apply_roster()
            if outcome.result is not None:
                for name, reason in self._heard(
                    entry, outcome.result, chosen_here=choice is not None, key=scheduled.key
                ):
                    await self.suspend(name, reason)
            elif choice is not None:
                self.matchmakers[entry].abandon(bots)
        self._check_stop()

    def _heard(
        self,
        entry: int,
        result: MatchResult,
        *,
        chosen_here: bool,
        live: bool = True,
        key: str | None = None,
    ) -> list[tuple[str, str]]:
        """Count one game (of schedule key ``key``) into its matchmaker, its deal's
        spread and the error watch; the bots to suspend."""
        matchmaker = self.matchmakers[entry]
        ranks = dict(zip(result.players, result.ranks, strict=True))
        deal = None if key is None else rotation_deal(key)
        if deal is not None:  # scored at the estimates before they count the game
            self.spreads[entry].add(deal, ranks, matchmaker.ratings)
        matchmaker.record(ranks, chosen_here=chosen_here)
        trend = self.runner.config.ladder.trend_games
        suspend = []
        now = time.monotonic()
        for seat, name in enumerate(result.players):
            violated = bool(
                result.all_violations[seat]
                if seat < len(result.all_violations)
                else result.violations[seat]
            )
            reason = self.watch.add(name, violated)
            if reason is not None and name not in self.put_out:
                suspend.append((name, reason))
            history = self.history.setdefault(name, [])
            history.append(matchmaker.ratings.elo(name))
            del history[: -trend - 1]
            if live:
                self.last_game[name] = now
        return suspend

    # --- watching the file and the stop rule ---------------------------------------------

    def _note_mtime(self) -> bool:
        """Remember the file's modification time; whether it changed."""
        if self.source is None:
            return False
        try:
            mtime = self.source.stat().st_mtime_ns
        except OSError:
            return False
        changed = self._mtime is not None and mtime != self._mtime
        self._mtime = mtime
        return changed

    async def _watch(self, nursery: trio.Nursery) -> None:
        while True:
            await trio.sleep(self.runner.config.ladder.poll_s)
            self._check_stop()
            if self.stopped is not None:
                nursery.cancel_scope.cancel()
                return
            if self._note_mtime():
                await self.reload(nursery)

    async def reload(self, nursery: trio.Nursery | None = None) -> str | None:
        """Read the file again and apply it; the reason it was not applied, or None."""
        assert self.source is not None
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
        runner._sandboxes = new.sandboxes(runner.hidden)
        await runner._in_store(partial(_update_claim, runner.store, new))
        self.apply_roster(nursery)
        return None

    def _refuse(self, message: str) -> str:
        if self.runner.progress is not None:
            self.runner.progress.note = message
        return message

    def _check_stop(self) -> None:
        """Set :attr:`stopped` when the stop rule is met."""
        if self.stopped is None:
            self.stopped = stop_reason(
                self.runner.config.ladder,
                self.matchmakers,
                elapsed_s=time.monotonic() - self._started,
                validating=bool(self._validating),
            )


def _keep_run_settings(new: TournamentConfig, old: TournamentConfig) -> TournamentConfig:
    """The file as read again, with what the command line set for this run kept."""
    return msgspec.structs.replace(new, concurrency=old.concurrency, sandbox=old.sandbox)


def _update_claim(store: Store, config: TournamentConfig) -> None:
    """Store the file as applied, so that readers see the roster as the ladder does."""
    store.update_claim(
        fingerprint=config.fingerprint(), config_json=msgspec.json.encode(config).decode()
    )
