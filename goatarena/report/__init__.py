"""The HTML report of a tournament: one self-contained file, nothing loaded from anywhere.

:func:`build_report` makes the page from stored games or a results database, streaming
the games' summaries twice (:mod:`goatarena.report.data`) and reading whole records only
for the embedded replays and the violations listed one by one: a header with the tournament's
facts, standings per game and overall with interval bars (and how the overall table
pools the games), head-to-head heat maps overall and per game, seat advantage, latency
and violations per bot (each with its detail), each bot's rating against the games it
played, a gauntlet's SPRT course, the games list (filterable by bot and game) and an SVG
replay viewer for each of the four games, its moves in words. Styles, script and
template are package data files under ``assets/``, inlined into the page; the viewer's
markup (``assets/viewer.html``) is also the site's, which includes it in a game's page.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from html import escape
from importlib.resources import files
from pathlib import Path
from typing import Any

import msgspec

from goatarena.errors import ConfigError, IllegalAction
from goatarena.games import GAMES
from goatarena.ratings.standings import OVERALL
from goatarena.referee.records import MatchResult
from goatarena.render.style import SEAT_COLOURS
from goatarena.report import charts, data, details, html
from goatarena.report.data import SprtCourse
from goatarena.report.facts import Fact, bot_facts, facts_section, plural
from goatarena.report.replays import DEFAULT_REPLAYS, encode_replay
from goatarena.report.source import GameSource, ListSource, StoreSource
from goatarena.store.database import StoredGame
from goatarena.store.whole_file import refuse_kept, write_whole

__all__ = [
    "DEFAULT_REPLAYS",
    "GameSource",
    "SprtCourse",
    "StoreSource",
    "build_report",
    "is_report",
    "report_page",
    "write_report",
]

GENERATOR = b'<meta name="generator" content="goatarena report">'
"""The mark in the head of every report page: a file holding it may be replaced."""
OLD_MARK = b": goatarena report</title>"
"""The end of the title of reports written before the mark existed."""
HEAD_BYTES = 16_384


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
    facts: Sequence[Fact] = (),
    bots: Sequence[Fact] = (),
    sprt: SprtCourse | None = None,
) -> str:
    """The whole report page as one string of HTML, from stored games or a
    :class:`~goatarena.report.source.GameSource` (a results database: its summaries are
    read twice, streamed, and only the full records of the replayed games and of those
    whose violations are listed).

    ``facts`` and ``bots`` fill the header (:mod:`goatarena.report.facts`; the bots
    that played stand in for a missing list); ``sprt`` is a gauntlet's SPRT course.
    """
    source = ListSource(games) if isinstance(games, Sequence) else games
    found = data.read_report_data(tournament, source.summaries, disqualified or {}, replays)
    return report_page(tournament, source, found, facts=facts, bots=bots, sprt=sprt)


def report_page(
    tournament: str,
    source: GameSource,
    found: data.ReportData,
    *,
    facts: Sequence[Fact] = (),
    bots: Sequence[Fact] = (),
    sprt: SprtCourse | None = None,
    folder: str | None = None,
) -> str:
    """The page of what :func:`~goatarena.report.data.read_report_data` found in
    ``source``, whose full records of the chosen games are read here; the paths in
    violations' details are shown relative to ``folder``, the tournament file's
    (:func:`~goatarena.report.details.shown_details`)."""
    standings = found.standings
    order = data.tables_in_order(standings)
    overall = [row.bot for row in standings.standings.get(OVERALL, [])]
    colours = html.bot_colours(overall)
    packed: dict[str, str] = {}
    broken: list[str] = []
    detailed: list[tuple[int, StoredGame]] = []
    read: dict[str, MatchResult] = {}
    for game in source.records(found.replay_keys | set(found.detailed)):
        game = msgspec.structs.replace(game, result=details.shown_details(game.result, folder))
        read[game.key] = game.result
        if game.key in found.detailed:
            detailed.append((found.detailed[game.key], game))
        if game.key not in found.replay_keys:
            continue
        try:
            packed[game.key] = encode_replay(game)
        except IllegalAction as error:
            # A record its engine cannot replay: the page says so rather than failing.
            broken.append(f"{game.key}: {error}")
    game_list = found.game_list
    data.add_details(game_list, read)
    for row in game_list["rows"]:
        row[8] = row[0] in packed
    heat_maps, heat_data = _heat_maps(found, order, overall)
    payload = {
        "tournament": tournament,
        "heat": heat_data,
        "list": game_list,
        "titles": {name: info.title for name, info in GAMES.items()},
        "seatColours": list(SEAT_COLOURS),
    }
    sections = {
        "TITLE": escape(f"{tournament}: goatarena report"),
        "TOURNAMENT": escape(tournament),
        "SUMMARY": escape(_summary(found, len(order) - 1, len(packed), broken)),
        "FACTS": facts_section(facts, bots or bot_facts({}, found.bots), standings.out),
        "STANDINGS": html.standings_section(standings, order, colours),
        "HEATMAP": html.switch_section("heat-table", "table", heat_maps),
        "SEATS": details.seat_advantage_table(standings.seat_advantage),
        "LATENCY": details.latency_table(standings.standings.get(OVERALL, [])),
        "VIOLATIONS": html.violations_table(found.violations)
        + details.violation_list(sorted(detailed), set(packed), found.violation_total),
        "HISTORY": html.switch_section(
            "history-table",
            "table",
            {name: charts.history_plot(found.history.get(name, {}), colours) for name in order},
            css="plot",
        ),
        "SPRT": _sprt_section(sprt),
        "VIEWER": _asset("viewer.html"),  # the site's game page includes it too
    }
    page = _asset("template.html")
    for name, value in sections.items():
        page = page.replace(f"<!--{name}-->", value)
    # Data and code go in last so that nothing in them is taken for a placeholder.
    page = page.replace("/*CSS*/", html.seat_colour_css() + _asset("report.css"))
    page = page.replace("<!--DATA-->", _script_json(payload))
    page = page.replace("<!--REPLAYS-->", _script_json(packed))
    return page.replace("/*SCRIPT*/", _asset("report.js"))


def _summary(found: data.ReportData, kinds: int, replays: int, broken: Sequence[str]) -> str:
    """The line under the title: how much the page holds."""
    line = (
        f"{plural(found.games, 'game')}, {plural(len(found.bots), 'bot')},"
        f" {plural(kinds, 'game type')}; {plural(replays, 'replay')} embedded"
    )
    if broken:
        line += f"; {len(broken)} could not be replayed ({'; '.join(broken[:3])})"
    listed = len(found.game_list["rows"])
    if listed < found.games:
        line += f"; the list shows {listed} of the games (goatarena list shows them all)"
    return line


def _heat_maps(
    found: data.ReportData, order: Sequence[str], overall: Sequence[str]
) -> tuple[dict[str, str], dict[str, dict[str, list[Any]]]]:
    """The head-to-head heat map overall and per game, the bots in overall order, and the
    data the page draws the large ones from."""
    maps, drawn = {}, {}
    for name in order:
        cells = found.cross.get(name, {})
        present = {a for a, _ in cells}
        bots = [bot for bot in overall if bot in present] or sorted(present)
        shown, note = html.heat_bots(bots)
        maps[name] = (
            html.heat_map(shown, cells, name)
            + note
            + html.game_pairs_table(found.pairs.get(name, {}), bots)
        )
        table = html.heat_data(shown, cells)
        if table is not None:
            drawn[name] = table
    return maps, drawn


def _sprt_section(course: SprtCourse | None) -> str:
    if course is None:
        return ""
    verdict = {"H1": "accepted H1", "H0": "accepted H0"}.get(course.verdict, "still running")
    last = course.points[-1] if course.points else (0, 0.0)
    return (
        '<section id="sprt"><h2>SPRT: challenger against baseline</h2>'
        f'<p class="note">{escape(course.challenger)} against {escape(course.baseline)}:'
        f" log-likelihood ratio {last[1]:.2f} after {plural(last[0], 'pair')} of games"
        f" (bounds {course.lower:.2f} and {course.upper:.2f}); {verdict}. A pair is a deal"
        " played in both seatings.</p>"
        f"{charts.sprt_plot(course)}</section>"
    )


def write_report(path: Path, page: str, *, keep: Sequence[Path] = (), force: bool = False) -> None:
    """Write the page whole or not at all (see :mod:`goatarena.store.whole_file`), making its
    folder if need be; never over one of the files ``keep``, and over an existing file
    that is not a goatarena report only with ``force`` (a mistyped ``-o`` must not
    replace someone's notes or a results database)."""
    refuse_kept(path, keep)
    if not force and not is_report(path):
        raise ConfigError(
            f"cannot write {path}: it exists and is not a goatarena report;"
            " pass --force to replace it"
        )
    folder = path.parent if str(path.parent) else Path(".")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ConfigError(f"cannot write {path}: {error.strerror or error}") from None
    write_whole(path, [page], keep=keep)


def is_report(path: Path) -> bool:
    """Whether writing a report to ``path`` replaces nothing of value: no file there, an
    empty one, something that is not a regular file (``/dev/stdout``), or a goatarena
    report (its head has the generator mark)."""
    try:
        # stat before open: opening a named pipe to read would wait for a writer
        if not stat.S_ISREG(os.stat(path).st_mode):
            return True
        with path.open("rb") as existing:
            head = existing.read(HEAD_BYTES)
    except OSError:
        return True  # no file there; or the write itself says why it cannot be done
    return not head or GENERATOR in head or OLD_MARK in head
