"""The protocol's stream kept private: whatever a bot prints goes to its log, never into
an answer.

Python block-buffers ``sys.stdout`` in a pipe, so a bot's debug prints used to pile up
unseen and land inside the protocol, in the middle of a later answer, once some 8 KB had
gathered: games forfeited as malformed at random, and late. :func:`private_stdout` gives
the protocol a copy of file descriptor 1 of its own and points descriptor 1 at stderr,
so that ``print``, ``sys.stdout.buffer``, a C extension's ``printf`` and a subprocess's
output all reach the bot's log instead. Used by :func:`goatarena.sdk.run`.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from typing import BinaryIO

NOTE = (
    "[goatarena.sdk] this bot printed to stdout, which carries the protocol's answers:"
    " its prints go to this log (stderr) instead"
)
"""Written to stderr once, before the first thing the bot prints."""

_protocol: BinaryIO | None = None
"""The protocol's stream, once made (a second ``run`` in one process reuses it)."""
_kept: list[object] = []
"""The streams replaced, kept alive: the original ``sys.stdout`` closes descriptor 1 when
collected."""


class PrintsToLog(io.TextIOWrapper):
    """``sys.stdout`` while the SDK runs a bot: descriptor 1 now leads to stderr, line by
    line, and the first write says so in the log."""

    noted = False

    def write(self, text: str) -> int:
        """Write ``text`` to the log, after the one-time note if this is the first."""
        if text and not PrintsToLog.noted:
            PrintsToLog.noted = True
            try:
                sys.stderr.write(NOTE + "\n")
                sys.stderr.flush()
            except (OSError, ValueError, AttributeError):
                pass  # no stderr to note it on: the print itself still goes there
        return super().write(text)


def private_stdout() -> BinaryIO:
    """The stream the protocol's answers are written to, private to the SDK.

    Descriptor 1 is duplicated for the protocol (not inherited by subprocesses), then
    pointed at stderr, and ``sys.stdout`` replaced by a line-buffered :class:`PrintsToLog`
    on it; what the bot printed before is flushed to the log too. Where that cannot be
    done (``sys.stdout`` is not descriptor 1, as in a test that swapped it, or there is
    no stderr), the protocol is written to ``sys.stdout`` as it is.
    """
    global _protocol
    if _protocol is not None:
        return _protocol
    stdout = sys.stdout
    try:
        private = os.dup(1) if stdout.fileno() == 1 else -1
    except (OSError, ValueError, io.UnsupportedOperation):
        private = -1
    if private < 0:
        return stdout.buffer
    try:
        os.dup2(2, 1)
    except OSError:  # no stderr: prints are dropped rather than mixed into answers
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 1)
            os.close(null)
        except OSError:
            os.close(private)
            return stdout.buffer
    with contextlib.suppress(OSError, ValueError):
        stdout.flush()  # prints from before run(): to the log now
    _kept.append(stdout)
    sys.stdout = PrintsToLog(
        open(1, "wb", closefd=False),  # noqa: SIM115 - lives as long as the process
        encoding=stdout.encoding or "utf-8",
        errors=stdout.errors or "strict",
        line_buffering=True,
    )
    _protocol = open(private, "wb")  # noqa: SIM115 - the protocol's, for good
    return _protocol
