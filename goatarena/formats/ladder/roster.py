"""Who plays in a ladder: versions of bots, retired ones, suspension by error rate.

A bot's later versions are named ``name@2``, ``name@3``, ...: each is its own entry in
the standings, and a new version retires the one before (``goatarena ladder update``).
A version whose last ``suspend_games`` games hold more than ``suspend_share`` of games
with a violation is suspended until a new version replaces it.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Mapping, Sequence

from goatarena.formats.config import TournamentConfig

SUSPENDED = "suspended: "
"""How the reason of a suspension begins (it is stored with the bots put out)."""
_VERSION = re.compile(r"^(.*)@([0-9]+)$")


def base_name(name: str) -> str:
    """The bot a version belongs to (``greedy@3`` -> ``greedy``)."""
    found = _VERSION.match(name)
    return found.group(1) if found else name


def version_number(name: str) -> int:
    """The version of a bot's entry (``greedy`` is 1, ``greedy@3`` is 3)."""
    found = _VERSION.match(name)
    return int(found.group(2)) if found else 1


def latest_version(bots: Sequence[str], base: str) -> str | None:
    """The newest version of bot ``base`` among ``bots``, or None."""
    versions = [name for name in bots if base_name(name) == base]
    return max(versions, key=version_number) if versions else None


def next_version(bots: Sequence[str], base: str) -> str:
    """The name of bot ``base``'s next version."""
    latest = latest_version(bots, base)
    return base if latest is None else f"{base}@{version_number(latest) + 1}"


def active_bots(config: TournamentConfig, put_out: Mapping[str, str]) -> list[str]:
    """The ladder's bots that may play: not retired, not suspended or disqualified."""
    retired = set(config.ladder.retired)
    return [name for name in config.bots if name not in retired and name not in put_out]


class ErrorWatch:
    """Each version's last games: whether each held a violation of that version."""

    def __init__(self, *, games: int, share: float) -> None:
        self.games = games
        self.share = share
        self._recent: dict[str, deque[bool]] = {}

    def add(self, name: str, violated: bool) -> str | None:
        """Count one game of ``name``; the reason to suspend it now, or None."""
        recent = self._recent.setdefault(name, deque(maxlen=self.games))
        recent.append(violated)
        bad = sum(recent)
        if len(recent) >= min(self.games, 10) and bad > self.share * self.games:
            return (
                f"{SUSPENDED}{bad} of its last {len(recent)} games had a violation"
                f" (more than {self.share:.0%} of {self.games}); a new version replaces it"
            )
        return None
