"""Signed-in sessions on the site: a random session id in a cookie, its CSRF token.

A session is kept in the competition's database (:mod:`goatarena.store.
competition_sessions`), so a restart of the server signs no one out; only the SHA-256
hash of its id is stored, so the database signs no one in. A session lasts
``lifetime_s``; signing out deletes it, and suspending an entrant deletes all of theirs.
Each has a CSRF token of its own, which every form that changes something carries and
which is compared in constant time.

The methods ask the database: the site calls them on its database's thread.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from dataclasses import dataclass

from goatarena.competition.tokens import same_text
from goatarena.store.competition import CompetitionStore
from goatarena.store.competition_sessions import StoredSession

LIFETIME_S = 12 * 3600.0
"""How long a session lasts after signing in (its cookie as long)."""
MAX_ID_CHARS = 100
"""A cookie longer than any session id is no session's (and is not hashed)."""


@dataclass(frozen=True)
class Session:
    """A signed-in entrant's session: who, its CSRF token, when it ends."""

    entrant: int
    csrf: str
    ends: float


class Sessions:
    """The sessions of one competition, in its database."""

    def __init__(
        self, store: CompetitionStore, *, lifetime_s: float = LIFETIME_S, kept_per_entrant: int = 20
    ) -> None:
        self.store = store
        self.lifetime_s = lifetime_s
        self.kept_per_entrant = kept_per_entrant

    def open(self, entrant: int) -> tuple[str, Session]:
        """A new session for ``entrant``: its id (the cookie) and itself."""
        number = secrets.token_urlsafe(32)
        now = time.time()
        session = Session(entrant, secrets.token_urlsafe(32), now + self.lifetime_s)
        stored = StoredSession(entrant=entrant, csrf=session.csrf, ends=session.ends)
        self.store.add_session(
            id_hash(number), stored, now=now, kept_per_entrant=self.kept_per_entrant
        )
        return number, session

    def find(self, number: str) -> Session | None:
        """The live session of that id, or None (an ended one is deleted)."""
        if not number or len(number) > MAX_ID_CHARS:
            return None
        hashed = id_hash(number)
        stored = self.store.session(hashed)
        if stored is None:
            return None
        if stored.ends < time.time():
            self.store.delete_session(hashed)
            return None
        return Session(stored.entrant, stored.csrf, stored.ends)

    def close(self, number: str) -> None:
        """End a session (signing out)."""
        if number and len(number) <= MAX_ID_CHARS:
            self.store.delete_session(id_hash(number))

    def close_all_of(self, entrant: int) -> None:
        """End every session of ``entrant`` (suspended)."""
        self.store.delete_sessions_of(entrant)


def id_hash(number: str) -> str:
    """What is kept of a session id: its SHA-256 (the id holds 256 random bits, so a
    fast hash leaves nothing to guess)."""
    return hashlib.sha256(number.encode()).hexdigest()


def csrf_matches(expected: str, given: str) -> bool:
    """Whether a form's CSRF token is the expected one (constant time; empty never is)."""
    return bool(expected) and same_text(expected, given)
