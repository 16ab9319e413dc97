"""A uid of its own for every bot process of a root runner.

The kernel counts some limits per user, machine-wide: pending signals (every POSIX timer
takes one), POSIX message queue bytes, epoll watches, and processes where there is a limit
(``RLIMIT_NPROC``). Bots sharing one uid share those counts, so one bot could use them up
for all: a bot that made POSIX timers until refused (96,363 of them) left every other bot
of its uid unable to make a single one, such as one that stops its search at its deadline.
So each bot process runs as a uid of its own, in group :data:`BOT_GID`, claimed from
:data:`UID_BASE` on for as long as the process lives.

A claim is a lock (``flock``) on a file named after the uid in :data:`CLAIMS`, a folder
of root's, held by the referee: every referee on the machine, whatever the run, skips
the uids others hold, and the lock goes with the referee however it ends.
"""

from __future__ import annotations

import errno
import fcntl
import itertools
import os
from pathlib import Path

UID_BASE = 2_000_000_000
"""The first uid given to bots: far above any user a machine has (``useradd`` stops at
60000, systemd's dynamic users at 65519, container ranges from 100000 on)."""
UID_COUNT = 65536
"""How many uids from :data:`UID_BASE` bots may be given: bot processes alive at once
on the machine."""
BOT_GID = 65534
"""The group of every bot (``nogroup``): files it may read or write by their group bits
are the same for all bots, and nothing of root's is in it."""
CLAIMS = Path("/run/goatarena-uids")
_next = itertools.count(os.getpid() * 7919)
"""Where this process starts looking: referees started together look in different
places, so that claiming takes one lock, not hundreds."""


class BotUid:
    """A uid claimed for one bot process: free it with :meth:`release`."""

    def __init__(self, uid: int, claim: int) -> None:
        self.uid = uid
        self._claim = claim

    @property
    def released(self) -> bool:
        """Whether the uid has been given back."""
        return self._claim < 0

    def release(self) -> None:
        """Give the uid back (once no process of it is left)."""
        if self._claim >= 0:
            os.close(self._claim)  # closing the last descriptor drops the lock
            self._claim = -1


def claim_uid() -> BotUid:
    """A uid from :data:`UID_BASE` that no other bot process holds; OSError if every one
    is taken or the claims cannot be kept."""
    CLAIMS.mkdir(mode=0o700, exist_ok=True)
    for _ in range(UID_COUNT):
        uid = UID_BASE + next(_next) % UID_COUNT
        claim = os.open(CLAIMS / str(uid), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(claim, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(claim)
            continue
        except BaseException:
            os.close(claim)
            raise
        return BotUid(uid, claim)
    raise OSError(errno.EAGAIN, f"all {UID_COUNT} uids for bots are taken")


def uid_range() -> str:
    """The uids bots may be given, for ``goatarena doctor``."""
    return f"{UID_BASE}-{UID_BASE + UID_COUNT - 1}"
