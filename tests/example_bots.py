"""Commands of the example bots in bots/, one per language, for tests that run them."""

from __future__ import annotations

import shlex
import shutil
import sys

from tests.helpers import RANDOM_BOT, ROOT

PYTHON_BOT = RANDOM_BOT
JS_BOT = shlex.quote(str(ROOT / "bots" / "javascript" / "random_bot.js"))
"""Run through its shebang, which finds ``node`` on the PATH."""
SHELL_BOT = shlex.quote(str(ROOT / "bots" / "shell" / "first_bot.sh"))
STRICT_BOT = (
    f"{shlex.quote(sys.executable)} {shlex.quote(str(ROOT / 'tests' / 'bots' / 'strict.py'))}"
)
HAVE_NODE = shutil.which("node") is not None
