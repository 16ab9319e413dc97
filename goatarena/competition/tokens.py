"""Entrants' tokens: made at random, kept only as argon2 hashes, checked in constant time.

A token reads ``<entrant number>.<secret>``: the number finds the one hash to check, so a
check costs one hash whatever the number of entrants. The secret holds 256 random bits,
which no guessing reaches; argon2 still keeps a stolen database from giving tokens back.
Its cost is set low (a token is no password a person chose) so that signing in stays
cheap beside the games; a server also remembers the tokens it has checked
(:class:`CheckedTokens`), so that an entrant following a submission once a second costs
one hash, not one a request.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections import OrderedDict

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

_HASHER = PasswordHasher(time_cost=1, memory_cost=8 * 1024, parallelism=1)
_DUMMY_HASH = _HASHER.hash("not a token")
"""Checked when a token names no entrant, so that such a token takes as long to refuse."""
MAX_TOKEN_CHARS = 100


def new_token(entrant: int) -> str:
    """A fresh token for entrant number ``entrant``."""
    return f"{entrant}.{secrets.token_urlsafe(32)}"


def hash_token(token: str) -> str:
    """The argon2 hash kept for ``token``."""
    return _HASHER.hash(token)


def token_entrant(token: str) -> int | None:
    """The entrant number a token names, or None when it is not shaped as a token."""
    if len(token) > MAX_TOKEN_CHARS:
        return None
    number, dot, secret = token.partition(".")
    if not dot or not number.isascii() or not number.isdigit() or len(number) > 9 or not secret:
        return None
    return int(number)


def token_matches(token: str, token_hash: str | None) -> bool:
    """Whether ``token`` is the one ``token_hash`` was made from (None: no entrant, refused
    after the same work). argon2 compares the hashes in constant time."""
    try:
        return _HASHER.verify(token_hash or _DUMMY_HASH, token) and token_hash is not None
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def same_text(a: str, b: str) -> bool:
    """Whether two secrets (a CSRF token, say) are equal, compared in constant time."""
    return hmac.compare_digest(a.encode(), b.encode())


class CheckedTokens:
    """The tokens a server has found right, remembered by a keyed digest (never the token
    itself) with the hash each matched: a token is taken again without argon2 while its
    entrant's hash is the same one. A wrong token is never remembered, so each guess
    still costs a hash. The least recently used are forgotten beyond ``size``."""

    def __init__(self, size: int = 4096) -> None:
        self._key = secrets.token_bytes(32)
        self._size = size
        self._matched: OrderedDict[bytes, str] = OrderedDict()

    def _digest(self, token: str) -> bytes:
        return hmac.new(self._key, token.encode(), hashlib.sha256).digest()

    def recalls(self, token: str, token_hash: str | None) -> bool:
        """Whether ``token`` was found to match ``token_hash`` before."""
        if token_hash is None:
            return False
        digest = self._digest(token)
        matched = self._matched.get(digest)
        if matched is None or not same_text(matched, token_hash):
            return False
        self._matched.move_to_end(digest)
        return True

    def remember(self, token: str, token_hash: str) -> None:
        """Note that ``token`` matched ``token_hash``."""
        digest = self._digest(token)
        self._matched[digest] = token_hash
        self._matched.move_to_end(digest)
        while len(self._matched) > self._size:
            self._matched.popitem(last=False)
