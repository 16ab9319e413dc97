"""A ladder's newcomers: the checks a bot passes before it plays anyone.

A bot new to a running ladder (added, or a new version) passes the pre-flight every
bot of a tournament passes (it starts and says hello within the start-up time; on a
cluster the bots start on the workers, so there this step is left to the game), then
plays a validation game against itself, every seat its own process, on the first game
entry. A bot that passes is seated; one that fails either is suspended with the reason
and never plays anyone.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import trio

from goatarena.formats.ladder.roster import SUSPENDED
from goatarena.formats.schedule import ScheduledGame, deal_seed, entry_label, match_id
from goatarena.running.job import job_for
from goatarena.running.ladder_runner import Runner
from goatarena.running.preflight import start_failure


class Newcomers:
    """Validates the bots new to a ladder, one task each, and says how each fared."""

    def __init__(
        self,
        runner: Runner,
        *,
        passed: Callable[[str], None],
        failed: Callable[[str, str], Awaitable[None]],
    ) -> None:
        self.runner = runner
        self._passed = passed
        self._failed = failed
        self.validated: set[str] = set()
        """The bots that passed (or played a game of the ladder before: resumed)."""
        self.validating: set[str] = set()
        """The bots being validated now."""

    def start(self, name: str, nursery: trio.Nursery) -> None:
        """Validate ``name`` in ``nursery`` unless it passed or is being validated."""
        if name in self.validated or name in self.validating:
            return
        self.validating.add(name)
        nursery.start_soon(self._validate, name)

    async def _validate(self, name: str) -> None:
        """Pre-flight and a validation game of ``name`` against itself, then report."""
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
            reason = await self.self_play(name)
        self.validating.discard(name)
        if reason is not None:
            await self._failed(name, f"{SUSPENDED}did not pass its validation: {reason}")
            return
        self.validated.add(name)
        self._passed(name)

    async def self_play(self, name: str) -> str | None:
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
