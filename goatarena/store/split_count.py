"""Counting the games of a large store in two processes.

The standings of a million stored games spend more than half their time decoding the
games' summaries and counting them into a tally, game by game in Python: the work of one
core. :func:`count_split` gives the later half of the games to a second process
(:mod:`goatarena.store.count_half`), which counts them into a tally of its own and sends
it back, pickled, while this one counts the first half; the first tally then absorbs the
second (:meth:`~goatarena.ratings.standings.StandingsTally.absorb`), which gives the same
counts, and so the same standings, as one reader.

The second process is a new interpreter (``python -m``), not a fork (the caller may have
threads) nor a multiprocessing spawn (which would run the caller's main script again), in
a session of its own (Ctrl-C reaches this process, which ends it). One that fails for any
reason (killed, out of memory, no interpreter) leaves its half to this one; a damaged
summary in its half is the same :class:`~goatarena.errors.StoreError` as read here.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import pickle
import subprocess
import sys
from collections.abc import Callable

from goatarena.errors import StoreError
from goatarena.ratings._threads import usable_cpus
from goatarena.ratings.standings import StandingsTally
from goatarena.store.database import Store
from goatarena.store.summary import GameSummary

SPLIT_FROM = 200_000
"""Stored games from which two processes count them (the second one's start, about half
a second, pays for itself from about a hundred thousand)."""

Count = Callable[[StandingsTally, GameSummary], None]
"""How one game's summary is counted into a tally (:func:`~.standings.count_summary`)."""


def count_split(
    store: Store, tally: StandingsTally, count: Count, *, game: str | None = None
) -> None:
    """Count every stored game (of ``game``) into ``tally`` with ``count``: the later half
    in a second process when they are :data:`SPLIT_FROM` or more and this process may
    use a second CPU, else all here (the store must keep summaries)."""
    games, middle = store.halfway(game=game)
    helper = None
    if games >= SPLIT_FROM and usable_cpus() > 1:
        helper = _start_helper(store, game, middle)
    try:
        for summary in store.summaries(game=game, upto=middle):
            count(tally, summary)
        outcome = _outcome(helper)
    finally:
        if helper is not None:
            helper.kill()  # done by now, or this process was interrupted
            helper.wait()
            if helper.stdout is not None:
                helper.stdout.close()
    if isinstance(outcome, StandingsTally):
        tally.absorb(outcome)
        del outcome
        _give_back_freed_memory()
        return
    if isinstance(outcome, StoreError):
        raise outcome
    for summary in store.summaries(game=game, after=middle):
        count(tally, summary)


def _give_back_freed_memory() -> None:
    """Return the heap freed by the absorbed tally to the system. glibc keeps freed
    blocks for reuse, and the fits that follow stacked their peak on top of them: the
    standings of a million games peaked at 1.15 GB instead of 0.93 GB."""
    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to do
        ctypes.CDLL("libc.so.6").malloc_trim(0)


def _start_helper(store: Store, game: str | None, middle: int) -> subprocess.Popen[bytes] | None:
    command = [sys.executable, "-m", "goatarena.store.count_half", os.fsdecode(store.path),
               str(middle), *([] if game is None else [game])]  # fmt: skip
    try:
        return subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
    except OSError:  # no interpreter to start: one process counts all
        return None


def _outcome(helper: subprocess.Popen[bytes] | None) -> StandingsTally | StoreError | None:
    """What the second process counted, the damage it found, or None if it failed."""
    if helper is None or helper.stdout is None:
        return None
    try:
        outcome = pickle.load(helper.stdout)  # streamed: no second copy of it all
    except (EOFError, OSError, pickle.UnpicklingError, AttributeError, ImportError):
        return None
    if isinstance(outcome, tuple) and outcome[:1] == ("damaged",):
        return StoreError(str(outcome[1]))
    return outcome if isinstance(outcome, StandingsTally) else None
