"""Play a ladder: tables chosen as the games come in, until stopped, while bots come and go.

One :class:`~goatarena.formats.ladder.state.Matchmaker` per game entry chooses each
next table from the games stored so far; a table is one deal, played in every seat
rotation. Its choice (rule and reason) is stored before its games, so that
``goatarena ladder why`` can say why a game was played and a ladder killed at any
moment resumes where it was: the matchmakers are rebuilt from the stored games in their
order, and a deal cut short is played again (only its missing rotations; games are keyed
and never stored twice; :mod:`.ladder_tables`).

The tournament file is read again every ``ladder.poll_s`` seconds; a bot added passes
the check of its folder, the pre-flight and a validation game against the reference bot
before it plays anyone (one that fails is suspended with the reason); a retired version
leaves the tables (its games stay). A version whose recent games hold too many
violations is suspended. The ladder stops on
Ctrl-C or SIGTERM (rerun to resume) or when its stop rule is met. The newcomers' checks
are :mod:`.ladder_newcomers`, the reading of the file :mod:`.ladder_file`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import trio

from goatarena.formats.ladder.deal_spread import DealSpread
from goatarena.formats.ladder.deals import deal_games, deal_key
from goatarena.formats.ladder.matchmaking import TableChoice
from goatarena.formats.ladder.roster import ErrorWatch, active_bots
from goatarena.formats.ladder.stop import stop_reason
from goatarena.formats.schedule import ScheduledGame, match_id
from goatarena.ratings.clusters import rotation_deal
from goatarena.referee.match import MatchResult
from goatarena.running.game_slots import holding
from goatarena.running.job import GameJob, job_for
from goatarena.running.ladder_file import LadderFile
from goatarena.running.ladder_newcomers import Newcomers
from goatarena.running.ladder_runner import Runner
from goatarena.running.ladder_tables import LadderTables
from goatarena.store.database import StoredGame

__all__ = ["LadderRun", "Runner"]


class LadderRun:
    """The ladder part of one run of a :class:`~goatarena.running.runner.Runner`."""

    def __init__(self, runner: Runner, *, source: Path | None = None) -> None:
        self.runner = runner
        config = runner.config
        self.tables = LadderTables(config)
        self.matchmakers = self.tables.matchmakers
        self.spreads = [DealSpread() for _ in config.games]
        """Per game entry, each bot's deal adjustment of its quick estimate's interval."""
        self.watch = ErrorWatch(
            games=config.ladder.suspend_games, share=config.ladder.suspend_share
        )
        self.put_out: dict[str, str] = dict(runner.disqualified)
        self.newcomers = Newcomers(
            runner, passed=lambda _name: self.apply_roster(), failed=self.suspend
        )
        self.file = None if source is None else LadderFile(runner, source, self.apply_roster)
        self._nursery: trio.Nursery | None = None
        self._players = self._wanted = 0
        self._changed = trio.Event()
        self._started = time.monotonic()
        self.stopped: str | None = None
        """Why the ladder stopped by its own rule (None: it was interrupted)."""
        self.last_game: dict[str, float] = {}
        """When each bot's last game of this run ended (monotonic clock)."""
        self.history: dict[tuple[int, str], list[float]] = {}
        """Per (game entry, bot): the bot's estimate in that entry's ladder after each of
        its recent games there (for the trend; each entry rates on its own scale)."""
        progress = runner.progress
        self.on_change: Callable[[], None] = progress.report if progress else lambda: None
        """Called when a bot joins or leaves the tables (the board redraws)."""

    @property
    def validated(self) -> set[str]:
        """The bots that passed their validation (or played before: resumed)."""
        return self.newcomers.validated

    # --- resuming ------------------------------------------------------------------------

    def rebuild(self, stored: list[StoredGame], choices: dict[str, tuple[str, str]]) -> None:
        """Replay the stored games into the matchmakers, in their order; find the deals
        cut short, to be finished first."""

        def heard(entry: int, game: StoredGame) -> None:
            self._heard(entry, game.result, chosen_here=False, live=False, key=game.key)
            self.validated.update(game.result.players)

        self.tables.rebuild(stored, choices, heard)

    # --- the roster ----------------------------------------------------------------------

    def apply_roster(self) -> None:
        """Seat the active, validated bots; take out the others; validate newcomers."""
        active = active_bots(self.runner.config, self.put_out)
        self.tables.seat(active, self.validated)
        if self._nursery is not None:
            for name in active:
                self.newcomers.start(name, self._nursery)
        self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = trio.Event()
        self.on_change()

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
        assert runner._executor is not None
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            self.apply_roster()
            nursery.start_soon(self._watch, nursery)
            await self._staff(nursery)

    async def _staff(self, nursery: trio.Nursery) -> None:
        """Keep one deal player per game the executor runs at once: no more deals in
        flight than are played (on a cluster, whose scheduler would queue thousands, a
        table is still chosen from the latest games), as workers join or leave."""
        assert self.runner._executor is not None
        self._wanted = await self.runner._executor.slots()
        while self._players < self._wanted:
            self._players += 1
            nursery.start_soon(self._worker, nursery)

    async def _worker(self, nursery: trio.Nursery) -> None:
        while True:
            if self.stopped is not None:
                nursery.cancel_scope.cancel()
                return
            if self._players > self._wanted:  # the cluster shrank
                self._players -= 1
                return
            await self.tables.replan()
            chosen = self.tables.next_deal()
            if chosen is None:
                await self._changed.wait()
                continue
            await self._play_deal(*chosen)

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
        # A competition's deal takes a slot its site's validations share (game_slots).
        async with runner._limiter, holding(runner.slots):
            outcomes = await runner._executor.play([_job(runner, game) for game in games])
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
            reason = self.watch.add(name, _violated(result, seat))
            if reason is not None and name not in self.put_out:
                suspend.append((name, reason))
            history = self.history.setdefault((entry, name), [])
            history.append(matchmaker.ratings.elo(name))
            del history[: -trend - 1]
            if live:
                self.last_game[name] = now
        return suspend

    # --- watching the file and the stop rule ---------------------------------------------

    async def _watch(self, nursery: trio.Nursery) -> None:
        """Every ``poll_s`` seconds: the stop rule, and the file if it changed."""
        while True:
            await trio.sleep(self.runner.config.ladder.poll_s)
            self._check_stop()
            if self.stopped is not None:
                nursery.cancel_scope.cancel()
                return
            if self.file is not None and self.file.changed():
                await self.file.reload()
            await self._staff(nursery)

    def _check_stop(self) -> None:
        """Set :attr:`stopped` when the stop rule is met."""
        if self.stopped is None:
            self.stopped = stop_reason(
                self.runner.config.ladder,
                self.matchmakers,
                elapsed_s=time.monotonic() - self._started,
                validating=bool(self.newcomers.validating),
            )


def _job(runner: Runner, game: ScheduledGame) -> GameJob:
    """The job of one game of a deal, as the runner would make it."""
    return job_for(
        runner.config,
        game,
        tournament=runner._tournament,
        disqualified=runner.disqualified,
        sandboxes=runner._sandboxes,
        match=match_id(game.key, runner.secret),
    )


def _violated(result: MatchResult, seat: int) -> bool:
    """Whether the bot in ``seat`` broke a rule in the game (even if it was not put out)."""
    if seat < len(result.all_violations):
        return bool(result.all_violations[seat])
    return bool(result.violations[seat])
