"""The ``goatarena`` command's entry point (and ``python -m goatarena``'s).

Loading the command line takes a moment; a Ctrl-C in that moment is one line and exit
status 130, as it is once a command runs (see :mod:`goatarena.interrupt`), not a
traceback from the middle of an import. Help and version text that cannot be written
ends as a command's output does.
"""

from __future__ import annotations

import sys


def main() -> None:
    """Load the command line and run it."""
    try:
        from goatarena.cli import main as command_line
        from goatarena.cli._common import stop_for_output
    except KeyboardInterrupt:
        sys.stderr.write("goatarena: interrupted\n")
        raise SystemExit(130) from None
    try:
        command_line()
    except OSError as error:  # --help or --version, printed before any command runs
        stop_for_output(error)
        raise
