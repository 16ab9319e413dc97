"""Who asks, and how often: the address a request comes from, a pause for an address
that guesses tokens, and one upload at a time per entrant.

What a viewer may see once signed in is decided in :mod:`goatarena.competition.access`.
"""

from __future__ import annotations

import ipaddress
import time
from collections import OrderedDict

from goatarena.competition.access import Viewer
from goatarena.competition.tokens import token_entrant
from goatarena.store.competition import CompetitionStore, Entrant


def client_address(peer: str, forwarded_for: str | None, trusted_proxy: str | None) -> str:
    """The address a request comes from: its peer's, or, when the peer is
    ``trusted_proxy``, the client the proxy names last in ``X-Forwarded-For`` (the
    entries before it are the client's own word and could be anything). An entry that
    is no IP address is not taken."""
    if trusted_proxy is None or forwarded_for is None or not _same_address(peer, trusted_proxy):
        return peer
    named = forwarded_for.split(",")[-1].strip()
    try:
        return str(ipaddress.ip_address(named))
    except ValueError:
        return peer


def _same_address(one: str, other: str) -> bool:
    try:
        return ipaddress.ip_address(one) == ipaddress.ip_address(other)
    except ValueError:
        return False


class SignInGuard:
    """Refuses a client address for ``pause_s`` once it gave ``tries`` wrong tokens
    within ``window_s``: 256-bit tokens cannot be guessed, but each try costs a hash."""

    def __init__(
        self, *, tries: int = 10, window_s: float = 60.0, pause_s: float = 60.0, kept: int = 10_000
    ) -> None:
        self.tries = tries
        self.window_s = window_s
        self.pause_s = pause_s
        self.kept = kept
        self._failures: OrderedDict[str, list[float]] = OrderedDict()

    def is_paused(self, client: str, now: float | None = None) -> bool:
        """Whether ``client`` must wait before trying again."""
        now = time.monotonic() if now is None else now
        recent = [at for at in self._failures.get(client, []) if now - at < self.pause_s]
        return len(recent) >= self.tries

    def failed(self, client: str, now: float | None = None) -> None:
        """Note a wrong token from ``client``."""
        now = time.monotonic() if now is None else now
        failures = [at for at in self._failures.pop(client, []) if now - at < self.window_s]
        self._failures[client] = [*failures, now][-self.tries :]
        while len(self._failures) > self.kept:  # a flood of addresses cannot fill memory
            self._failures.popitem(last=False)

    def verdict(self, client: str, entrant: Entrant | None) -> Viewer | None:
        """The viewer a checked token signs in (``entrant``: whose it proved to be, None
        when it was wrong, which counts against ``client``). A server checks the token's
        hash (:func:`token_owner`, then
        :func:`~goatarena.competition.tokens.token_matches`) away from its database's
        lock, then asks here."""
        if entrant is None:
            self.failed(client)
            return None
        return Viewer(entrant)


def token_owner(store: CompetitionStore, token: str) -> Entrant | None:
    """The entrant whose number ``token`` bears, not yet checked against their hash."""
    number = token_entrant(token)
    return None if number is None else store.entrant(number)


class UploadGate:
    """One upload at a time per entrant, and at most ``total`` at once."""

    def __init__(self, total: int = 4) -> None:
        self.total = total
        self._busy: set[int] = set()

    def enter(self, entrant: int) -> str | None:
        """Take a place for an upload of ``entrant``; why not, in one line, or None."""
        if entrant in self._busy:
            return "an upload of yours is still arriving: one at a time"
        if len(self._busy) >= self.total:
            return "the server is taking other uploads: try again in a minute"
        self._busy.add(entrant)
        return None

    def leave(self, entrant: int) -> None:
        """Give the place back."""
        self._busy.discard(entrant)
