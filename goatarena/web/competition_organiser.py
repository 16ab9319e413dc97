"""The organiser's page of a competition: every entrant and version, suspending and
reinstating either, closing and opening uploads.

Signed in on ``/competition`` with an organiser's token (``goatarena entrant add FILE
NAME --organiser``), the organiser reaches ``/competition/organiser``; anyone else, an
entrant signed in included, gets 404 there and on every form's address (the same answer
as a page that does not exist). The forms are posted with the session's CSRF token and
refused from another site's page, as the entrants' forms are
(:class:`~goatarena.web.competition_pages.CompetitionPages`).

- ``POST /competition/organiser/entrants/{name}/suspend`` (a ``reason``) and
  ``.../reinstate``;
- ``POST /competition/organiser/versions/{NAME@k}/retire`` and ``.../reinstate``: in the
  ladder's file and the competition's list;
- ``POST /competition/organiser/uploads/close`` (a ``reason``) and ``.../open``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from goatarena.competition.sessions import Session
from goatarena.errors import GoatArenaError
from goatarena.store.competition import CompetitionStore, Entrant, Version
from goatarena.web.competition_pages import CompetitionPages, Serving

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

    def __init__(self, site: Serving, pages: CompetitionPages) -> None:
        self.site = site
        self.pages = pages

    def routes(self) -> list[Route]:
        """The page's routes."""
        return [
            Route(PAGE, self.page, methods=["GET"]),
            Route(PAGE + "/entrants/{name}/{action}", self.entrant, methods=["POST"]),
            Route(PAGE + "/versions/{name}/{action}", self.version, methods=["POST"]),
            Route(PAGE + "/uploads/{action}", self.uploads, methods=["POST"]),
        ]

    async def _organiser(self, request: Request) -> Session | None:
        """The organiser's session, or None for anyone else."""
        viewer, session = await self.pages._session(request)
        return session if viewer.is_organiser else None

    async def _form(self, request: Request) -> tuple[Any, Response | None]:
        """The organiser's checked form, or the answer to give instead (404 for anyone
        but the organiser, 403 for a form out of date or from another site)."""
        session = await self._organiser(request)
        if session is None:
            return None, PlainTextResponse("not found", 404)
        form = await self.pages._checked_form(request, session.csrf)
        if form is None:
            return None, PlainTextResponse("this form is out of date or from another site", 403)
        return form, None

    async def page(self, request: Request, message: str = "") -> Response:
        """``GET /competition/organiser``"""
        session = await self._organiser(request)
        if session is None:
            return PlainTextResponse("not found", 404)
        competition = self.site.competition
        await self.site.on_store(competition.reload)
        rows = await self.site.on_store(entrant_rows, competition.store)
        closed = await self.site.on_store(competition.store.uploads_closed)
        settings = competition.settings
        response = self.site.site.pages.render(
            "competition_organiser.html",
            message=message,
            csrf=session.csrf,
            rows=rows,
            closed_by_organiser=closed,
            closes=settings.closes,
        )
        response.headers["Cache-Control"] = "no-store"
        return response

    async def entrant(self, request: Request) -> Response:
        """Suspend (with a reason) or reinstate an entrant: a suspended entrant uploads
        nothing and is signed out of the site."""
        form, refused = await self._form(request)
        if refused is not None:
            return refused
        action = request.path_params["action"]
        store = self.site.competition.store
        found = await self.site.on_store(store.entrant_named, request.path_params["name"])
        if found is None or action not in ("suspend", "reinstate"):
            return PlainTextResponse("not found", 404)
        reason = str(form.get("reason") or "suspended by the organiser")[:REASON_CHARS]
        suspending = action == "suspend"
        await self.site.on_store(store.set_suspended, found.id, reason if suspending else None)
        if suspending:
            self.pages.sessions.close_all_of(found.id)
        return _back()

    async def version(self, request: Request) -> Response:
        """Retire a version, or put a retired one back in play."""
        _, refused = await self._form(request)
        if refused is not None:
            return refused
        name, action = request.path_params["name"], request.path_params["action"]
        competition = self.site.competition
        found = await self.site.on_store(competition.store.version, name)
        if found is None or action not in ("retire", "reinstate"):
            return PlainTextResponse("not found", 404)
        try:
            if action == "retire":
                await competition.retire(name)
            else:
                await competition.reinstate(name)
        except GoatArenaError as error:
            return await self.page(request, message=f"{name}: {error}")
        return _back()

    async def uploads(self, request: Request) -> Response:
        """Close uploads (with a reason shown to whoever uploads) or open them again.
        ``closes`` in the competition's file still applies besides."""
        form, refused = await self._form(request)
        if refused is not None:
            return refused
        action = request.path_params["action"]
        if action not in ("close", "open"):
            return PlainTextResponse("not found", 404)
        store = self.site.competition.store
        reason = str(form.get("reason") or "closed by the organiser")[:REASON_CHARS]
        await self.site.on_store(store.set_uploads_closed, reason if action == "close" else None)
        return _back()


def _back() -> Response:
    """Back to the page, which shows what was done (a redirect: a reload posts nothing)."""
    return RedirectResponse(PAGE, 303)
