"""A competition's pages for entrants: sign in with the token, see one's submissions and
their logs, upload an archive, register (where registration is open).

Signed in, an entrant holds a session cookie (``HttpOnly``, ``SameSite=Strict``,
``Secure`` over HTTPS); every form carries a CSRF token that must match (the session's,
or before signing in a cookie's of its own), and a form posted from another site's page
(its ``Origin``) is refused. What a page shows is what
:mod:`goatarena.competition.access` allows, as on the API.
"""

from __future__ import annotations

import datetime
import secrets
from dataclasses import dataclass
from typing import Any, Protocol

from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from goatarena.competition.access import (
    SignInGuard,
    UploadGate,
    Viewer,
    bot_log_for,
    submission_for,
    submissions_for,
)
from goatarena.competition.entrants import add_entrant
from goatarena.competition.pipeline import Competition
from goatarena.competition.sessions import Session, Sessions, csrf_matches
from goatarena.competition.uploads import UploadRefused
from goatarena.errors import GoatArenaError
from goatarena.web.api import BadRequest
from goatarena.web.app import Site

RECENT = 20
"""How many of an entrant's newest games their page lists."""


@dataclass(frozen=True)
class RecentGame:
    """One of an entrant's games on their page: which version sat where, and how it went."""

    number: int
    game: str
    version: str
    seat: int
    rank: int
    opponents: str


class Serving(Protocol):
    """What the pages use of the competition's site (:class:`~goatarena.web.
    competition_routes.CompetitionSite`)."""

    competition: Competition
    guard: SignInGuard
    gate: UploadGate
    site: Site

    async def on_store(self, work: Any, *args: Any) -> Any:
        """``work(*args)`` on the competition's database, in a worker thread."""

    def client(self, request: Request) -> str:
        """The address a request comes from (behind the trusted proxy: the client's)."""

    async def signed_in(self, client: str, token: str) -> Viewer | None:
        """The viewer a token signs in from ``client`` (None: refused)."""


SESSION_COOKIE = "goatarena_session"
FORM_COOKIE = "goatarena_form"
"""The cookie that holds the CSRF token of the forms shown before signing in."""
FORM_EXTRA_BYTES = 64 << 10
"""What a form's fields and multipart framing may add to an archive's size."""
REGISTRATIONS_PER_ADDRESS = 5


class CompetitionPages:
    """The entrants' pages of one competition site."""

    def __init__(self, site: Serving) -> None:
        self.site = site
        self.sessions = Sessions()
        self._registrations: dict[str, int] = {}

    def routes(self) -> list[Route]:
        """The pages' routes."""
        return [
            Route("/competition", self.page, methods=["GET"]),
            Route("/competition/sign-in", self.sign_in, methods=["POST"]),
            Route("/competition/sign-out", self.sign_out, methods=["POST"]),
            Route("/competition/upload", self.upload, methods=["POST"]),
            Route("/competition/register", self.register, methods=["POST"]),
            Route("/competition/submissions/{number}/log", self.log, methods=["GET"]),
            Route("/competition/games/{number}/logs/{seat}", self.bot_log, methods=["GET"]),
        ]

    # Who is signed in

    async def _session(self, request: Request) -> tuple[Viewer, Session | None]:
        found = self.sessions.find(request.cookies.get(SESSION_COOKIE, ""))
        if found is None:
            return Viewer(None), None
        store = self.site.competition.store
        entrant = await self.site.on_store(store.entrant, found.entrant)
        if entrant is None or entrant.suspended is not None:
            return Viewer(None), None
        return Viewer(entrant), found

    def _cross_site(self, request: Request) -> bool:
        """Whether a form comes from another site's page: by the browser's
        ``Sec-Fetch-Site``, else by ``Origin`` (``null`` under the site's no-referrer
        policy says nothing; the CSRF token still has to match)."""
        fetched = request.headers.get("sec-fetch-site")
        if fetched is not None:
            return fetched not in ("same-origin", "none")
        origin = request.headers.get("origin")
        if origin is None or origin == "null":
            return False
        return origin.split("://", 1)[-1] != request.headers.get("host", "")

    async def _checked_form(self, request: Request, expected: str) -> Any:
        """The posted form, or None when it is cross-site or its CSRF token is wrong."""
        if self._cross_site(request):
            return None
        declared = request.headers.get("content-length", "")
        limit = self.site.competition.uploads.upload_bytes + FORM_EXTRA_BYTES
        if not declared.isdigit() or int(declared) > limit:
            return None
        form = await request.form(max_files=1, max_fields=4, max_part_size=4096)
        given = form.get("csrf")
        if not isinstance(given, str) or not csrf_matches(expected, given):
            await form.close()
            return None
        return form

    # Pages

    async def page(self, request: Request, message: str = "", token_shown: str = "") -> Response:
        """``GET /competition``: the sign-in form, or the entrant's page."""
        viewer, session = await self._session(request)
        settings = self.site.competition.settings
        form_token = request.cookies.get(FORM_COOKIE) or secrets.token_urlsafe(32)
        values: dict[str, Any] = {
            "message": message,
            "token_shown": token_shown,
            "entrant": viewer.entrant,
            "csrf": session.csrf if session else form_token,
            "open_registration": settings.registration == "open",
            "languages": settings.languages,
            "upload_mib": f"{settings.upload_mib:g}",
            "closed": settings.closes is not None and settings.closed(_now()),
        }
        if viewer.entrant is not None:  # the upload form is shown to entrants alone
            closed = await self.site.on_store(self.site.competition.store.uploads_closed)
            values["closed"] = values["closed"] or closed is not None
        if viewer.entrant is not None:
            await self.site.on_store(self.site.competition.reload)  # the ladder's retirements
            store = self.site.competition.store
            values["submissions"] = await self.site.on_store(submissions_for, store, viewer)
            versions = await self.site.on_store(store.versions_of, viewer.entrant.id)
            values["versions"] = versions
            values["recent"] = await self._recent_games([version.name for version in versions])
        response = self.site.site.pages.render("competition.html", **values)
        response.headers["Cache-Control"] = "no-store"
        if session is None:
            _set_cookie(request, response, FORM_COOKIE, form_token)
        return response

    async def sign_in(self, request: Request) -> Response:
        """``POST /competition/sign-in``: the token, once, for a session cookie."""
        form = await self._checked_form(request, request.cookies.get(FORM_COOKIE, ""))
        if form is None:
            return PlainTextResponse("this form is out of date or from another site", 403)
        token = str(form.get("token") or "")
        client = self.site.client(request)
        viewer = await self.site.signed_in(client, token)
        if viewer is None or viewer.entrant is None:
            paused = self.site.guard.is_paused(client)
            said = (
                "too many wrong tokens: wait a minute" if paused else "that token signs no one in"
            )
            return await self.page(request, message=said)
        number, _ = self.sessions.open(viewer.entrant.id)
        response = RedirectResponse("/competition", 303)
        _set_cookie(request, response, SESSION_COOKIE, number)
        return response

    async def sign_out(self, request: Request) -> Response:
        """``POST /competition/sign-out``"""
        _, session = await self._session(request)
        if session is not None and await self._checked_form(request, session.csrf) is not None:
            self.sessions.close(request.cookies.get(SESSION_COOKIE, ""))
        response = RedirectResponse("/competition", 303)
        response.delete_cookie(SESSION_COOKIE, path="/")
        return response

    async def upload(self, request: Request) -> Response:
        """``POST /competition/upload``: the form's archive, as the API takes it."""
        viewer, session = await self._session(request)
        if session is None or viewer.entrant is None:
            return RedirectResponse("/competition", 303)
        form = await self._checked_form(request, session.csrf)
        if form is None:
            said = "the upload was refused: too large, or the form is out of date"
            return await self.page(request, message=said)
        try:
            archive = form.get("archive")
            language = str(form.get("language") or "python")
            if not isinstance(archive, UploadFile):
                return await self.page(request, message="choose an archive to upload")
            refusal = self.site.gate.enter(viewer.entrant.id)
            if refusal is not None:
                return await self.page(request, message=refusal)
            try:
                data = await archive.read(self.site.competition.uploads.upload_bytes + 1)
                number = await self.site.on_store(
                    self.site.competition.submit, viewer.entrant, language, [data]
                )
            finally:
                self.site.gate.leave(viewer.entrant.id)
        except UploadRefused as refused:
            return await self.page(request, message=f"the upload was refused: {refused}")
        finally:
            await form.close()
        self.site.competition.queued(number)
        return RedirectResponse("/competition", 303)

    async def register(self, request: Request) -> Response:
        """``POST /competition/register``: a new entrant's name, where registration is open."""
        if self.site.competition.settings.registration != "open":
            return PlainTextResponse("registration is by invitation", 404)
        form = await self._checked_form(request, request.cookies.get(FORM_COOKIE, ""))
        if form is None:
            return PlainTextResponse("this form is out of date or from another site", 403)
        client = self.site.client(request)
        if self._registrations.get(client, 0) >= REGISTRATIONS_PER_ADDRESS:
            return await self.page(request, message="too many registrations from this address")
        name = str(form.get("name") or "")
        try:
            store = self.site.competition.store
            bots = list(self.site.competition.config.bots)
            token = await self.site.on_store(lambda: add_entrant(store, name, reserved=bots))
        except GoatArenaError as error:
            return await self.page(request, message=str(error))
        self._registrations[client] = self._registrations.get(client, 0) + 1
        return await self.page(request, message=f"registered {name}", token_shown=token)

    async def _recent_games(self, names: list[str]) -> list[RecentGame]:
        """The newest games of the entrant's versions, with the seat each played."""
        index = self.site.site.follower.index
        with index.lock:
            numbers = sorted(
                {number for name in names for number in index.by_bot.get(name, [])[-RECENT:]}
            )[-RECENT:]
        found = []
        for number in reversed(numbers):
            try:
                answer, _ = await self.site.site.api.game(number)
            except BadRequest:
                continue
            seats = answer.game.seats
            for seat, result in enumerate(seats):
                if result.bot in names:
                    others = ", ".join(other.bot for other in seats if other is not result)
                    found.append(RecentGame(number, answer.game.game, result.bot, seat,
                                            result.rank, others))  # fmt: skip
        return found

    async def bot_log(self, request: Request) -> Response:
        """``GET /competition/games/{number}/logs/{seat}``: the seat's stderr in that game,
        as text, for the seat's owner (or the organiser) alone."""
        viewer, _ = await self._session(request)
        number, seat = request.path_params["number"], request.path_params["seat"]
        if viewer.entrant is None or not (number.isdigit() and seat.isdigit()):
            return PlainTextResponse("not found", 404)
        if len(number) > 12 or len(seat) > 3:
            return PlainTextResponse("not found", 404)
        try:
            _, stored = await self.site.site.api.game(int(number))
        except BadRequest:
            return PlainTextResponse("not found", 404)
        game = (stored.key, list(stored.result.players))
        store, logs = self.site.competition.store, self.site.competition.place.logs
        text = await self.site.on_store(bot_log_for, store, viewer, game, int(seat), logs)
        if text is None:
            return PlainTextResponse("not found", 404)
        return PlainTextResponse(text, headers={"Cache-Control": "no-store"})

    async def log(self, request: Request) -> Response:
        """``GET /competition/submissions/{number}/log``: as text, the owner's alone."""
        viewer, _ = await self._session(request)
        text = request.path_params["number"]
        found = None
        if text.isdigit() and len(text) <= 12:
            store = self.site.competition.store
            found = await self.site.on_store(submission_for, store, viewer, int(text))
        if found is None:
            return PlainTextResponse("not found", 404)
        return PlainTextResponse(found.build_log, headers={"Cache-Control": "no-store"})


def _set_cookie(request: Request, response: Response, name: str, value: str) -> None:
    response.set_cookie(
        name,
        value,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path="/",
        max_age=12 * 3600,
    )


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)
