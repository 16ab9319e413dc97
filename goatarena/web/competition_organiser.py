"""The organiser's page of a competition: every entrant and version, suspending and
reinstating either, closing and opening uploads.

Signed in on ``/competition`` with an organiser's token (``goatarena entrant add FILE
NAME --organiser``), the organiser reaches ``/competition/organiser``; anyone else, an
entrant signed in included, gets 404 there and on every form's address (the same answer
as a page that does not exist), as :mod:`goatarena.competition.access` decides. The forms
are posted with the session's CSRF token and refused from another site's page, as the
entrants' forms are (:class:`~goatarena.web.competition_entry.Doors`).

- ``POST /competition/organiser/entrants/{name}/suspend`` (a ``reason``) and
  ``.../reinstate``;
- ``POST /competition/organiser/versions/{NAME@k}/retire`` and ``.../reinstate``: in the
  ladder's file and the competition's list;
- ``POST /competition/organiser/uploads/close`` (a ``reason``) and ``.../open``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from goatarena.competition.access import Refusal, entrant_for, version_for
from goatarena.errors import GoatArenaError
from goatarena.store.competition import CompetitionStore, Entrant, Version
from goatarena.web.competition_entry import Doors, Entry, Serving

PAGE = "/competition/organiser"
REASON_CHARS = 200


@dataclass(frozen=True)
class EntrantRow:
    """One entrant as the organiser's page lists them."""

    entrant: Entrant
    versions: list[Version]
    submissions: int
    newest: str
    """The newest submission's state and reason, or empty."""


def entrant_rows(store: CompetitionStore) -> list[EntrantRow]:
    """Every entrant with their versions and submissions (on the database's thread)."""
    rows = []
    for entrant in store.entrants():
        submitted = store.submissions_of(entrant.id)
        newest = ""
        if submitted:
            newest = f"#{submitted[0].id} {submitted[0].state}"
            if submitted[0].reason:
                newest += f": {submitted[0].reason}"
        rows.append(EntrantRow(entrant, store.versions_of(entrant.id), len(submitted), newest))
    return rows


class OrganiserPage:
    """The organiser's page and its forms."""

    def __init__(self, site: Serving, doors: Doors) -> None:
        self.site = site
        self.doors = doors

    def routes(self) -> list[Route]:
        """The page's routes, one per action (each with its rule in access)."""
        door = self.doors.route
        return [
            door("GET", PAGE, self.page),
            door("POST", PAGE + "/entrants/{name}/suspend", partial(self.entrant, suspend=True)),
            door("POST", PAGE + "/entrants/{name}/reinstate", partial(self.entrant, suspend=False)),
            door("POST", PAGE + "/versions/{name}/retire", partial(self.version, retire=True)),
            door("POST", PAGE + "/versions/{name}/reinstate", partial(self.version, retire=False)),
            door("POST", PAGE + "/uploads/close", partial(self.uploads, close=True)),
            door("POST", PAGE + "/uploads/open", partial(self.uploads, close=False)),
        ]

    async def page(self, entry: Entry, message: str = "") -> Response:
        """``GET /competition/organiser``"""
        assert entry.session is not None
        competition = self.site.competition
        await self.site.on_store(competition.reload)
        rows = await self.site.on_store(entrant_rows, competition.store)
        closed = await self.site.on_store(competition.store.uploads_closed)
        settings = competition.settings
        response = self.site.site.pages.render(
            "competition_organiser.html",
            message=message,
            csrf=entry.session.csrf,
            rows=rows,
            closed_by_organiser=closed,
            closes=settings.closes,
        )
        response.headers["Cache-Control"] = "no-store"
        return response

    async def entrant(self, entry: Entry, *, suspend: bool) -> Response | Refusal:
        """Suspend (with a reason) or reinstate an entrant: a suspended entrant uploads
        nothing and is signed out of the site."""
        assert entry.form is not None
        store = self.site.competition.store
        name = entry.request.path_params["name"]
        found = await self.site.on_store(entrant_for, store, entry.viewer, name)
        if found is None:
            return Refusal.NOT_FOUND
        reason = str(entry.form.get("reason") or "suspended by the organiser")[:REASON_CHARS]
        await self.site.on_store(store.set_suspended, found.id, reason if suspend else None)
        if suspend:
            await self.site.on_store(self.doors.sessions.close_all_of, found.id)
        return _back()

    async def version(self, entry: Entry, *, retire: bool) -> Response | Refusal:
        """Retire a version, or put a retired one back in play."""
        name = entry.request.path_params["name"]
        competition = self.site.competition
        found = await self.site.on_store(version_for, competition.store, entry.viewer, name)
        if found is None:
            return Refusal.NOT_FOUND
        try:
            if retire:
                await competition.retire(name)
            else:
                await competition.reinstate(name)
        except GoatArenaError as error:
            return await self.page(entry, message=f"{name}: {error}")
        return _back()

    async def uploads(self, entry: Entry, *, close: bool) -> Response:
        """Close uploads (with a reason shown to whoever uploads) or open them again.
        ``closes`` in the competition's file still applies besides."""
        assert entry.form is not None
        store = self.site.competition.store
        reason = str(entry.form.get("reason") or "closed by the organiser")[:REASON_CHARS]
        await self.site.on_store(store.set_uploads_closed, reason if close else None)
        return _back()


def _back() -> Response:
    """Back to the page, which shows what was done (a redirect: a reload posts nothing)."""
    return RedirectResponse(PAGE, 303)
