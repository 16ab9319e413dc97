"""Entrants: adding them, signing them in by token, and what they may still submit."""

from __future__ import annotations

import datetime
import time
from collections.abc import Iterable

from goatarena.competition.tokens import hash_token, new_token, token_entrant, token_matches
from goatarena.errors import ConfigError
from goatarena.formats.competition import CompetitionSettings
from goatarena.formats.ladder.roster import base_name
from goatarena.formats.tournament_file import BOT_NAME, MAX_BOT_NAME_CHARS
from goatarena.store.competition import CompetitionStore, Entrant

DAY_S = 86_400.0


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name an entrant (it names their bot's versions), or None."""
    if BOT_NAME.fullmatch(name) and "@" not in name:
        return None
    return (
        f"an entrant's name is at most {MAX_BOT_NAME_CHARS} ASCII letters (a-z, A-Z), digits,"
        " '-', '_' and '.', starting with a letter or digit"
    )


def add_entrant(
    store: CompetitionStore,
    name: str,
    *,
    organiser: bool = False,
    reserved: Iterable[str] = (),
) -> str:
    """Add entrant ``name`` and return their token (shown once: only its hash is kept).
    ``reserved`` are the organiser's bots: an entrant named as one would number their
    versions after it (and retire it)."""
    problem = name_problem(name)
    if problem is not None:
        raise ConfigError(f"{name!r}: {problem}")
    if name.lower() in {base_name(bot).lower() for bot in reserved}:
        raise ConfigError(f"{name!r} is the name of one of the organiser's bots: choose another")
    tokens: dict[int, str] = {}

    def hashed(number: int) -> str:  # the number is known inside the store's transaction
        tokens[number] = new_token(number)
        return hash_token(tokens[number])

    number = store.add_entrant(name, hashed, organiser=organiser)
    return tokens[number]


def sign_in(store: CompetitionStore, token: str) -> Entrant | None:
    """The entrant whose token this is, or None. A token naming no entrant is refused
    after as much work as a wrong one."""
    number = token_entrant(token)
    entrant = None if number is None else store.entrant(number)
    if not token_matches(token, None if entrant is None else entrant.token_hash):
        return None
    return entrant


def upload_refusal(
    store: CompetitionStore,
    settings: CompetitionSettings,
    entrant: Entrant,
    language: str,
    now: float | None = None,
) -> str | None:
    """Why ``entrant`` may not submit now (in one line), or None."""
    now = time.time() if now is None else now
    if entrant.suspended is not None:
        return f"{entrant.name} is suspended: {entrant.suspended}"
    if settings.closed(datetime.datetime.fromtimestamp(now, datetime.UTC)):
        return "uploads are closed"
    if store.uploads_closed() is not None:
        return f"uploads are closed: {store.uploads_closed()}"
    if language not in settings.languages:
        return f"language {language!r} is not taken here (taken: {', '.join(settings.languages)})"
    made = store.submitted_since(entrant.id, now - DAY_S)
    if made >= settings.per_day:
        return f"{entrant.name} has made {made} submissions in 24 hours, the most allowed"
    return None
