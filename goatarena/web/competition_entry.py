"""How every request enters a competition's site: who asks, what
:mod:`goatarena.competition.access` decides for the route, and the CSRF token of every
form. A handler is reached only once the viewer is admitted, and answers what it found
or a :class:`~goatarena.competition.access.Refusal`, which is said the same way
everywhere.

- On the API (``/api/...``) a bearer token signs in (``Authorization: Bearer TOKEN``);
  cookies are never read there, so another site's page cannot act with them.
- On the pages a session cookie signs in (:mod:`goatarena.competition.sessions`), and
  every form posted carries a CSRF token that must match (the session's, or before
  signing in a cookie's of its own), and is refused when posted from another site's
  page.

A refusal is answered, on the API and the pages alike, as: sign in first (401, the same
whatever was asked for), or not found (404, exactly as for what does not exist).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

import trio
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import Message, Receive, Send

from goatarena.competition.access import (
    NOBODY,
    Refusal,
    Viewer,
    admits,
    rule_for,
    session_viewer,
)
from goatarena.competition.guards import SignInGuard, UploadGate
from goatarena.competition.pipeline import Competition
from goatarena.competition.sessions import Session, Sessions, csrf_matches
from goatarena.web.api import problem
from goatarena.web.app import Site

SESSION_COOKIE = "goatarena_session"
FORM_COOKIE = "goatarena_form"
"""The cookie that holds the CSRF token of the forms shown before signing in."""
FORM_EXTRA_BYTES = 64 << 10
"""What a form's fields and multipart framing may add to an archive's size."""
NOT_FOUND = "not found"
"""The one answer for what does not exist and for what the viewer may not see."""
FORM_REFUSED = "this form was refused: it is out of date, too large, or from another site"
LINGER_S = 30.0
"""How long the body of a request answered before it was read is still read, and thrown
away, before the answer ends (:class:`Lingering`)."""


class Lingering:
    """An ASGI request's ``receive`` and ``send``, wrapped so that an answer is not
    finished before the request's body has arrived: what a handler left unread (an
    upload too large, a form refused, a wrong token's upload) is read and thrown away
    first, for at most :data:`LINGER_S`. Hypercorn stops reading a connection whose
    application reads no more, and would then never send the answer's end: the client,
    still sending, would wait for its own timeout instead of reading the refusal."""

    def __init__(self, receive: Receive, send: Send) -> None:
        self._receive = receive
        self._send = send
        self._body_done = False

    async def receive(self) -> Message:
        """The request's next message, noting when its body has ended."""
        message = await self._receive()
        if message["type"] != "http.request" or not message.get("more_body"):
            self._body_done = True
        return message

    async def send(self, message: Message) -> None:
        """Send ``message``; before an answer's last part, read the rest of the body."""
        if message["type"] == "http.response.body" and not message.get("more_body"):
            with trio.move_on_after(LINGER_S):
                while not self._body_done:
                    await self.receive()
        await self._send(message)


class Serving(Protocol):
    """What the routes use of the competition's site (:class:`~goatarena.web.
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


@dataclass(frozen=True)
class Entry:
    """A request admitted to its route: who asks, their session on the pages, and the
    form they posted there (its CSRF token checked)."""

    request: Request
    viewer: Viewer
    session: Session | None
    form: FormData | None


Handler = Callable[[Entry], Awaitable[Response | Refusal]]
SignInPage = Callable[[Request, str, int], Awaitable[Response]]


class Doors:
    """The entry to every route of one competition site."""

    def __init__(self, site: Serving, sign_in_page: SignInPage) -> None:
        self.site = site
        self.sessions = Sessions(site.competition.store)
        self.sign_in_page = sign_in_page

    def route(self, method: str, path: str, handler: Handler) -> Route:
        """The route ``method path`` served by ``handler`` once access admits the
        viewer; a route access has no rule for is refused here, when the site is made."""
        rule = rule_for(method, path)
        api = path.startswith("/api/")

        async def endpoint(request: Request) -> Response:
            session = None
            if api:
                signed = await self._bearer(request)
                if isinstance(signed, Response):
                    return signed
                viewer = signed
            else:
                viewer, session = await self.session_of(request)
            refusal = admits(rule, viewer)
            if refusal is not None:
                return await self.refused(request, refusal, api=api)
            form = None
            if method == "POST" and not api:
                expected = session.csrf if session else request.cookies.get(FORM_COOKIE, "")
                if self._form_too_large(request):
                    return PlainTextResponse(FORM_REFUSED, 403)  # not read
                form = await self._checked_form(request, expected)
                if form is None:
                    return PlainTextResponse(FORM_REFUSED, 403)
            try:
                answer = await handler(Entry(request, viewer, session, form))
            finally:
                if form is not None:
                    await form.close()
            if isinstance(answer, Refusal):
                return await self.refused(request, answer, api=api)
            return answer

        return Route(path, endpoint, methods=[method])

    async def refused(self, request: Request, refusal: Refusal, *, api: bool) -> Response:
        """The one answer to ``refusal``, on the API or a page."""
        if refusal is Refusal.NOT_FOUND:
            return problem(404, NOT_FOUND) if api else PlainTextResponse(NOT_FOUND, 404)
        if api:
            return problem(401, "sign in: Authorization: Bearer TOKEN")
        return await self.sign_in_page(request, "sign in to see this", 401)

    async def _bearer(self, request: Request) -> Viewer | Response:
        """The viewer a bearer token signs in (nobody without one), or the answer to a
        token that signs no one in."""
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if header and scheme.lower() != "bearer":
            return problem(401, "give the token as Authorization: Bearer TOKEN")
        client = self.site.client(request)
        signed = await self.site.signed_in(client, token.strip())
        if signed is None:
            if self.site.guard.is_paused(client):
                return problem(429, "too many wrong tokens from this address: wait a minute")
            return problem(401, "this token signs no one in")
        return signed

    async def session_of(self, request: Request) -> tuple[Viewer, Session | None]:
        """Who the session cookie signs in, and the session; nobody once the session
        ended or its entrant was suspended."""
        cookie = request.cookies.get(SESSION_COOKIE, "")
        if not cookie:
            return NOBODY, None
        found = await self.site.on_store(self.sessions.find, cookie)
        if found is None:
            return NOBODY, None
        entrant = await self.site.on_store(self.site.competition.store.entrant, found.entrant)
        viewer = session_viewer(entrant)
        return viewer, (found if viewer.entrant is not None else None)

    @staticmethod
    def cross_site(request: Request) -> bool:
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

    def _form_too_large(self, request: Request) -> bool:
        """Whether a form is larger than an archive and its fields, or does not say its
        size (it is then not read)."""
        declared = request.headers.get("content-length", "")
        limit = self.site.competition.uploads.upload_bytes + FORM_EXTRA_BYTES
        return not declared.isdigit() or int(declared) > limit

    async def _checked_form(self, request: Request, expected: str) -> FormData | None:
        """The posted form, or None when it is cross-site or its CSRF token is wrong."""
        if self.cross_site(request):
            return None
        form = await request.form(max_files=1, max_fields=4, max_part_size=4096)
        given = form.get("csrf")
        if not isinstance(given, str) or not csrf_matches(expected, given):
            await form.close()
            return None
        return form
