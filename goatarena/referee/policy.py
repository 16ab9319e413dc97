"""What the referee does when a bot breaks the rules: a value object per kind of violation.

Every violation is recorded. The policy says, per :class:`~goatarena.referee.bot.Cause`,
whether the bot forfeits at once or whether a uniform random legal choice is played for it
and a strike counted; the strike that reaches the limit forfeits.
"""

from __future__ import annotations

import enum

import msgspec

from goatarena.referee.bot import Cause


class Penalty(enum.StrEnum):
    """What happens to a bot for one violation."""

    FORFEIT = "forfeit"
    """The seat forfeits: it is ranked last and never asked again in this game."""

    RANDOM_MOVE = "random-move"
    """A uniform random legal choice is played for the bot, and it gets a strike."""


class ViolationPolicy(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The penalty for each cause of violation, and how many strikes end a bot's game.

    ``crash`` can only be ``forfeit``: a process that died or closed its output cannot
    answer again. Whatever the policy, a violation that leaves the conversation out of
    step (a line over the size cap, a request the bot does not read) also forfeits.
    With ``strikes = 3`` the first two violations under ``random-move`` are played
    randomly and the third forfeits. Decodes from a TOML table such as
    ``{timeout = "random-move", strikes = 5}``.
    """

    timeout: Penalty = Penalty.FORFEIT
    crash: Penalty = Penalty.FORFEIT
    malformed: Penalty = Penalty.FORFEIT
    illegal: Penalty = Penalty.FORFEIT
    strikes: int = 3

    def __post_init__(self) -> None:
        if self.crash is not Penalty.FORFEIT:
            raise ValueError("a crash can only be penalised with forfeit")
        if self.strikes < 1:
            raise ValueError("strikes must be at least 1")

    def penalty_for(self, cause: Cause) -> Penalty:
        """The penalty this policy sets for ``cause``."""
        # A cause with no field of its own (escape) can only forfeit: the bot is gone.
        penalty: Penalty = getattr(self, cause.value, Penalty.FORFEIT)
        return penalty
