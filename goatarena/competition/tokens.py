"""Entrants' tokens: made at random, kept only as argon2 hashes, checked in constant time.

A token reads ``<entrant number>.<secret>``: the number finds the one hash to check, so a
check costs one hash whatever the number of entrants. The secret holds 256 random bits,
which no guessing reaches; argon2 still keeps a stolen database from giving tokens back.
Its cost is set low (a token is no password a person chose) so that signing in stays
cheap beside the games.
"""

from __future__ import annotations

import hmac
import secrets

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
