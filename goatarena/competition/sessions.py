"""Signed-in sessions on the site: a random session number in a cookie, its CSRF token.

A session lives in the server's memory only (a restart signs everyone out, who sign in
again with their token); it lasts ``lifetime_s`` and at most ``kept`` are held, the
oldest dropped first. Each has a CSRF token of its own, which every form that changes
something carries and which is compared in constant time.
"""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass

from goatarena.competition.tokens import same_text


@dataclass(frozen=True)
class Session:
    """A signed-in entrant's session: who, its CSRF token, when it ends."""

    entrant: int
    csrf: str
    ends: float


class Sessions:
    """The sessions of one server."""

    def __init__(self, *, lifetime_s: float = 12 * 3600, kept: int = 10_000) -> None:
        self.lifetime_s = lifetime_s
        self.kept = kept
        self._sessions: OrderedDict[str, Session] = OrderedDict()

    def open(self, entrant: int) -> tuple[str, Session]:
        """A new session for ``entrant``: its number (the cookie) and itself."""
        number = secrets.token_urlsafe(32)
        session = Session(entrant, secrets.token_urlsafe(32), time.monotonic() + self.lifetime_s)
        self._sessions[number] = session
        while len(self._sessions) > self.kept:
            self._sessions.popitem(last=False)
        return number, session

    def find(self, number: str) -> Session | None:
        """The live session of that number, or None."""
        session = self._sessions.get(number) if len(number) < 100 else None
        if session is None:
            return None
        if session.ends < time.monotonic():
            del self._sessions[number]
            return None
        return session

    def close(self, number: str) -> None:
        """End a session (signing out)."""
        self._sessions.pop(number, None)

    def close_all_of(self, entrant: int) -> None:
        """End every session of ``entrant`` (suspended, or their token replaced)."""
        for number in [
            key for key, session in self._sessions.items() if session.entrant == entrant
        ]:
            del self._sessions[number]


def csrf_matches(expected: str, given: str) -> bool:
    """Whether a form's CSRF token is the expected one (constant time; empty never is)."""
    return bool(expected) and same_text(expected, given)
