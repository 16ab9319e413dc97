"""The bots shipped inside goatarena, which a bot command names as ``builtin:NAME``.

``builtin:random``, ``builtin:greedy`` and ``builtin:mcts`` work wherever a bot command
does (``play``, ``check-bot``, tournament and ladder files) and from any folder: the
command runs the module with the interpreter goatarena itself runs on, so nothing
outside the installed package is needed. Words after the name are the bot's options
(``builtin:greedy --seed 3``). This module holds the table only; the bots themselves
import the SDK when they run.
"""

from __future__ import annotations

import sys

from goatarena.errors import BotError

PREFIX = "builtin:"
"""What starts a built-in bot's name in a bot command."""

BUILTIN_MODULES: dict[str, str] = {
    "random": "goatarena.bots.random_bot",
    "greedy": "goatarena.bots.greedy_bot",
    "mcts": "goatarena.bots.mcts_bot",
}
"""A built-in bot's name -> the module that runs it with ``python -m``."""


def is_builtin(word: str) -> bool:
    """Whether ``word`` (a command's first word) names a built-in bot."""
    return word.startswith(PREFIX)


def builtin_argv(word: str) -> list[str]:
    """The program and arguments that start the built-in bot ``word`` (``builtin:random``).

    Raises :class:`BotError` naming the built-in bots when there is no such one.
    """
    name = word.removeprefix(PREFIX)
    module = BUILTIN_MODULES.get(name)
    if module is None:
        known = ", ".join(PREFIX + known_name for known_name in BUILTIN_MODULES)
        raise BotError(f"no built-in bot {word!r}: the built-in bots are {known}")
    return [sys.executable, "-m", module]
