"""Ctrl-C and SIGTERM: stop cleanly, with every bot process gone, and say so in one line.

:func:`run_trio` runs async work under trio with SIGINT and SIGTERM turned into a
cancellation of that work: every bot is stopped and reaped as on any cancellation (its
cleanup is shielded), further signals are absorbed meanwhile, and then
:class:`Interrupted` is raised. :func:`handling_signals` covers the rest of a command:
a SIGTERM anywhere else is delivered as a Ctrl-C (to trio's own handler while trio
runs), and both end in :class:`Interrupted`. The exit status is 128 plus the signal's
number (130 for SIGINT, 143 for SIGTERM), as a shell reports a process the signal killed.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, TypeVar

import trio

T = TypeVar("T")

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(BaseException):
    """Raised when SIGINT or SIGTERM stopped a command (a BaseException, like
    KeyboardInterrupt, so that no ``except Exception`` swallows it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_status(self) -> int:
        """128 plus the signal number: 130 for SIGINT, 143 for SIGTERM."""
        return 128 + self.signum

    @property
    def verb(self) -> str:
        """``interrupted`` (SIGINT) or ``terminated`` (SIGTERM)."""
        return "terminated" if self.signum == signal.SIGTERM else "interrupted"


def run_trio(async_fn: Callable[..., Awaitable[T]], *args: Any) -> T:
    """``trio.run(async_fn, *args)``, cancelled by SIGINT or SIGTERM: then, once every
    task has cleaned up, :class:`Interrupted` for the first signal received."""
    if threading.current_thread() is not threading.main_thread():
        return trio.run(async_fn, *args)  # signals reach only the main thread
    received: list[int] = []

    async def main() -> T | None:
        with trio.open_signal_receiver(*SIGNALS) as signals:
            async with trio.open_nursery() as nursery:

                async def watch() -> None:
                    async for signum in signals:
                        received.append(signum)
                        nursery.cancel_scope.cancel()
                        return

                nursery.start_soon(watch)
                result = await async_fn(*args)
                nursery.cancel_scope.cancel()
                return result
        return None  # cancelled: only reached after a signal

    try:
        result = trio.run(main)
    except BaseException as error:
        if received:
            raise Interrupted(received[0]) from None
        signum = signal_in(error)
        if signum is not None:
            raise Interrupted(signum) from None
        raise
    if received:
        raise Interrupted(received[0])
    return result  # type: ignore[return-value]


_terminated: list[int] = []


def _deliver_as_interrupt(signum: int, frame: FrameType | None) -> None:
    """SIGTERM outside :func:`run_trio`: act as Ctrl-C does, through whatever handles
    SIGINT now (trio's, which raises KeyboardInterrupt only where it is safe)."""
    _terminated.append(signum)
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        handler(signal.SIGINT, frame)
    else:
        raise KeyboardInterrupt


@contextmanager
def handling_signals() -> Iterator[None]:
    """For the length of a command, SIGINT and SIGTERM end in :class:`Interrupted`."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signals reach only the main thread
        return
    previous = signal.signal(signal.SIGTERM, _deliver_as_interrupt)
    _terminated.clear()
    try:
        yield
    except BaseException as error:
        signum = signal_in(error)
        if signum is None:
            raise
        raise Interrupted(signum) from None
    finally:
        signal.signal(signal.SIGTERM, previous)


def signal_in(error: BaseException) -> int | None:
    """The signal behind ``error`` (an :class:`Interrupted` or KeyboardInterrupt, perhaps
    inside exception groups), or None if it is not one."""
    if isinstance(error, Interrupted):
        return error.signum
    if isinstance(error, KeyboardInterrupt):
        return _terminated[0] if _terminated else signal.SIGINT
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            found = signal_in(inner)
            if found is not None:
                return found
    return None
