"""What a viewer may see and do in a competition: the one place that decides it.

Every route of a competition's site is named in :data:`RULES` with the rule that admits
a viewer to it; a route without one cannot be served (:func:`rule_for` refuses it when
the site is made). The rules:

- ``anyone``: the sign-in page and its forms (signing in, out, registering);
- ``entrant``: anyone signed in, about their own things (their list, their uploads);
- ``submission owner``: the submission's entrant, or the organiser;
- ``seat owner``: the entrant whose version sat in that seat of that game, or the
  organiser;
- ``organiser``: the organiser alone: their page, suspending, retiring, closing uploads.

An entrant sees their own submissions, build logs and validation results, and their own
bot's stderr; never another entrant's. The organiser sees everything. Nobody signed in
is asked to sign in (:attr:`Refusal.SIGN_IN`), whatever they ask for, so that answer
says nothing of what exists. Whatever a signed-in viewer may not see is answered exactly
as what does not exist (:attr:`Refusal.NOT_FOUND`: ``None`` from the functions here),
so numbers and names cannot be probed for; so is every organiser's route to anyone but
the organiser.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path

from goatarena.formats.tournament_file import bot_name_problem
from goatarena.store.competition import CompetitionStore, Entrant, Submission, Version

BOT_LOG_CAP = 256 << 10
"""How much of a bot's stderr in one game is shown: its end."""
BOT_LOG_READ = 64 << 20
"""The most of each of a bot's log files read to find one game's part (logs are capped
smaller)."""
MARKER = "[goatarena: "
"""How the line before each game's part of a bot's log begins."""
MAX_NUMBER_DIGITS = 12
MAX_SEAT_DIGITS = 3


class Rule(enum.StrEnum):
    """Who a route admits."""

    ANYONE = "anyone"
    ENTRANT = "entrant"
    SUBMISSION_OWNER = "submission owner"
    SEAT_OWNER = "seat owner"
    ORGANISER = "organiser"


RULES: dict[str, Rule] = {
    # The API: a bearer token signs in.
    "POST /api/submissions": Rule.ENTRANT,
    "GET /api/submissions": Rule.ENTRANT,
    "GET /api/submissions/{number}": Rule.SUBMISSION_OWNER,
    "GET /api/submissions/{number}/log": Rule.SUBMISSION_OWNER,
    "GET /api/games/{number}/logs/{seat}": Rule.SEAT_OWNER,
    "GET /api/me": Rule.ENTRANT,
    "POST /api/entrants/{name}/suspend": Rule.ORGANISER,
    "POST /api/entrants/{name}/reinstate": Rule.ORGANISER,
    "POST /api/versions/{name}/retire": Rule.ORGANISER,
    # The pages: a session cookie signs in; every form carries the session's CSRF token.
    "GET /competition": Rule.ANYONE,
    "POST /competition/sign-in": Rule.ANYONE,
    "POST /competition/sign-out": Rule.ANYONE,
    "POST /competition/register": Rule.ANYONE,
    "POST /competition/upload": Rule.ENTRANT,
    "GET /competition/submissions/{number}/log": Rule.SUBMISSION_OWNER,
    "GET /competition/games/{number}/logs/{seat}": Rule.SEAT_OWNER,
    "GET /competition/organiser": Rule.ORGANISER,
    "POST /competition/organiser/entrants/{name}/suspend": Rule.ORGANISER,
    "POST /competition/organiser/entrants/{name}/reinstate": Rule.ORGANISER,
    "POST /competition/organiser/versions/{name}/retire": Rule.ORGANISER,
    "POST /competition/organiser/versions/{name}/reinstate": Rule.ORGANISER,
    "POST /competition/organiser/uploads/close": Rule.ORGANISER,
    "POST /competition/organiser/uploads/open": Rule.ORGANISER,
}
"""Every route of a competition's site (``METHOD PATH``, as the site declares it) and
the rule that admits a viewer to it."""


class Undecided(LookupError):
    """A route that :data:`RULES` does not name: a programming error, refused at once."""


class Refusal(enum.Enum):
    """Why a viewer is refused: the site answers each the same way wherever it arises."""

    SIGN_IN = "sign in first"
    NOT_FOUND = "not found"


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


def rule_for(method: str, path: str) -> Rule:
    """The rule of the route ``method path``; :class:`Undecided` when there is none."""
    try:
        return RULES[f"{method} {path}"]
    except KeyError:
        raise Undecided(f"{method} {path}: no rule in goatarena.competition.access") from None


def admits(rule: Rule, viewer: Viewer) -> Refusal | None:
    """Whether a route of ``rule`` lets ``viewer`` in at all (None) or why not. The
    owner's rules ask again about the thing itself: :func:`submission_for`,
    :func:`bot_log_for`."""
    if rule is Rule.ANYONE:
        return None
    if rule is Rule.ORGANISER:
        return None if viewer.is_organiser else Refusal.NOT_FOUND
    return Refusal.SIGN_IN if viewer.entrant is None else None


def session_viewer(entrant: Entrant | None) -> Viewer:
    """Who a live session signs in: nobody once its entrant is suspended (or gone)."""
    if entrant is None or entrant.suspended is not None:
        return NOBODY
    return Viewer(entrant)


def number_in(text: str, digits: int = MAX_NUMBER_DIGITS) -> int | None:
    """The number a path gives, or None: what cannot be a number is a missing thing."""
    if not text.isascii() or not text.isdigit() or len(text) > digits:
        return None
    return int(text)


def submission_for(store: CompetitionStore, viewer: Viewer, number: str) -> Submission | None:
    """Submission ``number`` (as the path gives it) if the viewer may see it; None when
    it does not exist or is another's (the same answer)."""
    found = number_in(number)
    submission = None if found is None else store.submission(found)
    if submission is None or not viewer.owns(submission.entrant):
        return None
    return submission


def submissions_for(store: CompetitionStore, viewer: Viewer) -> list[Submission]:
    """The viewer's own submissions, newest first (none for nobody)."""
    if viewer.entrant is None:
        return []
    return store.submissions_of(viewer.entrant.id)


def versions_for(store: CompetitionStore, viewer: Viewer) -> list[Version]:
    """The viewer's own versions (none for nobody)."""
    if viewer.entrant is None:
        return []
    return store.versions_of(viewer.entrant.id)


def may_see_bot(store: CompetitionStore, viewer: Viewer, bot: str) -> bool:
    """Whether the viewer may read the stderr of ``bot`` (a ladder entry, ``NAME@k``):
    its entrant's own versions, or any bot for the organiser."""
    if viewer.is_organiser:
        return True
    if viewer.entrant is None:
        return False
    version = store.version(bot)
    return version is not None and version.entrant == viewer.entrant.id


def entrant_for(store: CompetitionStore, viewer: Viewer, name: str) -> Entrant | None:
    """Entrant ``name`` for the organiser to suspend or reinstate; None for anyone else,
    as for a name no entrant has."""
    return store.entrant_named(name) if viewer.is_organiser else None


def version_for(store: CompetitionStore, viewer: Viewer, name: str) -> Version | None:
    """Version ``name`` for the organiser to retire or reinstate; None for anyone else,
    as for a bot no entrant submitted (the organiser's own bots are theirs to edit in
    the file)."""
    return store.version(name) if viewer.is_organiser else None


def bot_log_for(
    store: CompetitionStore,
    viewer: Viewer,
    game: tuple[str, list[str]],
    seat: str,
    logs: Path,
) -> str | None:
    """What the bot in ``seat`` (as the path gives it) of ``game`` (its key and players)
    wrote to stderr in that game, if the viewer may read it; None when the seat or the
    right to it is missing."""
    key, players = game
    number = number_in(seat, MAX_SEAT_DIGITS)
    if number is None or number >= len(players):
        return None
    bot = players[number]
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
