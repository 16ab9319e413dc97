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


_received: list[int] = []
"""The signals received while loading: a signal whose exception was swallowed still ends
the command (see :func:`_note_signal`)."""


def _note_signal(signum: int, frame: object) -> None:
    """Note the signal, then raise for it. The note is what counts: a signal that arrives
    while Python runs a weak reference's callback (an import's module lock has one) has
    its exception swallowed there, and the command went on as if no Ctrl-C had come."""
    _received.append(signum)
    raise KeyboardInterrupt if signum == signal.SIGINT else _TerminatedWhileLoading


def _quiet_unraisable(unraisable: sys.UnraisableHookArgs) -> None:
    """The swallowed exception of a noted signal is not printed (it is acted on)."""
    if not isinstance(unraisable.exc_value, (KeyboardInterrupt, _TerminatedWhileLoading)):
        sys.__unraisablehook__(unraisable)


def main() -> None:
    """Load the command line and run it."""
    # SIGTERM would otherwise end the process without a word until a command runs.
    signal.signal(signal.SIGTERM, _note_signal)
    signal.signal(signal.SIGINT, _note_signal)
    sys.unraisablehook = _quiet_unraisable
    try:
        from goatarena.cli import load_command
        from goatarena.cli import main as command_line
        from goatarena.cli._common import stop_for_output

        words = [word for word in sys.argv[1:] if not word.startswith("-")]
        if words:
            load_command(words[0])  # the command's own module, loaded under this guard
        if _received:  # an exception swallowed on the way: the signal came all the same
            raise KeyboardInterrupt if _received[0] == signal.SIGINT else _TerminatedWhileLoading
    except KeyboardInterrupt:
        sys.stderr.write("goatarena: interrupted\n")
        raise SystemExit(130) from None
    except _TerminatedWhileLoading:
        sys.stderr.write("goatarena: terminated\n")
        raise SystemExit(143) from None
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        sys.unraisablehook = sys.__unraisablehook__
    try:
        command_line()
    except OSError as error:  # --help or --version, printed before any command runs
        stop_for_output(error)
        raise
