"""What a viewer may see of a competition: the one place that decides it.

An entrant sees their own submissions, build logs and validation results, and their own
bot's stderr; never another entrant's. The organiser sees everything. Anyone else sees
nothing of these. Whatever a viewer may not see is answered exactly as what does not
exist (``None`` here, 404 on the site), so numbers cannot be probed for.

Signing in is guarded here too: a client address that gives wrong tokens is refused for a
while (:class:`SignInGuard`), and an entrant uploads one archive at a time
(:class:`UploadGate`).
"""

from __future__ import annotations

import ipaddress
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from goatarena.competition.entrants import sign_in
from goatarena.competition.tokens import token_entrant
from goatarena.formats.tournament_file import bot_name_problem
from goatarena.store.competition import CompetitionStore, Entrant, Submission

BOT_LOG_CAP = 256 << 10
"""How much of a bot's stderr in one game is shown: its end."""
BOT_LOG_READ = 64 << 20
"""The most of each of a bot's log files read to find one game's part (logs are capped
smaller)."""
MARKER = "[goatarena: "
"""How the line before each game's part of a bot's log begins."""


@dataclass(frozen=True)
class Viewer:
    """Who asks: an entrant, the organiser, or nobody signed in (``entrant`` None)."""

    entrant: Entrant | None

    @property
    def is_organiser(self) -> bool:
        """Whether the viewer sees everything."""
        return self.entrant is not None and self.entrant.organiser

    def owns(self, entrant_number: int) -> bool:
        """Whether the viewer is that entrant, or the organiser."""
        if self.entrant is None:
            return False
        return self.is_organiser or self.entrant.id == entrant_number


NOBODY = Viewer(None)


def submission_for(store: CompetitionStore, viewer: Viewer, number: int) -> Submission | None:
    """Submission ``number`` if the viewer may see it; None when it does not exist or is
    another's (the same answer)."""
    submission = store.submission(number)
    if submission is None or not viewer.owns(submission.entrant):
        return None
    return submission


def submissions_for(store: CompetitionStore, viewer: Viewer) -> list[Submission]:
    """The viewer's own submissions, newest first (none for nobody)."""
    if viewer.entrant is None:
        return []
    return store.submissions_of(viewer.entrant.id)


def may_see_bot(store: CompetitionStore, viewer: Viewer, bot: str) -> bool:
    """Whether the viewer may read the stderr of ``bot`` (a ladder entry, ``NAME@k``):
    its entrant's own versions, or any bot for the organiser."""
    if viewer.is_organiser:
        return True
    if viewer.entrant is None:
        return False
    version = store.version(bot)
    if version is not None:
        return version.entrant == viewer.entrant.id
    return False


def bot_log_for(
    store: CompetitionStore,
    viewer: Viewer,
    game: tuple[str, list[str]],
    seat: int,
    logs: Path,
) -> str | None:
    """What the bot in ``seat`` of ``game`` (its key and players) wrote to stderr in that
    game, if the viewer may read it; None when the seat or the right to it is missing."""
    key, players = game
    if not 0 <= seat < len(players):
        return None
    bot = players[seat]
    if not may_see_bot(store, viewer, bot) or bot_name_problem(bot) is not None:
        return None  # a name that could not be a log's file name is no bot's
    # A competition's log rotates (:mod:`goatarena.referee.stderr_log`): the older file
    # holds the games before the current one's.
    text = _read_log(logs / f"{bot}.log.1") + _read_log(logs / f"{bot}.log")
    return game_part(text, key)[-BOT_LOG_CAP:]


def _read_log(path: Path) -> str:
    try:
        with open(path, "rb") as log:
            return log.read(BOT_LOG_READ).decode("utf-8", errors="replace")
    except OSError:
        return ""


def game_part(log: str, key: str) -> str:
    """The lines of a bot's log (:mod:`goatarena.referee.stderr_log`) written during the
    game ``key``: each process's output follows a marker naming its game."""
    kept, keeping = [], False
    for line in log.splitlines(keepends=True):
        if line.startswith(MARKER):
            keeping = line.startswith(f"{MARKER}game {key}, ")
        if keeping:
            kept.append(line)
    return "".join(kept)


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

    def sign_in(self, store: CompetitionStore, client: str, token: str) -> Viewer | None:
        """The viewer a token signs in, :data:`NOBODY` without one, None when refused
        (a wrong token, or a paused client)."""
        if not token:
            return NOBODY
        if self.is_paused(client):
            return None
        return self.verdict(client, sign_in(store, token))

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
