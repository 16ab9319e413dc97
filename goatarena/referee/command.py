"""A bot's command line, split into the program and its arguments as the launcher runs it.

No shell runs a bot command: its words go to the program as they are. Words that only a
shell understands (``|``, ``&&``, ``>``, ``;``) are refused with a line that says so,
rather than passed on as arguments the bot would ignore. ``builtin:NAME`` names one of
the bots shipped with goatarena (:mod:`goatarena.bots`).
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence

from goatarena.bots import BUILTIN_MODULES, PREFIX, builtin_argv, is_builtin
from goatarena.errors import BotError

PYTHON_NAMES = frozenset({"python", "python3"})

SHELL_WORDS = frozenset(
    {"|", "||", "&", "&&", ";", ";;", ">", ">>", "<", "<<", "2>", "2>>", "&>", "2>&1", "|&"}
)
"""Words of shell syntax (pipes, lists, redirections) that no bot takes as an argument."""


def parse_command(command: str | Sequence[str]) -> list[str]:
    """A command line split like a shell would (no shell is run).

    A bare ``python`` or ``python3`` means the interpreter goatarena itself runs on, so
    that bots written with :mod:`goatarena.sdk` find the package in any environment; a
    first word ``builtin:NAME`` is the built-in bot of that name. A command given as a
    string that holds shell syntax as a word of its own is refused (see
    :func:`shell_syntax_error`).
    """
    try:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
    except ValueError as error:
        raise BotError(f"cannot parse bot command {command!r}: {error}") from None
    if not argv:
        raise BotError("empty bot command")
    if isinstance(command, str):
        problem = shell_syntax_error(command, argv)
        if problem is not None:
            raise BotError(problem)
    if is_builtin(argv[0]):
        return builtin_argv(argv[0]) + argv[1:]
    if argv[0] in PYTHON_NAMES:
        argv[0] = sys.executable
    return argv


def shell_syntax_error(command: str, argv: Sequence[str]) -> str | None:
    """Why the words ``argv`` of ``command`` cannot be meant as they are, or None.

    A word such as ``|`` or ``>`` would reach the bot as an argument: the user meant a
    pipe or a redirection, which only a shell makes.
    """
    found = [word for word in argv if word in SHELL_WORDS]
    if not found:
        return None
    meant = command
    if is_builtin(argv[0]) and argv[0].removeprefix(PREFIX) in BUILTIN_MODULES:
        # A shell knows no builtin: names; it runs the module with python3 instead.
        module = BUILTIN_MODULES[argv[0].removeprefix(PREFIX)]
        meant = shlex.join(["python3", "-m", module]) + command.strip()[len(argv[0]) :]
    return (
        f"bot command {command!r} holds shell syntax ({' '.join(dict.fromkeys(found))}),"
        " but no shell runs a bot command: its words would reach the program as arguments;"
        f" to run it through a shell, use: sh -c {shlex.quote(meant)}"
    )
