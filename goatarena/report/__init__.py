"""The HTML report of a tournament: one self-contained file, nothing loaded from anywhere.

:func:`build_report` makes the page from stored games: standings per game and overall
with interval bars, the head-to-head heat map, violations by bot and cause, each bot's
rating against the games it played, the games list (filterable by bot and game) and an
SVG replay viewer for each of the four games. Styles, script and template are package
data files under ``assets/``, inlined into the page.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from importlib.resources import files
from pathlib import Path

import msgspec

from goatarena.errors import ConfigError, IllegalAction
from goatarena.games import GAMES
from goatarena.ratings.standings import OVERALL
from goatarena.render.style import SEAT_COLOURS
from goatarena.report import data, html
from goatarena.report.replays import DEFAULT_REPLAYS, encode_replay
from goatarena.report.source import GameSource, ListSource, StoreSource
from goatarena.store.database import StoredGame
from goatarena.store.whole_file import write_whole

__all__ = ["DEFAULT_REPLAYS", "GameSource", "StoreSource", "build_report", "write_report"]


def _asset(name: str) -> str:
    return (files("goatarena.report") / "assets" / name).read_text(encoding="utf-8")


def _script_json(value: object) -> str:
    """JSON safe inside a <script> element (no "</" can close it)."""
    return msgspec.json.encode(value).decode().replace("</", "<\\/")


def build_report(
    tournament: str,
    games: Sequence[StoredGame] | GameSource,
    *,
    disqualified: Mapping[str, str] | None = None,
    replays: int = DEFAULT_REPLAYS,
) -> str:
    """The whole report page as one string of HTML, from stored games or a
    :class:`~goatarena.report.source.GameSource` (a results database: its summaries are
    read twice and only the replayed games' full records once)."""
    source = ListSource(games) if isinstance(games, Sequence) else games
    found = data.read_report_data(tournament, source.summaries, disqualified or {}, replays)
    standings = found.standings
    order = data.tables_in_order(standings)
    overall = [row.bot for row in standings.standings.get(OVERALL, [])]
    colours = html.bot_colours(overall)
    packed: dict[str, str] = {}
    broken: list[str] = []
    for game in source.records(found.replay_keys):
        try:
            packed[game.key] = encode_replay(game)
        except IllegalAction as error:
            # A record its engine cannot replay: the page says so rather than failing.
            broken.append(f"{game.key}: {error}")
    game_list = found.game_list
    for row in game_list["rows"]:
        row[-1] = row[0] in packed
    listed = len(game_list["rows"])
    payload = {
        "tournament": tournament,
        "list": game_list,
        "titles": {name: info.title for name, info in GAMES.items()},
        "seatColours": list(SEAT_COLOURS),
    }
    sections = {
        "TITLE": escape(f"{tournament}: goatarena report"),
        "TOURNAMENT": escape(tournament),
        "SUMMARY": escape(
            f"{found.games} games, {len(found.bots)} bots, {len(order) - 1} game types;"
            f" {len(packed)} replays embedded"
            + (f"; {len(broken)} could not be replayed ({'; '.join(broken[:3])})" if broken else "")
            + (
                f"; the list shows {listed} of the games (goatarena list shows them all)"
                if listed < found.games
                else ""
            )
        ),
        "STANDINGS": html.standings_section(standings, order, colours),
        "HEATMAP": html.heat_map(overall or found.bots, found.cross),
        "VIOLATIONS": html.violations_table(found.violations),
        "HISTORY": html.history_section(
            {name: found.history.get(name, {}) for name in order}, colours
        ),
    }
    page = _asset("template.html")
    for name, value in sections.items():
        page = page.replace(f"<!--{name}-->", value)
    # Data and code go in last so that nothing in them is taken for a placeholder.
    page = page.replace("/*CSS*/", html.seat_colour_css() + _asset("report.css"))
    page = page.replace("<!--DATA-->", _script_json(payload))
    page = page.replace("<!--REPLAYS-->", _script_json(packed))
    return page.replace("/*SCRIPT*/", _asset("report.js"))


def write_report(path: Path, page: str, *, keep: Sequence[Path] = ()) -> None:
    """Write the page whole or not at all (see :mod:`goatarena.store.whole_file`), making its
    folder if need be; never over one of the files ``keep``."""
    folder = path.parent if str(path.parent) else Path(".")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(f"cannot write {path}: {error.strerror or error}") from None
    write_whole(path, [page], keep=keep)
