"""A competition's pages for entrants: sign in with the token, see one's submissions and
their logs, upload an archive, register (where registration is open).

Signed in, an entrant holds a session cookie (``HttpOnly``, ``SameSite=Strict``,
``Secure`` over HTTPS), kept in the competition's database so that a restart signs no one
out. Who may see and post what is decided in :mod:`goatarena.competition.access` and
checked, with every form's CSRF token, before a handler here is reached
(:class:`~goatarena.web.competition_entry.Doors`).
"""

from __future__ import annotations

import datetime
import secrets
from dataclasses import dataclass
from typing import Any

from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from goatarena.competition.access import (
    Refusal,
    session_viewer,
    submissions_for,
    versions_for,
)
from goatarena.competition.entrants import add_entrant
from goatarena.competition.sessions import LIFETIME_S
from goatarena.competition.uploads import UploadRefused
from goatarena.errors import GoatArenaError
from goatarena.web.api import BadRequest
from goatarena.web.competition_entry import (
    FORM_COOKIE,
    SESSION_COOKIE,
    Doors,
    Entry,
    Serving,
)

RECENT = 20
"""How many of an entrant's newest games their page lists."""
REGISTRATIONS_PER_ADDRESS = 5


@dataclass(frozen=True)
class RecentGame:
    """One of an entrant's games on their page: which version sat where, and how it went."""

    number: int
    game: str
    version: str
    seat: int
    rank: int
    opponents: str


class CompetitionPages:
    """The entrants' pages of one competition site."""

    def __init__(self, site: Serving, doors: Doors) -> None:
        self.site = site
        self.doors = doors
        self._registrations: dict[str, int] = {}

    def routes(self) -> list[Route]:
        """The pages' routes (the logs' are the API's handlers, on a session)."""
        door = self.doors.route
        return [
            door("GET", "/competition", self.page),
            door("POST", "/competition/sign-in", self.sign_in),
            door("POST", "/competition/sign-out", self.sign_out),
            door("POST", "/competition/upload", self.upload),
            door("POST", "/competition/register", self.register),
        ]

    async def page(self, entry: Entry) -> Response:
        """``GET /competition``: the sign-in form, or the entrant's page."""
        return await self.render(entry.request, entry)

    async def render(
        self,
        request: Request,
        entry: Entry | None = None,
        *,
        message: str = "",
        token_shown: str = "",
        status: int = 200,
    ) -> Response:
        """The competition's page for whoever asks (``entry``: as admitted; None: asked
        again from the session), with a message."""
        if entry is None:
            viewer, session = await self.doors.session_of(request)
        else:
            viewer, session = entry.viewer, entry.session
        competition = self.site.competition
        settings = competition.settings
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
            closed = await self.site.on_store(competition.store.uploads_closed)
            values["closed"] = values["closed"] or closed is not None
            await self.site.on_store(competition.reload)  # the ladder's retirements
            store = competition.store
            values["submissions"] = await self.site.on_store(submissions_for, store, viewer)
            versions = await self.site.on_store(versions_for, store, viewer)
            values["versions"] = versions
            values["recent"] = await self._recent_games([version.name for version in versions])
        response = self.site.site.pages.render("competition.html", status, **values)
        response.headers["Cache-Control"] = "no-store"
        if session is None:
            set_cookie(request, response, FORM_COOKIE, form_token)
        return response

    async def sign_in(self, entry: Entry) -> Response:
        """``POST /competition/sign-in``: the token, once, for a session cookie."""
        assert entry.form is not None
        token = str(entry.form.get("token") or "")
        client = self.site.client(entry.request)
        signed = await self.site.signed_in(client, token)
        entrant = None if signed is None else session_viewer(signed.entrant).entrant
        if entrant is None:
            if signed is not None and signed.entrant is not None:  # the token's own holder
                said = f"{signed.entrant.name} is suspended: {signed.entrant.suspended}"
            elif self.site.guard.is_paused(client):
                said = "too many wrong tokens: wait a minute"
            else:
                said = "that token signs no one in"
            return await self.render(entry.request, entry, message=said)
        number, _ = await self.site.on_store(self.doors.sessions.open, entrant.id)
        response = RedirectResponse("/competition", 303)
        set_cookie(entry.request, response, SESSION_COOKIE, number)
        return response

    async def sign_out(self, entry: Entry) -> Response:
        """``POST /competition/sign-out``: the session is deleted, not only its cookie."""
        if entry.session is not None:
            cookie = entry.request.cookies.get(SESSION_COOKIE, "")
            await self.site.on_store(self.doors.sessions.close, cookie)
        response = RedirectResponse("/competition", 303)
        response.delete_cookie(SESSION_COOKIE, path="/")
        return response

    async def upload(self, entry: Entry) -> Response:
        """``POST /competition/upload``: the form's archive, as the API takes it."""
        entrant, form = entry.viewer.entrant, entry.form
        assert entrant is not None and form is not None
        archive = form.get("archive")
        language = str(form.get("language") or "python")
        if not isinstance(archive, UploadFile):
            return await self.render(entry.request, entry, message="choose an archive to upload")
        refusal = self.site.gate.enter(entrant.id)
        if refusal is not None:
            return await self.render(entry.request, entry, message=refusal)
        try:
            data = await archive.read(self.site.competition.uploads.upload_bytes + 1)
            number = await self.site.on_store(
                self.site.competition.submit, entrant, language, [data]
            )
        except UploadRefused as refused:
            said = f"the upload was refused: {refused}"
            return await self.render(entry.request, entry, message=said)
        finally:
            self.site.gate.leave(entrant.id)
        self.site.competition.queued(number)
        return RedirectResponse("/competition", 303)

    async def register(self, entry: Entry) -> Response | Refusal:
        """``POST /competition/register``: a new entrant's name, where registration is open
        (not found where it is by invitation)."""
        if self.site.competition.settings.registration != "open":
            return Refusal.NOT_FOUND
        assert entry.form is not None
        client = self.site.client(entry.request)
        if self._registrations.get(client, 0) >= REGISTRATIONS_PER_ADDRESS:
            said = "too many registrations from this address"
            return await self.render(entry.request, entry, message=said)
        name = str(entry.form.get("name") or "")
        try:
            store = self.site.competition.store
            bots = list(self.site.competition.config.bots)
            token = await self.site.on_store(lambda: add_entrant(store, name, reserved=bots))
        except GoatArenaError as error:
            return await self.render(entry.request, entry, message=str(error))
        self._registrations[client] = self._registrations.get(client, 0) + 1
        return await self.render(
            entry.request, entry, message=f"registered {name}", token_shown=token
        )

    async def sign_in_page(self, request: Request, message: str, status: int) -> Response:
        """The page asking to sign in, for a page that needs it (:class:`Doors`)."""
        return await self.render(request, message=message, status=status)

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


def text_answer(text: str) -> Response:
    """A log, as text never a page, kept by no cache."""
    return PlainTextResponse(text, headers={"Cache-Control": "no-store"})


def set_cookie(request: Request, response: Response, name: str, value: str) -> None:
    """Set a cookie scripts cannot read and other sites' requests do not carry."""
    response.set_cookie(
        name,
        value,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        path="/",
        max_age=int(LIFETIME_S),
    )


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)
