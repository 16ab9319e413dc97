"""A competition's routes on the site: uploads, submissions, build logs and bots' logs.

Served beside the site's own routes when ``goatarena serve`` is given a ladder file with
a ``[competition]`` section. Each route is made by
:class:`~goatarena.web.competition_entry.Doors`, which signs the viewer in (``Authorization:
Bearer TOKEN`` on the API, the session cookie on the pages) and asks
:mod:`goatarena.competition.access` whether the route admits them; a handler then asks
access for the thing itself and never decides it. What a viewer may not see is answered
as what does not exist (404). The rest of the site is served as it is, by
:class:`~goatarena.web.app.Site`.

- ``POST /api/submissions?language=L`` — the body is the archive (tar.gz or zip); 202 and
  the submission's number, or one line saying why not (401, 413, 422, 429);
- ``GET /api/submissions`` — the viewer's own submissions;
- ``GET /api/submissions/{number}`` — one of them: state, reason, version;
- ``GET /api/submissions/{number}/log`` — its build log (and the bot's stderr during
  validation), as text; on the pages ``/competition/submissions/{number}/log``;
- ``GET /api/games/{number}/logs/{seat}`` — the stderr log of the bot in that seat: its
  owner's or the organiser's, 404 for anyone else; on the pages
  ``/competition/games/{number}/logs/{seat}``.
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
from starlette.responses import Response
from starlette.types import Message, Receive, Scope, Send

from goatarena.competition.access import (
    NOBODY,
    Refusal,
    Viewer,
    bot_log_for,
    entrant_for,
    number_in,
    submission_for,
    submissions_for,
    version_for,
    versions_for,
)
from goatarena.competition.guards import SignInGuard, UploadGate, client_address, token_owner
from goatarena.competition.pipeline import Competition
from goatarena.competition.tokens import CheckedTokens, token_matches
from goatarena.competition.uploads import UploadRefused
from goatarena.errors import GoatArenaError, user_error_in
from goatarena.interrupt import run_trio
from goatarena.store.competition import Submission
from goatarena.store.opening import open_store
from goatarena.web.api import BadRequest, json_response, problem
from goatarena.web.app import (
    MAX_HEAD,
    SECURITY_HEADERS,
    Site,
    head_bytes,
    refuse_as_too_large,
)
from goatarena.web.competition_entry import Doors, Entry, Lingering
from goatarena.web.competition_organiser import OrganiserPage
from goatarena.web.competition_pages import CompetitionPages, text_answer
from goatarena.web.server import hypercorn_config, serve_command_child

OWN_PATHS = re.compile(
    r"^(/api/(submissions(/.*)?|games/[^/]+/logs/[^/]+|me|(entrants|versions)/[^/]+/[a-z]+)"
    r"|/competition(/.*)?)$"
)
"""The paths this module answers; every other goes to the site."""
UPLOAD_BASE_S = 30.0
UPLOAD_SLOWEST_BYTES_S = 64 << 10
"""The slowest an upload may arrive, beyond its first :data:`UPLOAD_BASE_S` seconds."""
REASON_CHARS = 200


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
        self.checked = CheckedTokens()
        self._store_lock = trio.Lock()  # one thread at a time on the competition's database
        self.doors = Doors(self, self._sign_in_page)
        self.pages = CompetitionPages(self, self.doors)
        door = self.doors.route
        routes = [
            door("POST", "/api/submissions", self.upload),
            door("GET", "/api/submissions", self.list_submissions),
            door("GET", "/api/submissions/{number}", self.one_submission),
            door("GET", "/api/submissions/{number}/log", self.build_log),
            door("GET", "/api/games/{number}/logs/{seat}", self.bot_log),
            door("GET", "/api/me", self.me),
            door("POST", "/api/entrants/{name}/suspend", partial(self.suspend, suspend=True)),
            door("POST", "/api/entrants/{name}/reinstate", partial(self.suspend, suspend=False)),
            door("POST", "/api/versions/{name}/retire", self.retire),
            *self.pages.routes(),
            # The logs on the pages: the same handlers, on a session rather than a token.
            door("GET", "/competition/submissions/{number}/log", self.build_log),
            door("GET", "/competition/games/{number}/logs/{seat}", self.bot_log),
            *OrganiserPage(self, self.doors).routes(),
        ]
        site.pages.links.append(("/competition", "competition"))  # in every page's nav
        self.starlette = Starlette(routes=routes)

    async def _sign_in_page(self, request: Request, message: str, status: int) -> Response:
        return await self.pages.sign_in_page(request, message, status)

    async def app(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The ASGI application: this module's paths, else the site's."""
        if scope["type"] != "http" or not OWN_PATHS.match(scope.get("path", "")):
            await self.site.app(scope, receive, send)
            return
        if head_bytes(scope) > MAX_HEAD:  # as the site's own (a body may be an upload)
            await refuse_as_too_large(send, 431)
            return

        lingering = Lingering(receive, send)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *SECURITY_HEADERS]
            await lingering.send(message)

        await self.starlette(scope, lingering.receive, send_with_headers)

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
        """The viewer a token signs in (:data:`NOBODY` without one; None when refused:
        a wrong token, or a paused client), with the token's argon2 hash checked in a
        thread of its own, outside the database's lock: many entrants following their
        submissions never queue every page behind their hashes."""
        if not token:
            return NOBODY
        if self.guard.is_paused(client):
            return None
        owner = await self.on_store(token_owner, self.competition.store, token)
        known = None if owner is None else owner.token_hash
        matches = self.checked.recalls(token, known)
        if not matches:
            matches = await trio.to_thread.run_sync(token_matches, token, known)
            if matches and known is not None:
                self.checked.remember(token, known)
        return self.guard.verdict(client, owner if matches else None)

    async def upload(self, entry: Entry) -> Response:
        """``POST /api/submissions?language=L``: the body is the archive."""
        request, entrant = entry.request, entry.viewer.entrant
        assert entrant is not None
        limits = self.competition.uploads
        declared = request.headers.get("content-length", "")
        if declared and (not declared.isdigit() or int(declared) > limits.upload_bytes):
            mib = limits.upload_bytes / (1 << 20)
            return problem(413, f"the upload is too large: at most {mib:g} MiB")
        language = request.query_params.get("language", "python")
        refusal = self.gate.enter(entrant.id)
        if refusal is not None:
            return problem(429, refusal)
        try:
            with trio.move_on_after(upload_seconds(limits.upload_bytes)) as timer:
                body = await _body(request, limits.upload_bytes)
            if timer.cancelled_caught:
                return problem(408, "the upload arrived too slowly")
            number = await self.on_store(self.competition.submit, entrant, language, [body])
        except UploadRefused as refused:
            status = 413 if "too large" in str(refused) else 422
            return problem(status, str(refused))
        finally:
            self.gate.leave(entrant.id)
        self.competition.queued(number)
        return json_response(Created(number, f"/api/submissions/{number}"), 202)

    async def list_submissions(self, entry: Entry) -> Response:
        """``GET /api/submissions``: the viewer's own."""
        found = await self.on_store(submissions_for, self.competition.store, entry.viewer)
        return json_response([_answer(submission) for submission in found])

    async def _submission(self, entry: Entry) -> Submission | None:
        number = entry.request.path_params["number"]
        return await self.on_store(submission_for, self.competition.store, entry.viewer, number)

    async def one_submission(self, entry: Entry) -> Response | Refusal:
        """``GET /api/submissions/{number}``"""
        found = await self._submission(entry)
        return Refusal.NOT_FOUND if found is None else json_response(_answer(found))

    async def build_log(self, entry: Entry) -> Response | Refusal:
        """A submission's build log, as text never a page: its owner's or the
        organiser's."""
        found = await self._submission(entry)
        return Refusal.NOT_FOUND if found is None else text_answer(found.build_log)

    async def bot_log(self, entry: Entry) -> Response | Refusal:
        """What the bot in a game's seat wrote to stderr in it, as text: the seat's
        owner's or the organiser's."""
        number = number_in(entry.request.path_params["number"])
        if number is None:
            return Refusal.NOT_FOUND
        try:
            _, stored = await self.site.api.game(number)
        except BadRequest:
            return Refusal.NOT_FOUND
        game = (stored.key, list(stored.result.players))
        store, logs = self.competition.store, self.competition.place.logs
        seat = entry.request.path_params["seat"]
        text = await self.on_store(bot_log_for, store, entry.viewer, game, seat, logs)
        return Refusal.NOT_FOUND if text is None else text_answer(text)

    async def suspend(self, entry: Entry, *, suspend: bool) -> Response | Refusal:
        """``POST /api/entrants/{name}/suspend?reason=`` and ``.../reinstate``: the
        organiser's alone. A suspended entrant uploads nothing and is signed out of the
        site."""
        store = self.competition.store
        name = entry.request.path_params["name"]
        entrant = await self.on_store(entrant_for, store, entry.viewer, name)
        if entrant is None:
            return Refusal.NOT_FOUND
        reason = entry.request.query_params.get("reason", "suspended by the organiser")
        await self.on_store(
            store.set_suspended, entrant.id, reason[:REASON_CHARS] if suspend else None
        )
        if suspend:
            await self.on_store(self.doors.sessions.close_all_of, entrant.id)
        return json_response({"entrant": entrant.name, "suspended": suspend})

    async def retire(self, entry: Entry) -> Response | Refusal:
        """``POST /api/versions/{name}/retire``: the organiser takes a version out of
        play (not found for a version no entrant submitted)."""
        name = entry.request.path_params["name"]
        version = await self.on_store(version_for, self.competition.store, entry.viewer, name)
        if version is None:
            return Refusal.NOT_FOUND
        try:
            said = await self.competition.retire(name)
        except GoatArenaError as error:
            return problem(409, str(error))
        return json_response({"version": name, "retired": True, "said": said})

    async def me(self, entry: Entry) -> Response:
        """``GET /api/me``: who the token signs in, and their versions."""
        entrant = entry.viewer.entrant
        assert entrant is not None
        await self.on_store(self.competition.reload)  # the ladder's file says what plays
        versions = await self.on_store(versions_for, self.competition.store, entry.viewer)
        return json_response(Me(entrant.name, entrant.organiser, [v.name for v in versions]))


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
