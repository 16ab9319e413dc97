"""The JSON API's handlers: thin, each answer a msgspec type of :mod:`.answers`.

The standings come from the follower's cache; a games page from the index and one
query for its summaries; a game from its stored record, replayed for its moves in words.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import AsyncIterator
from typing import Any

import msgspec
import trio
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from goatarena.errors import IllegalAction
from goatarena.games import GAMES
from goatarena.ratings.standings import OVERALL
from goatarena.render.replay import record_of
from goatarena.render.view import replay_steps
from goatarena.render.words import describe_action
from goatarena.report.details import shown_details
from goatarena.store.browsing import ladder_choices_of, record_numbered, summaries_numbered
from goatarena.store.database import Store, StoredGame
from goatarena.store.summary import GameSummary
from goatarena.web.answers import (
    BotAnswer,
    GameAnswer,
    GameRow,
    GamesPage,
    Move,
    Problem,
    StandingsAnswer,
    Tally,
    ViolationDetail,
    encode,
)
from goatarena.web.follow import MAX_LISTENERS, Follower, Readers, game_row
from goatarena.web.index import MEETINGS, PLAYED, POINTS, WINS, Counts, Filters

MAX_LIMIT = 200
DEFAULT_LIMIT = 50
KEEP_GAMES = 256
"""Games' answers kept encoded (a stored game never changes)."""
KEEPALIVE_S = 15.0
"""A comment line on a quiet event stream this often, so proxies keep it open."""


class BadRequest(Exception):
    """A request the API cannot answer: its status and one line saying why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def json_response(value: Any, status: int = 200) -> Response:
    """A JSON answer."""
    return Response(encode(value), status_code=status, media_type="application/json")


def problem(status: int, message: str) -> Response:
    """An error answer of one line."""
    return json_response(Problem(error=message), status)


class Api:
    """The API over one store: the follower's cache and the readers' connections."""

    def __init__(self, follower: Follower, readers: Readers, commands: dict[str, str] | None):
        self.follower = follower
        self.readers = readers
        self.commands = commands
        self._games: OrderedDict[int, GameAnswer] = OrderedDict()
        self._standings: dict[tuple[int, str | None], bytes] = {}

    # -- the answers, as values (the pages use them too) -----------------------------------

    def standings(self, game: str | None) -> StandingsAnswer:
        """The cached standings, of one game type when ``game`` is given."""
        found = self.follower.standings
        if found is None:
            read = self.follower.index.newest
            raise BadRequest(503, f"the standings are being computed ({read} games read)")
        if game is None:
            return found
        if game not in found.standings or game == OVERALL:
            raise BadRequest(404, f"no {game!r} games stored")
        return msgspec.structs.replace(
            found,
            games=self.follower.index.passing_up_to(Filters(game=game), found.stored),
            standings={game: found.standings[game]},
            seat_advantage={game: found.seat_advantage.get(game, [])},
            connected={game: found.connected.get(game, True)},
            groups={game: found.groups[game]} if game in found.groups else {},
        )

    async def games(self, filters: Filters, after: int | None, page: int | None,
                    limit: int) -> GamesPage:  # fmt: skip
        """A page of games that pass ``filters``."""
        numbers, total, following = self.follower.index.page(
            filters, after=after, page=page, limit=limit
        )
        found = await self.readers.run(lambda store: summaries_numbered(store, numbers))
        return GamesPage(
            games=[game_row(n, summary) for n, summary in found],
            total=total,
            next_after=following,
        )

    async def latest(self, filters: Filters, count: int) -> list[GameRow]:
        """The last ``count`` games that pass ``filters``, newest first."""
        numbers = self.follower.index.latest(filters, count)
        found = await self.readers.run(lambda store: summaries_numbered(store, numbers))
        return [game_row(n, summary) for n, summary in reversed(found)]

    async def game(self, number: int, *, in_words: bool = True) -> tuple[GameAnswer, StoredGame]:
        """Game ``number`` with its moves in words (none without ``in_words``: the game's
        page shows them from its replay), and its stored record."""

        def read(
            store: Store,
        ) -> tuple[StoredGame | None, list[tuple[int, GameSummary]], tuple[str, str] | None]:
            summaries = summaries_numbered(store, [number])
            deal = summaries[0][1].deal_key if summaries else ""
            chosen = ladder_choices_of(store, [deal]).get(deal) if summaries else None
            return record_numbered(store, number), summaries, chosen

        stored, summaries, chosen = await self.readers.run(read)  # each time: a cheap, small read
        if stored is None or not summaries:
            raise BadRequest(404, f"no game {number} ({self.follower.index.newest} stored)")
        answer = self._games.get(number)
        if answer is None:
            # The details' paths as the report shows them: no organiser's folder on a page.
            shown = msgspec.structs.replace(
                stored, result=shown_details(stored.result, self.follower.folder)
            )
            answer = await trio.to_thread.run_sync(game_answer, game_row(number, summaries[0][1]),
                                                   shown, in_words)  # fmt: skip
            if chosen is not None:
                answer = msgspec.structs.replace(answer, chosen_because=": ".join(chosen))
            if in_words:  # only a whole answer is kept for the API
                self._games[number] = answer
                while len(self._games) > KEEP_GAMES:
                    self._games.popitem(last=False)
        return answer, stored

    def bot(self, name: str) -> BotAnswer:
        """One bot's page."""
        index = self.follower.index
        standings = self.follower.standings
        with index.lock:
            if name not in index.by_bot:
                raise BadRequest(404, f"no bot {name!r} has played")
            games = len(index.by_bot[name])
            family = name.split("@", 1)[0]
            versions = sorted(bot for bot in index.by_bot if bot.split("@", 1)[0] == family)
            per_game = [_tally(game, c) for game, c in index.per_game.get(name, {}).items()]
        versus = [_tally(rival, c) for rival, c in index.opponents(name)]
        rows = {}
        if standings is not None:
            for table, listed in standings.standings.items():
                for row in listed:
                    if row.bot == name:
                        rows[table] = row
        overall = rows.get(OVERALL)
        return BotAnswer(
            name=name,
            rows=rows,
            games=games,
            per_game=sorted(per_game, key=lambda t: t.name),
            per_opponent=sorted(versus, key=lambda t: (-t.meetings, t.name)),
            violations=dict(overall.violations) if overall else {},
            latency_median_ms=overall.latency_median_ms if overall else None,
            latency_max_ms=overall.latency_max_ms if overall else None,
            disqualified=overall.disqualified if overall else None,
            retired=standings is not None and name in standings.retired,
            command=None if self.commands is None else self.commands.get(name),
            versions=versions if len(versions) > 1 else [],
        )

    # -- the routes ---------------------------------------------------------------------------

    async def standings_route(self, request: Request) -> Response:
        """``GET /api/standings?game=``"""
        game = request.query_params.get("game") or None
        found = self.follower.standings
        key = (-1 if found is None else found.stored, game)
        cached = self._standings.get(key)
        if cached is None:
            cached = encode(self.standings(game))
            if len(self._standings) > 64:
                self._standings.clear()
            self._standings[key] = cached
        return Response(cached, media_type="application/json")

    async def games_route(self, request: Request) -> Response:
        """``GET /api/games?after=&page=&limit=&bot=&game=&violation=``"""
        filters, after, page, limit = games_query(request)
        return json_response(await self.games(filters, after, page, limit))

    async def game_route(self, request: Request) -> Response:
        """``GET /api/games/{number}``"""
        answer, _ = await self.game(number_in(request))
        return json_response(answer)

    async def bot_route(self, request: Request) -> Response:
        """``GET /api/bots/{name}``"""
        return json_response(self.bot(request.path_params["name"]))

    async def events_route(self, request: Request) -> Response:
        """``GET /api/events``: server-sent events (see :mod:`.follow`)."""
        follower = self.follower
        if follower.listeners >= MAX_LISTENERS:
            return problem(503, "too many event streams are open; try again later")

        async def stream() -> AsyncIterator[bytes]:
            # Listening starts here, not in the handler: a generator that never runs
            # never runs its finally either, and would count as open for ever.
            channels = follower.listen()
            if channels is None:
                return
            send, receive = channels
            try:
                yield b"retry: 2000\n\n"
                while True:
                    message = b": still here\n\n"
                    with trio.move_on_after(KEEPALIVE_S):  # never around a yield
                        message = await receive.receive()
                    yield message
            except trio.EndOfChannel:
                return
            finally:
                follower.forget(send)

        return StreamingResponse(
            stream(),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )


def _tally(name: str, counts: Counts) -> Tally:
    return Tally(name, int(counts[PLAYED]), int(counts[WINS]), round(counts[POINTS], 1),
                 int(counts[MEETINGS]))  # fmt: skip


def number_in(request: Request) -> int:
    """The ``{number}`` of a game's route, checked."""
    text = request.path_params["number"]
    if not text.isdigit() or len(text) > 12:
        raise BadRequest(404, f"no game {text!r}: a game is named by its number")
    return int(text)


def games_query(request: Request) -> tuple[Filters, int | None, int | None, int]:
    """The filters and paging of a games list, checked."""
    params = request.query_params
    after = _number(params.get("after"), "after")
    page = _number(params.get("page"), "page")
    limit = _number(params.get("limit"), "limit")
    if limit is not None and not 1 <= limit <= MAX_LIMIT:
        raise BadRequest(400, f"limit: from 1 to {MAX_LIMIT}")
    game = params.get("game") or None
    if game is not None and game not in GAMES:
        raise BadRequest(400, f"game: no game {game!r}")
    violation = params.get("violation", "").lower() in ("1", "true", "yes", "on")
    filters = Filters(bot=params.get("bot") or None, game=game, violation=violation)
    return filters, after, page, limit or DEFAULT_LIMIT


def _number(text: str | None, name: str) -> int | None:
    if text is None or text == "":
        return None
    if not text.isdigit() or len(text) > 12:
        raise BadRequest(400, f"{name}: a whole number, 0 or more")
    return int(text)


def game_answer(row: GameRow, stored: StoredGame, in_words: bool = True) -> GameAnswer:
    """A game's answer: its row, violations with details, and its moves in words (none
    without ``in_words``: putting them in words replays the game)."""
    result = stored.result
    listed = result.all_violations or [[v] if v else [] for v in result.violations]
    violations = [
        ViolationDetail(seat, result.players[seat], str(v.cause), v.detail, v.decision,
                        v.penalty)
        for seat, found in enumerate(listed) for v in found
    ]  # fmt: skip
    moves: list[Move] = []
    problem_text = None
    try:
        for step in replay_steps(record_of(result)) if in_words else ():
            words = describe_action(result.game, step.view, step.actor, step.action)
            moves.append(Move(step.number, step.actor, result.players[step.actor], step.action,
                              words))  # fmt: skip
    except IllegalAction as error:
        moves, problem_text = [], f"this record cannot be replayed: {error}"
    return GameAnswer(
        game=row,
        seed=result.seed,
        options=dict(result.options),
        violations=violations,
        moves=moves,
        replay_error=problem_text,
    )
