"""A competition's routes on the site: uploads, submissions, build logs and bots' logs.

Served beside the site's own routes when ``goatarena serve`` is given a ladder file with
a ``[competition]`` section. Every route signs the viewer in from ``Authorization:
Bearer TOKEN`` and asks :mod:`goatarena.competition.access` what they may see: a
handler never decides it. What a viewer may not see is answered as what does not exist
(404). The rest of the site is served as it is, by :class:`~goatarena.web.app.Site`.

- ``POST /api/submissions?language=L`` — the body is the archive (tar.gz or zip); 202 and
  the submission's number, or one line saying why not (401, 413, 422, 429);
- ``GET /api/submissions`` — the viewer's own submissions;
- ``GET /api/submissions/{number}`` — one of them: state, reason, version;
- ``GET /api/submissions/{number}/log`` — its build log (and the bot's stderr during
  validation), as text;
- ``GET /api/games/{number}/logs/{seat}`` — the stderr log of the bot in that seat: its
  owner's or the organiser's, 404 for anyone else.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import msgspec
import trio
from hypercorn.trio import serve
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import Message, Receive, Scope, Send

from goatarena.competition.access import (
    NOBODY,
    SignInGuard,
    UploadGate,
    Viewer,
    bot_log_for,
    client_address,
    submission_for,
    submissions_for,
    token_owner,
)
from goatarena.competition.pipeline import Competition
from goatarena.competition.tokens import token_matches
from goatarena.competition.uploads import UploadRefused
from goatarena.errors import GoatArenaError, user_error_in
from goatarena.interrupt import run_trio
from goatarena.store.competition import Submission
from goatarena.store.opening import open_store
from goatarena.web.api import BadRequest, json_response, problem
from goatarena.web.app import SECURITY_HEADERS, Site
from goatarena.web.competition_organiser import OrganiserPage
from goatarena.web.competition_pages import CompetitionPages
from goatarena.web.server import hypercorn_config, serve_command_child

OWN_PATHS = re.compile(
    r"^(/api/(submissions(/.*)?|games/[^/]+/logs/[^/]+|me|(entrants|versions)/[^/]+/[a-z]+)"
    r"|/competition(/.*)?)$"
)
"""The paths this module answers; every other goes to the site."""
UPLOAD_BASE_S = 30.0
UPLOAD_SLOWEST_BYTES_S = 64 << 10
"""The slowest an upload may arrive, beyond its first :data:`UPLOAD_BASE_S` seconds."""
NOT_FOUND = "not found"
"""The one answer for what does not exist and for what the viewer may not see."""


class SubmissionAnswer(msgspec.Struct, frozen=True):
    """A submission as its owner sees it."""

    number: int
    language: str
    size: int
    state: str
    reason: str
    version: str | None
    created_at: float
    updated_at: float
    comparison: str | None


class Created(msgspec.Struct, frozen=True):
    """An upload stored: the submission's number and where to follow it."""

    submission: int
    status: str


class Me(msgspec.Struct, frozen=True):
    """Who the token signs in."""

    name: str
    organiser: bool
    versions: list[str]


def _answer(submission: Submission) -> SubmissionAnswer:
    return SubmissionAnswer(
        number=submission.id,
        language=submission.language,
        size=submission.size,
        state=submission.state,
        reason=submission.reason,
        version=submission.version,
        created_at=submission.created_at,
        updated_at=submission.updated_at,
        comparison=submission.comparison,
    )


class CompetitionSite:
    """The site of a competition: its own routes first, then the site's."""

    def __init__(self, site: Site, competition: Competition) -> None:
        self.site = site
        self.competition = competition
        self.guard = SignInGuard()
        self.gate = UploadGate()
        self._store_lock = trio.Lock()  # one thread at a time on the competition's database
        routes = [
            Route("/api/submissions", self.upload, methods=["POST"]),
            Route("/api/submissions", self.list_submissions, methods=["GET"]),
            Route("/api/submissions/{number}", self.one_submission, methods=["GET"]),
            Route("/api/submissions/{number}/log", self.build_log, methods=["GET"]),
            Route("/api/games/{number}/logs/{seat}", self.bot_log, methods=["GET"]),
            Route("/api/me", self.me, methods=["GET"]),
            Route("/api/entrants/{name}/suspend", self.suspend, methods=["POST"]),
            Route("/api/entrants/{name}/reinstate", self.suspend, methods=["POST"]),
            Route("/api/versions/{name}/retire", self.retire, methods=["POST"]),
        ]
        self.pages = CompetitionPages(self)
        routes += self.pages.routes()
        routes += OrganiserPage(self, self.pages).routes()
        site.pages.links.append(("/competition", "competition"))  # in every page's nav
        self.starlette = Starlette(routes=routes)

    async def app(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The ASGI application: this module's paths, else the site's."""
        if scope["type"] != "http" or not OWN_PATHS.match(scope.get("path", "")):
            await self.site.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await send(message)

        await self.starlette(scope, receive, send_with_headers)

    async def on_store(self, work: Any, *args: Any) -> Any:
        """``work(*args)`` in a worker thread, one at a time on the competition's database."""
        async with self._store_lock:
            return await trio.to_thread.run_sync(work, *args)

    def client(self, request: Request) -> str:
        """The address a request comes from: the peer's, or the client's that the
        competition's ``trusted_proxy`` names in ``X-Forwarded-For``."""
        peer = request.client.host if request.client else ""
        forwarded = request.headers.get("x-forwarded-for")
        return client_address(peer, forwarded, self.competition.settings.trusted_proxy)

    async def signed_in(self, client: str, token: str) -> Viewer | None:
        """What :meth:`SignInGuard.sign_in` answers, with the token's argon2 hash checked
        in a thread of its own, outside the database's lock: many entrants following
        their submissions never queue every page behind their hashes."""
        if not token:
            return NOBODY
        if self.guard.is_paused(client):
            return None
        owner = await self.on_store(token_owner, self.competition.store, token)
        known = None if owner is None else owner.token_hash
        matches = await trio.to_thread.run_sync(token_matches, token, known)
        return self.guard.verdict(client, owner if matches else None)

    async def _viewer(self, request: Request) -> Viewer | Response:
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if header and scheme.lower() != "bearer":
            return problem(401, "give the token as Authorization: Bearer TOKEN")
        client = self.client(request)
        signed = await self.signed_in(client, token.strip())
        if signed is None:
            if self.guard.is_paused(client):
                return problem(429, "too many wrong tokens from this address: wait a minute")
            return problem(401, "this token signs no one in")
        return signed

    async def _entrant(self, request: Request) -> Viewer | Response:
        viewer = await self._viewer(request)
        if isinstance(viewer, Viewer) and viewer.entrant is None:
            return problem(401, "sign in: Authorization: Bearer TOKEN")
        return viewer

    async def upload(self, request: Request) -> Response:
        """``POST /api/submissions?language=L``: the body is the archive."""
        viewer = await self._entrant(request)
        if isinstance(viewer, Response):
            return viewer
        assert viewer.entrant is not None
        limits = self.competition.uploads
        declared = request.headers.get("content-length", "")
        if declared and (not declared.isdigit() or int(declared) > limits.upload_bytes):
            mib = limits.upload_bytes / (1 << 20)
            return problem(413, f"the upload is too large: at most {mib:g} MiB")
        language = request.query_params.get("language", "python")
        refusal = self.gate.enter(viewer.entrant.id)
        if refusal is not None:
            return problem(429, refusal)
        try:
            with trio.move_on_after(upload_seconds(limits.upload_bytes)) as timer:
                body = await _body(request, limits.upload_bytes)
            if timer.cancelled_caught:
                return problem(408, "the upload arrived too slowly")
            number = await self.on_store(self.competition.submit, viewer.entrant, language, [body])
        except UploadRefused as refused:
            status = 413 if "too large" in str(refused) else 422
            return problem(status, str(refused))
        finally:
            self.gate.leave(viewer.entrant.id)
        self.competition.queued(number)
        return json_response(Created(number, f"/api/submissions/{number}"), 202)

    async def list_submissions(self, request: Request) -> Response:
        """``GET /api/submissions``: the viewer's own."""
        viewer = await self._entrant(request)
        if isinstance(viewer, Response):
            return viewer
        found = await self.on_store(submissions_for, self.competition.store, viewer)
        return json_response([_answer(submission) for submission in found])

    async def _submission(self, request: Request) -> Submission | Response:
        viewer = await self._entrant(request)
        if isinstance(viewer, Response):
            return viewer
        text = request.path_params["number"]
        if not text.isdigit() or len(text) > 12:
            return problem(404, NOT_FOUND)
        found = await self.on_store(submission_for, self.competition.store, viewer, int(text))
        return problem(404, NOT_FOUND) if found is None else found

    async def one_submission(self, request: Request) -> Response:
        """``GET /api/submissions/{number}``"""
        found = await self._submission(request)
        return found if isinstance(found, Response) else json_response(_answer(found))

    async def build_log(self, request: Request) -> Response:
        """``GET /api/submissions/{number}/log``: text, never HTML."""
        found = await self._submission(request)
        if isinstance(found, Response):
            return found
        return PlainTextResponse(found.build_log, headers={"Cache-Control": "no-store"})

    async def bot_log(self, request: Request) -> Response:
        """``GET /api/games/{number}/logs/{seat}``: the seat's owner or the organiser."""
        viewer = await self._entrant(request)
        if isinstance(viewer, Response):
            return viewer
        number, seat = request.path_params["number"], request.path_params["seat"]
        if not (number.isdigit() and seat.isdigit() and len(number) <= 12 and len(seat) <= 3):
            return problem(404, NOT_FOUND)
        try:
            _, stored = await self.site.api.game(int(number))
        except BadRequest:
            return problem(404, NOT_FOUND)
        text = await self.on_store(
            bot_log_for,
            self.competition.store,
            viewer,
            (stored.key, list(stored.result.players)),
            int(seat),
            self.competition.place.logs,
        )
        if text is None:
            return problem(404, NOT_FOUND)
        return PlainTextResponse(text, headers={"Cache-Control": "no-store"})

    async def suspend(self, request: Request) -> Response:
        """``POST /api/entrants/{name}/suspend?reason=`` and ``.../reinstate``: the
        organiser's alone (404 for anyone else). A suspended entrant uploads nothing and is
        signed out of the site."""
        return await _suspend_answer(self, request)

    async def retire(self, request: Request) -> Response:
        """``POST /api/versions/{name}/retire``: the organiser takes a version out of
        play (404 for anyone else, and for a version no entrant submitted)."""
        viewer = await self._entrant(request)
        if isinstance(viewer, Response):
            return viewer
        name = request.path_params["name"]
        version = await self.on_store(self.competition.store.version, name)
        if not viewer.is_organiser or version is None:
            return problem(404, NOT_FOUND)
        try:
            said = await self.competition.retire(name)
        except GoatArenaError as error:
            return problem(409, str(error))
        return json_response({"version": name, "retired": True, "said": said})

    async def me(self, request: Request) -> Response:
        """``GET /api/me``: who the token signs in, and their versions."""
        viewer = await self._entrant(request)
        if isinstance(viewer, Response):
            return viewer
        assert viewer.entrant is not None
        await self.on_store(self.competition.reload)  # the ladder's file says what plays
        versions = await self.on_store(self.competition.store.versions_of, viewer.entrant.id)
        names = [version.name for version in versions]
        return json_response(Me(viewer.entrant.name, viewer.entrant.organiser, names))


async def _suspend_answer(site: CompetitionSite, request: Request) -> Response:
    viewer = await site._entrant(request)
    if isinstance(viewer, Response):
        return viewer
    if not viewer.is_organiser:
        return problem(404, NOT_FOUND)
    store = site.competition.store
    entrant = await site.on_store(store.entrant_named, request.path_params["name"])
    if entrant is None:
        return problem(404, NOT_FOUND)
    reinstating = request.url.path.endswith("/reinstate")
    reason = request.query_params.get("reason", "suspended by the organiser")[:200]
    await site.on_store(store.set_suspended, entrant.id, None if reinstating else reason)
    if not reinstating:
        site.pages.sessions.close_all_of(entrant.id)
    return json_response({"entrant": entrant.name, "suspended": not reinstating})


def upload_seconds(upload_bytes: int) -> float:
    """How long an upload may take to arrive: a trickle cannot hold an upload's place
    (one per entrant, four in all) for ever."""
    return UPLOAD_BASE_S + upload_bytes / UPLOAD_SLOWEST_BYTES_S


async def _body(request: Request, cap: int) -> bytes:
    """The request's body, refused past ``cap`` bytes whatever it declared."""
    parts, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > cap:
            raise UploadRefused(f"the upload is too large: at most {cap / (1 << 20):g} MiB")
        parts.append(chunk)
    return b"".join(parts)


async def serve_competition(
    site: CompetitionSite,
    host: str,
    port: int,
    *,
    task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve the competition's site at ``host:port`` and work on its submissions until
    cancelled; started with the addresses bound."""
    async with trio.open_nursery() as nursery:
        await nursery.start(site.site.follower.follow)
        nursery.start_soon(_work, site.competition)
        app: Any = site.app
        config = hypercorn_config(host, port)
        config.h11_max_incomplete_size = 16 * 1024
        bound = await nursery.start(partial(serve, app, config))
        task_status.started(bound)


async def _work(competition: Competition) -> None:
    """The submissions' worker: a user's error in one never stops the site."""
    while True:
        try:
            await competition.work()
        except (GoatArenaError, BaseExceptionGroup) as error:
            if user_error_in(error) is None:
                raise
            await trio.sleep(1)


def run_competition_site(
    file: Path, db: Path, host: str, port: int, say: Callable[[str], None]
) -> None:
    """Serve the competition of ``file`` (results in ``db``) until Ctrl-C: ``goatarena
    serve FILE`` for a ladder file with a ``[competition]`` section."""
    if not db.exists():
        # The site follows the results database: made now, it is claimed by the ladder's
        # run when it starts (entrants may submit before the first game).
        db.parent.mkdir(parents=True, exist_ok=True)
        open_store(db).close()
    competition = Competition(file, db)
    site = Site(db, commands=None)
    try:
        served = CompetitionSite(site, competition)

        async def main() -> None:
            async with trio.open_nursery() as nursery:
                bound = await nursery.start(serve_competition, served, host, port)
                say(f"{competition.config.name}: a competition, serving at {', '.join(bound)};"
                    " Ctrl-C stops")  # fmt: skip

        run_trio(main)
    finally:
        site.close()
        competition.close()


@contextlib.contextmanager
def competition_child(file: Path, db: Path, host: str, port: int) -> Iterator[None]:
    """Serve the competition of ``file`` from a child process while the block runs
    (``goatarena run FILE --serve``), as :func:`~goatarena.web.server.serving_child`
    serves a plain site."""
    with serve_command_child([str(file), "--db", str(db), "--host", host, "--port", str(port)]):
        yield
