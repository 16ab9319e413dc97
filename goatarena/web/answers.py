"""What the JSON API answers: one msgspec type per answer, and the OpenAPI document made
from the same types (so the document cannot drift from what is sent).

Everything here is public: bots' names, results, violations with the referee's detail,
latency. Never a bot's command (unless the organiser asks for them), an absolute path of
the organiser's machine, or a bot's stderr.
"""

from __future__ import annotations

from typing import Any

import msgspec

from goatarena.formats.sprt import SprtStatus
from goatarena.ratings.table import Row, Standings


def encode(value: Any) -> bytes:
    """JSON of an answer, safe anywhere: in a page's script element, on one line of an
    event stream (no raw U+2028/U+2029, which some readers take for line ends), never
    ``<``, ``>`` or ``&`` as such."""
    return (
        msgspec.json.encode(value)
        .replace(b"<", b"\\u003c")
        .replace(b">", b"\\u003e")
        .replace(b"&", b"\\u0026")
        .replace("\u2028".encode(), b"\\u2028")
        .replace("\u2029".encode(), b"\\u2029")
    )


class StandingsAnswer(Standings, frozen=True, kw_only=True):
    """``/api/standings``: the content of ``goatarena standings --format json`` (every
    field of :class:`~goatarena.ratings.table.Standings`), with ``sprt`` when the
    tournament is a gauntlet's test, the ladder's ``retired`` versions (left out of the
    tables) and ``stored``, the games stored when the cached standings were fitted (they
    are refitted in the background as games arrive)."""

    sprt: SprtStatus | None = None
    retired: list[str] = []
    stored: int = 0


class SeatResult(msgspec.Struct, frozen=True):
    """One seat of a game: its bot, rank, score, violation causes and answer times."""

    bot: str
    rank: int
    score: float
    violations: list[str]
    forfeit: str | None
    median_ms: float | None
    max_ms: float | None


class GameRow(msgspec.Struct, frozen=True):
    """One game in a list: its number (place in finishing order), schedule key, game
    type, round, seats in seat order, decisions and playing time."""

    number: int
    key: str
    game: str
    round: int
    seats: list[SeatResult]
    decisions: int
    duration_s: float
    finished_at: float


class GamesPage(msgspec.Struct, frozen=True):
    """``/api/games``: a page of games in finishing order. ``next_after`` is the
    ``after`` of the next page (None on the last page); ``total`` counts the games that
    pass the filters."""

    games: list[GameRow]
    total: int
    next_after: int | None


class ViolationDetail(msgspec.Struct, frozen=True):
    """One violation as the referee recorded it: who, what, at which decision, why."""

    seat: int
    bot: str
    cause: str
    detail: str
    decision: int
    penalty: str


class Move(msgspec.Struct, frozen=True):
    """One decision: the seat, its bot, the action as the protocol spells it, and in words."""

    number: int
    seat: int
    bot: str
    action: Any
    words: str


class GameAnswer(msgspec.Struct, frozen=True):
    """``/api/games/{number}``: the game's row, its options and seed, every violation
    with its detail, and its moves in words (empty with ``replay_error`` when the record
    cannot be replayed by this version's engine)."""

    game: GameRow
    seed: int
    options: dict[str, Any]
    violations: list[ViolationDetail]
    moves: list[Move]
    replay_error: str | None = None
    chosen_because: str | None = None
    """Why a ladder chose the game's deal (its rule: the reason); None for other formats."""


class Tally(msgspec.Struct, frozen=True):
    """Games, wins (rank 1), points (1 per opponent finished ahead of, ½ per tie) and
    meetings counted against something: a game type or an opponent."""

    name: str
    games: int
    wins: int
    points: float
    meetings: int


class BotAnswer(msgspec.Struct, frozen=True):
    """``/api/bots/{name}``: a bot's rows in the standings (overall and per game), its
    results per game type and per opponent, its violations by cause, its answer times,
    and (only when the organiser serves them) its command."""

    name: str
    rows: dict[str, Row]
    games: int
    per_game: list[Tally]
    per_opponent: list[Tally]
    violations: dict[str, int]
    latency_median_ms: float | None
    latency_max_ms: float | None
    disqualified: str | None
    retired: bool
    command: str | None = None
    versions: list[str] = []
    """Every version of the bot that played (a ladder's ``NAME``, ``NAME@2``, ...)."""


class GameEvent(msgspec.Struct, frozen=True, tag="game"):
    """An event of ``/api/events``: a game was stored."""

    game: GameRow


class StandingsEvent(msgspec.Struct, frozen=True, tag="standings"):
    """An event of ``/api/events``: the standings were refitted (fetch them again)."""

    stored: int
    games: int


class Problem(msgspec.Struct, frozen=True):
    """An error answer: what was wrong with the request."""

    error: str


ANSWERS: dict[str, type] = {
    "StandingsAnswer": StandingsAnswer,
    "GamesPage": GamesPage,
    "GameAnswer": GameAnswer,
    "BotAnswer": BotAnswer,
    "GameEvent": GameEvent,
    "StandingsEvent": StandingsEvent,
    "Problem": Problem,
}
"""Every answer type, by the name the OpenAPI document gives it."""

_QUERY = {
    "game": ("only this game type", {"type": "string"}),
    "bot": ("only games this bot played", {"type": "string"}),
    "violation": ("only games with a violation", {"type": "boolean"}),
    "after": ("games after this number (keyset paging)", {"type": "integer", "minimum": 0}),
    "limit": ("games per page", {"type": "integer", "minimum": 1, "maximum": 200}),
    "page": ("the page of this number, from 0 (instead of after)", {"type": "integer"}),
}

ROUTES: list[tuple[str, str, str, list[str], str]] = [
    ("/api/standings", "StandingsAnswer", "the standings (cached)", ["game"], "getStandings"),
    ("/api/games", "GamesPage", "a page of games", ["after", "page", "limit", "bot", "game",
                                                    "violation"], "listGames"),
    ("/api/games/{number}", "GameAnswer", "one game with its moves", [], "getGame"),
    ("/api/bots/{name}", "BotAnswer", "one bot", [], "getBot"),
]  # fmt: skip
"""The JSON routes: path, answer type, summary, query parameters, operation id."""


def openapi_document(title: str) -> dict[str, Any]:
    """The OpenAPI 3.1 document of the API, its schemas generated from :data:`ANSWERS`."""
    (_, components) = msgspec.json.schema_components(
        list(ANSWERS.values()), ref_template="#/components/schemas/{name}"
    )
    paths: dict[str, Any] = {}
    for path, answer, summary, query, operation in ROUTES:
        parameters = [
            {"name": name, "in": "query", "required": False, "description": _QUERY[name][0],
             "schema": _QUERY[name][1]}
            for name in query
        ]  # fmt: skip
        for name in ("number", "name"):
            if "{" + name + "}" in path:
                schema = {"type": "integer"} if name == "number" else {"type": "string"}
                parameters.append({"name": name, "in": "path", "required": True, "schema": schema})
        paths[path] = {
            "get": {
                "operationId": operation,
                "summary": summary,
                "parameters": parameters,
                "responses": {
                    "200": _json_response(answer, summary),
                    "400": _json_response("Problem", "a request it cannot answer"),
                    "404": _json_response("Problem", "no such thing"),
                },
            }
        }
    kinds = ("GameEvent", "StandingsEvent")
    events = {"oneOf": [{"$ref": f"#/components/schemas/{kind}"} for kind in kinds]}
    paths["/api/events"] = {
        "get": {
            "operationId": "events",
            "summary": "server-sent events: one per stored game and per standings refit",
            "responses": {
                "200": {
                    "description": "an event stream; each event's data is one of the schemas",
                    "content": {"text/event-stream": {"schema": events}},
                }
            },
        }
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": f"{title}: goatarena", "version": "1"},
        "paths": paths,
        "components": {"schemas": components},
    }


def _json_response(answer: str, description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{answer}"}}},
    }
