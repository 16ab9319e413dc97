"""The site as an ASGI application (Starlette): its routes, its static files, the headers
every answer carries, and its errors.

Static files are a fixed table of names read once from the package (the site's own and
the report's styles and script): a name not in the table is a 404, so no path reaches
the disk and nothing is ever listed. Every answer forbids inline script (a strict
Content-Security-Policy), framing and content sniffing; only GET and HEAD are served.
"""

from __future__ import annotations

import sys
from importlib.resources import files
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from goatarena.errors import StoreError
from goatarena.web.answers import openapi_document
from goatarena.web.api import Api, BadRequest, json_response, problem
from goatarena.web.follow import Follower, Readers
from goatarena.web.pages import Pages

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline';"
    " img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self';"
    " frame-ancestors 'none'"
)
"""No inline or foreign script: every script is one of the site's own files. Inline
styles are allowed (the report's viewer colours seats with them); they cannot run code."""

SECURITY_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
]

STATIC: dict[str, tuple[str, str, str]] = {
    "site.css": ("goatarena.web", "static/site.css", "text/css; charset=utf-8"),
    "site.js": ("goatarena.web", "static/site.js", "text/javascript; charset=utf-8"),
    "report.css": ("goatarena.report", "assets/report.css", "text/css; charset=utf-8"),
    "report.js": ("goatarena.report", "assets/report.js", "text/javascript; charset=utf-8"),
}
"""Every static file the site serves: its name, package, path in the package and type."""


MAX_HEAD = 8 * 1024
"""The most bytes a request's target and headers may take together."""
MAX_BODY = 16 * 1024
"""The most bytes a request's body may declare (the site reads none)."""


def head_bytes(scope: Scope) -> int:
    """How many bytes a request's target and headers take (about: as sent, less framing)."""
    head = len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"")
    return head + sum(len(name) + len(value) + 4 for name, value in scope.get("headers", []))


async def refuse_as_too_large(send: Send, status: int) -> None:
    """Answer ``status`` (431: the head; 413: the body) without reading the request."""
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"text/plain"), *SECURITY_HEADERS],
        }
    )
    await send({"type": "http.response.body", "body": b"request too large\n"})


class SecurityHeaders:
    """ASGI middleware: the security headers on every answer, whoever made it, and the
    refusal of a request whose head or body is too large (Hypercorn bounds only a head
    that arrives in pieces)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = scope.get("headers", [])
        head = head_bytes(scope)
        declared = next((value for name, value in headers if name == b"content-length"), b"0")
        if head > MAX_HEAD or not declared.isdigit() or int(declared) > MAX_BODY:
            await refuse_as_too_large(send, 431 if head > MAX_HEAD else 413)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        await self.app(scope, receive, send_with_headers)


class Site:
    """The application and what it serves: a follower of the store, its readers."""

    def __init__(self, db: Path, *, commands: dict[str, str] | None = None) -> None:
        self.follower = Follower(db)
        self.readers = Readers(db)
        self.api = Api(self.follower, self.readers, commands)
        self.pages = Pages(self.api)
        self._static = {
            name: ((files(package) / path).read_bytes(), kind)
            for name, (package, path, kind) in STATIC.items()
        }
        self._openapi = json_response(openapi_document(self.follower.tournament)).body
        api, pages = self.api, self.pages
        routes = [
            Route("/", pages.leaderboard),
            Route("/fragments/standings", pages.standings_fragment),
            Route("/games", pages.games),
            Route("/games/{number}", pages.game),
            Route("/bots/{name}", pages.bot),
            Route("/head-to-head", pages.head_to_head),
            Route("/sprt", pages.sprt),
            Route("/ladder", pages.ladder),
            Route("/static/{name}", self.static),
            Route("/api/standings", api.standings_route),
            Route("/api/games", api.games_route),
            Route("/api/games/{number}", api.game_route),
            Route("/api/bots/{name}", api.bot_route),
            Route("/api/events", api.events_route),
            Route("/api/openapi.json", self.openapi),
        ]
        self.starlette = Starlette(
            routes=routes,
            exception_handlers={
                BadRequest: self._bad_request,
                HTTPException: self._http_error,
                StoreError: self._store_error,
            },  # fmt: skip
        )
        self._logged_store_error = ""
        self.app = SecurityHeaders(self.starlette)

    def close(self) -> None:
        """Close the store's connections."""
        self.follower.close()
        self.readers.close()

    async def static(self, request: Request) -> Response:
        """``/static/{name}``: one of the files of :data:`STATIC`, else 404."""
        found = self._static.get(request.path_params["name"])
        if found is None:
            raise HTTPException(404, "no such file")
        body, kind = found
        return Response(body, media_type=kind, headers={"Cache-Control": "public, max-age=300"})

    async def openapi(self, request: Request) -> Response:
        """``/api/openapi.json``: the API's description."""
        return Response(self._openapi, media_type="application/json")

    async def _bad_request(self, request: Request, error: Exception) -> Response:
        status = error.status if isinstance(error, BadRequest) else 400
        return self._error(request, status, str(error))

    async def _http_error(self, request: Request, error: Exception) -> Response:
        assert isinstance(error, HTTPException)
        message = {404: "no such page", 405: "only GET and HEAD are served"}.get(
            error.status_code, str(error.detail)
        )
        return self._error(request, error.status_code, message)

    async def _store_error(self, request: Request, error: Exception) -> Response:
        """The database could not be read (corrupt, locked, replaced by another file):
        503 with the cause, the database named by its file's name alone (no path of the
        organiser's machine), and one line in the log for each new cause, not one per
        request."""
        said = str(error)
        if said != self._logged_store_error:
            self._logged_store_error = said
            print(f"goatarena: serving: {said}", file=sys.stderr, flush=True)
        db = self.follower.path
        for path in {str(db.resolve()), str(db)}:
            said = said.replace(path, db.name)
        return self._error(request, 503, f"the results database cannot be read: {said}")

    def _error(self, request: Request, status: int, message: str) -> Response:
        if request.url.path.startswith("/api/"):
            return problem(status, message)
        return self.pages.error(status, message)
