"""The ``goatarena`` command's entry point (and ``python -m goatarena``'s).

Loading the command line takes a moment; a Ctrl-C in that moment is one line and exit
status 130 (a SIGTERM one line and 143), as it is once a command runs (see
:mod:`goatarena.interrupt`), not a traceback from the middle of an import or a silent
end. Help and version text that cannot be written ends as a command's output does.
"""

from __future__ import annotations

import signal
import sys


class _TerminatedWhileLoading(Exception):
    """SIGTERM arrived while the command line was still loading."""


def _terminated(signum: int, frame: object) -> None:
    raise _TerminatedWhileLoading


def main() -> None:
    """Load the command line and run it."""
    # SIGTERM would otherwise end the process without a word until a command runs.
    signal.signal(signal.SIGTERM, _terminated)
    try:
        from goatarena.cli import load_command
        from goatarena.cli import main as command_line
        from goatarena.cli._common import stop_for_output

        words = [word for word in sys.argv[1:] if not word.startswith("-")]
        if words:
            load_command(words[0])  # the command's own module, loaded under this guard
    except KeyboardInterrupt:
        sys.stderr.write("goatarena: interrupted\n")
        raise SystemExit(130) from None
    except _TerminatedWhileLoading:
        sys.stderr.write("goatarena: terminated\n")
        raise SystemExit(143) from None
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        command_line()
    except OSError as error:  # --help or --version, printed before any command runs
        stop_for_output(error)
        raise
