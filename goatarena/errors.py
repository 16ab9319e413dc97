"""The error hierarchy: every error a user can cause is a :class:`GoatArenaError`.

The CLI prints such an error as one line and exits non-zero; anything else is a bug in
goatarena and is allowed to propagate with its traceback.
"""

from __future__ import annotations


class GoatArenaError(Exception):
    """Base of every error goatarena reports to a user as one clear line."""


class ConfigError(GoatArenaError):
    """Raised for bad user input: a tournament file, an option, a player count."""


class UnknownGameError(ConfigError):
    """Raised by :func:`goatarena.games.find_game` for a name that is not registered."""


class IllegalAction(GoatArenaError):
    """Raised by a game state when asked to apply an action that is not legal now."""


class BotError(GoatArenaError):
    """Raised when a bot process cannot be started or misbehaves outside a game."""


class StoreError(GoatArenaError):
    """Raised when a results database is unreadable, foreign or from another tournament."""


class ClusterError(GoatArenaError):
    """Raised when games cannot be played elsewhere: no scheduler, a worker that refuses
    jobs (another goatarena version, a bot's runtime missing), a referee process lost."""


def user_error_in(error: BaseException) -> GoatArenaError | None:
    """The :class:`GoatArenaError` inside ``error``, unwrapping exception groups, if any."""
    if isinstance(error, GoatArenaError):
        return error
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            found = user_error_in(inner)
            if found is not None:
                return found
    return None
