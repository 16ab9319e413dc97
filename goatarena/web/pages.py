"""The site's pages: Jinja2 templates (escaping every value by default) filled from the
same answers the JSON API sends (:mod:`.api`), with the report's styles and its replay
viewer (:mod:`goatarena.report.replays` packs a game, the report's script draws it)."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import trio
from jinja2 import ChoiceLoader, Environment, PackageLoader, PrefixLoader, select_autoescape
from markupsafe import Markup
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from goatarena.errors import IllegalAction
from goatarena.games import GAMES
from goatarena.ratings.standings import OVERALL
from goatarena.report.charts import sprt_plot
from goatarena.report.html import BAR_WIDTH, bot_colours
from goatarena.report.replays import encode_replay
from goatarena.web.api import Api, BadRequest, encode, games_query, number_in
from goatarena.web.index import Filters
from goatarena.web.ladder import is_ladder, read_ladder_state

KEEP_REPLAYS = 256
"""Games' packed replays kept (a stored game never changes)."""
LADDER_GAMES = 50
"""How many of the latest games the ladder's page shows with why each was chosen."""
HEAD_TO_HEAD_BOTS = 40
"""The most bots the head-to-head table shows (the top of the overall standings)."""


def environment() -> Environment:
    """The templates, autoescaped, with the helpers they share."""
    env = Environment(
        # "report/NAME": the report's own files, so the replay viewer's markup is one copy.
        loader=ChoiceLoader(
            [
                PackageLoader("goatarena.web", "templates"),
                PrefixLoader({"report": PackageLoader("goatarena.report", "assets")}),
            ]
        ),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,  # package files never change while serving: no stat per page
    )
    env.filters["json"] = lambda value: Markup(encode(value).decode())  # noqa: S704
    env.filters["title"] = lambda game: GAMES[game].title.split(" (")[0] if game in GAMES else game
    env.globals["bar"] = interval_bar
    return env


def interval_bar(row: Any, low: float, high: float, colour: str) -> Markup:
    """A row's Elo drawn with its 95 % interval on the table's shared scale (numbers only:
    nothing here comes from a bot)."""
    span = max(high - low, 1.0)

    def x(value: float) -> float:
        return 6 + (value - low) / span * (BAR_WIDTH - 12)

    return Markup(  # noqa: S704
        f'<svg class="bar" width="{BAR_WIDTH}" height="14" role="img"'
        f' aria-label="{row.lo:.0f} to {row.hi:.0f}">'
        f'<line x1="{x(row.lo):.1f}" x2="{x(row.hi):.1f}" y1="7" y2="7"'
        f' stroke="{colour}" stroke-width="4" stroke-linecap="round" opacity="0.45"/>'
        f'<circle cx="{x(row.elo):.1f}" cy="7" r="4.5" fill="{colour}"/></svg>'
    )


class Pages:
    """The HTML pages over the API's answers."""

    def __init__(self, api: Api) -> None:
        self.api = api
        self.env = environment()
        self._replays: OrderedDict[int, str | None] = OrderedDict()
        self._tables_html: dict[tuple[int, str | None], Markup] = {}
        self._options: dict[str | None, tuple[list[str], Markup]] = {}
        self._head_to_head: dict[tuple[tuple[str, ...], int], dict[tuple[str, str], Any]] = {}
        self.links: list[tuple[str, str]] = []
        """Links the nav shows after the site's own (a path and its label): the ladder's
        page for a ladder; a competition's site adds its own."""
        if is_ladder(api.follower.config):
            self.links.append(("/ladder", "ladder"))

    def render(self, name: str, status: int = 200, **values: Any) -> HTMLResponse:
        """A page from its template, with what every page shows."""
        follower = self.api.follower
        page = self.env.get_template(name).render(
            tournament=follower.tournament,
            stored=follower.index.newest,
            loaded=follower.loaded,
            games=sorted(GAMES),
            links=self.links,
            **values,
        )
        return HTMLResponse(page, status_code=status)

    def _tables(self, game: str | None) -> dict[str, Any]:
        standings = self.api.follower.standings
        if standings is None:
            return {"standings": None, "tables": []}
        chosen = [game] if game is not None else [OVERALL]
        if game is not None and game not in standings.standings:
            raise BadRequest(404, f"no {game!r} games stored")
        overall = [row.bot for row in standings.standings.get(OVERALL, [])]
        colours = bot_colours(overall)
        tables = []
        for name in chosen:
            rows = standings.standings.get(name, [])
            low = min((row.lo for row in rows), default=0.0)
            high = max((row.hi for row in rows), default=0.0)
            tables.append({"name": name, "rows": rows, "low": low, "high": high})
        return {"standings": standings, "tables": tables, "colours": colours,
                "kinds": [n for n in standings.standings if n != OVERALL]}  # fmt: skip

    def tables_html(self, game: str | None) -> Markup:
        """The standings tables of the leaderboard, rendered once per fit."""
        standings = self.api.follower.standings
        key = (-1 if standings is None else standings.stored, game)
        found = self._tables_html.get(key)
        if found is None:
            template = self.env.get_template("standings_tables.html")
            found = Markup(template.render(game=game, **self._tables(game)))  # noqa: S704
            if len(self._tables_html) > 32:
                self._tables_html.clear()
            self._tables_html[key] = found
        return found

    async def leaderboard(self, request: Request) -> Response:
        """``/``: the standings, overall or of one game (``?game=``), updated live."""
        game = request.query_params.get("game") or None
        standings = self.api.follower.standings
        if game is not None and standings is not None and game not in standings.standings:
            raise BadRequest(404, f"no {game!r} games stored")
        recent = await self.api.latest(Filters(), 10)
        kinds = [] if standings is None else [n for n in standings.standings if n != OVERALL]
        return self.render("leaderboard.html", game=game, recent=recent, kinds=kinds,
                           tables_html=self.tables_html(game))  # fmt: skip

    async def standings_fragment(self, request: Request) -> Response:
        """``/fragments/standings``: the tables alone, which the live page swaps in."""
        return HTMLResponse(self.tables_html(request.query_params.get("game") or None))

    async def games(self, request: Request) -> Response:
        """``/games``: the games, filtered and paged."""
        filters, after, page, limit = games_query(request)
        found = await self.api.games(filters, after, page, limit)
        index = self.api.follower.index
        with index.lock:
            bots = sorted(index.by_bot)
        query = {"bot": filters.bot or "", "game": filters.game or "",
                 "violation": "1" if filters.violation else ""}  # fmt: skip
        last_page = max(0, (found.total - 1) // limit)
        return self.render("games.html", page=found, filters=filters, query=query,
                           bot_options=self._bot_options(bots, filters.bot), limit=limit,
                           last_page=last_page)  # fmt: skip

    def _bot_options(self, bots: list[str], chosen: str | None) -> Markup:
        """The games filter's bot choices, drawn once for each list of bots and choice
        (a page with hundreds of bots otherwise escapes every name on every visit)."""
        found = self._options.get(chosen)
        if found is None or found[0] != bots:
            html = Markup("").join(
                Markup('<option value="{0}"{1}>{0}</option>').format(
                    bot, Markup(" selected") if bot == chosen else ""
                )
                for bot in bots
            )
            if len(self._options) > 64:
                self._options.clear()
            found = self._options[chosen] = (bots, html)
        return found[1]

    async def game(self, request: Request) -> Response:
        """``/games/{number}``: the result, the violations and the replay viewer."""
        number = number_in(request)
        answer, stored = await self.api.game(number, in_words=False)  # the replay has them
        if number not in self._replays:
            try:
                self._replays[number] = await trio.to_thread.run_sync(encode_replay, stored)
            except IllegalAction:
                self._replays[number] = None
            while len(self._replays) > KEEP_REPLAYS:
                self._replays.popitem(last=False)
        packed = self._replays[number]
        row = answer.game
        causes = [", ".join(seat.violations) or None for seat in row.seats]
        details: dict[int, str] = {}
        for violation in answer.violations:
            details.setdefault(violation.seat, violation.detail)
        listed = [
            row.key, row.round, 0, list(range(len(row.seats))),
            [seat.rank for seat in row.seats], [seat.score for seat in row.seats],
            causes if any(causes) else None, row.decisions, packed is not None,
            [details.get(seat, "") for seat in range(len(row.seats))],
        ]  # fmt: skip
        data = {
            "tournament": self.api.follower.tournament,
            "heat": {},
            "list": {"bots": [seat.bot for seat in row.seats], "games": [row.game],
                     "rows": [listed]},
            "titles": {name: info.title for name, info in GAMES.items()},
        }  # fmt: skip
        replays = {row.key: packed} if packed is not None else {}
        return self.render("game.html", answer=answer, row=row, data=data, replays=replays)

    async def bot(self, request: Request) -> Response:
        """``/bots/{name}``: a bot's standing, results, violations and latency."""
        answer = self.api.bot(request.path_params["name"])
        recent = await self.api.latest(Filters(bot=answer.name), 20)
        return self.render("bot.html", bot=answer, recent=recent,
                           rows=_ordered_rows(answer.rows))  # fmt: skip

    async def head_to_head(self, request: Request) -> Response:
        """``/head-to-head``: each pair of the top bots, the row bot's share of points."""
        standings = self.api.follower.standings
        index = self.api.follower.index
        bots = [row.bot for row in standings.standings.get(OVERALL, [])] if standings else []
        bots = bots[:HEAD_TO_HEAD_BOTS]
        # Counted from the shown bots' games once for each fit of the standings (which
        # chose them), not for each game stored: at most once a second, however fast
        # games arrive.
        key = (tuple(bots), standings.stored if standings else 0)
        if key not in self._head_to_head:
            counted = await trio.to_thread.run_sync(index.head_to_head, bots)
            self._head_to_head = {key: counted}
        cells = self._head_to_head[key]
        grid = [[_heat_cell(cells.get((a, b))) for b in bots] for a in bots]
        return self.render("head_to_head.html", bots=bots, grid=grid)

    async def sprt(self, request: Request) -> Response:
        """``/sprt``: a gauntlet's SPRT course, the report's chart."""
        keeper = self.api.follower.sprt
        if keeper is None:
            raise BadRequest(404, "this tournament has no SPRT")
        with self.api.follower.index.lock:
            course = keeper.course()
        return self.render("sprt.html", course=course, plot=Markup(sprt_plot(course)))  # noqa: S704

    async def ladder(self, request: Request) -> Response:
        """``/ladder``: a ladder's bots with where each stands and why, and why each of
        the latest games was chosen."""
        numbers = list(reversed(self.api.follower.index.latest(Filters(), LADDER_GAMES)))
        state = await self.api.readers.run(lambda store: read_ladder_state(store, numbers))
        if state is None:
            raise BadRequest(404, "this tournament is not a ladder")
        return self.render("ladder.html", state=state)

    def error(self, status: int, message: str) -> HTMLResponse:
        """An error page of one line."""
        return self.render("error.html", status, code=status, message=message)


def _ordered_rows(rows: dict[str, Any]) -> list[tuple[str, Any]]:
    return sorted(rows.items(), key=lambda item: (item[0] != OVERALL, item[0]))


def _heat_cell(cell: tuple[float, int] | None) -> dict[str, Any] | None:
    """A head-to-head cell: share, meetings and its colour (red lost, green won)."""
    if cell is None or not cell[1]:
        return None
    share = cell[0] / cell[1]
    hue = 120 if share >= 0.5 else 0
    light = int(100 - abs(share - 0.5) * 2 * 45 + 0.5)
    return {"share": int(share * 100 + 0.5), "points": cell[0], "meetings": cell[1],
            "colour": f"hsl({hue},65%,{light}%)"}  # fmt: skip
