"""A ladder's newcomers: the checks a bot passes before it plays anyone.

A bot new to a running ladder (added, or a new version) must have a folder of its own:
one whose command names a path outside its folder and the paths it is given, or whose
folder another bot's command names too (each could read the other's files), is refused.
Then it passes the pre-flight every bot of a tournament passes (it starts and says hello
within the start-up time; on a cluster the bots start on the workers, so there this step
is left to the game), then plays a validation game on the first game entry against the
reference bot (:data:`REFERENCE_COMMAND`) in every other seat, each seat its own
process, the reference bot in the sandbox every other bot of the ladder has now: a
newcomer whose arrival would keep the others from starting fails here, alone. A bot that
passes is seated; one that fails either is suspended with the reason and never plays
anyone.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import msgspec
import trio

from goatarena.errors import BotError
from goatarena.formats.config import BotPaths
from goatarena.formats.ladder.roster import SUSPENDED, base_name
from goatarena.formats.schedule import ScheduledGame, deal_seed, entry_label, match_id
from goatarena.referee.bot_folders import check_commands, sharing
from goatarena.running.game_slots import holding
from goatarena.running.job import job_for
from goatarena.running.ladder_runner import Runner
from goatarena.running.preflight import start_failure

REFERENCE = "(reference)"
"""The name of the reference bot in a validation game (no bot of a file can have it)."""
REFERENCE_COMMAND = "builtin:random"
"""The bot a newcomer plays its validation game against."""


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
        """Its folder, pre-flight and a validation game of ``name``, then report."""
        runner, config = self.runner, self.runner.config
        reason = self.folder_problem(name)
        # On a cluster the bots start on the workers, not here.
        if reason is None and runner.cluster is None:
            reason = await start_failure(
                config.bots[name],
                startup_s=config.time.startup_ms / 1000,
                limits=config.limits,
                sandbox=runner._sandboxes.get(name),
            )
        if reason is None:
            reason = await self.validation_game(name)
        self.validating.discard(name)
        if reason is not None:
            await self._failed(name, f"{SUSPENDED}did not pass its validation: {reason}")
            return
        self.validated.add(name)
        self._passed(name)

    def folder_problem(self, name: str) -> str | None:
        """Why ``name``'s command does not keep to a folder of its own, or None: a word
        that leads elsewhere, or a folder another bot (not a version of it) has too."""
        config = self.runner.config
        if config.sandbox == "none":  # nothing is hidden from anyone
            return None
        command = config.bots[name]
        given = config.paths.get(name, BotPaths())
        try:
            check_commands({name: command}, {name: (*given.read, *given.write)})
        except BotError as error:
            return str(error)
        retired = set(config.ladder.retired)
        others = {
            other: line
            for other, line in config.bots.items()
            if other == name or (other not in retired and base_name(other) != base_name(name))
        }
        shared = sharing(others, name)
        if not shared:
            return None
        folder, other = shared[0]
        return (
            f"it shares its folder {folder} with bot {other!r}, so each could read the"
            " other's files: give every bot a folder of its own"
        )

    async def validation_game(self, name: str) -> str | None:
        """Play the first game entry with ``name`` in one seat and the reference bot in
        every other; why it failed, or None."""
        runner = self.runner
        config = msgspec.structs.replace(
            runner.config, bots={**runner.config.bots, REFERENCE: REFERENCE_COMMAND}
        )
        entry = config.games[0]
        key = f"{entry_label(0, entry)}/validation/{name}/r0"
        game = ScheduledGame(
            key=key,
            game=entry.name,
            seed=deal_seed(config.seed, key, secret=runner.secret),
            seating=(name,) + (REFERENCE,) * (entry.players - 1),
            options=dict(entry.options),
        )
        # The reference bot is sandboxed as every other bot of the ladder now is: with
        # the newcomer's folder among those hidden from it.
        reference = config.sandboxes(runner.hidden, runner.hidden_where_possible)[REFERENCE]
        job = job_for(
            config,
            game,
            tournament=runner._tournament,
            sandboxes={**runner._sandboxes, REFERENCE: reference},
            match=match_id(key, runner.secret),
        )
        assert runner._executor is not None
        async with runner._limiter, holding(runner.slots):  # a competition's slot, as a deal's
            (outcome,) = await runner._executor.play([job])
        if outcome.result is None:
            return outcome.failed or outcome.refused or "the game did not finish"
        for seat, violation in enumerate(outcome.result.violations):
            if violation is not None:
                whose = "" if game.seating[seat] == name else "the reference bot beside it: "
                return f"{whose}{violation.cause}: {violation.detail}"
        return None
