"""The static parts of the report as HTML: standings with interval bars, the head-to-head
heat maps, violations and latency per bot, seat advantage (the charts are in
:mod:`goatarena.report.charts`). Wide tables sit in a ``.wide`` box that scrolls on its
own on a narrow screen, so the page itself never does."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from goatarena.ratings.pentanomial import PairRecord, signed_elo
from goatarena.ratings.standings import Row, Standings
from goatarena.ratings.table import RETIRED
from goatarena.render.style import SEAT_COLOURS
from goatarena.report.facts import out_mark

PALETTE = (
    "#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#17becf",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#393b79", "#637939",
)  # fmt: skip
"""Colours of bots in the plots (by the bot's place in the overall standings)."""

BAR_WIDTH = 160


def bot_colours(bots: Sequence[str]) -> dict[str, str]:
    """A colour per bot, in the given order, cycling through the palette."""
    return {bot: PALETTE[index % len(PALETTE)] for index, bot in enumerate(bots)}


def standings_table(
    title: str,
    rows: Sequence[Row],
    colours: Mapping[str, str],
    out: Mapping[str, str] | None = None,
) -> str:
    """One standings table; each Elo drawn with its 95 % interval on a shared scale; a
    bot that plays no more (``out``: name -> why) marked retired, suspended or
    disqualified, its reason in the mark's tooltip."""
    out = out or {}
    if not rows:
        return ""
    low = min(row.lo for row in rows)
    high = max(row.hi for row in rows)
    span = max(high - low, 1.0)

    def x(value: float) -> float:
        return 6 + (value - low) / span * (BAR_WIDTH - 12)

    lines = [
        f'<div class="wide"><table class="standings" data-table="{escape(title)}">'
        f"<caption>{escape(title)}</caption>",
        "<tr><th>#</th><th class=bot>bot</th><th>elo</th><th class=interval>95% interval</th>"
        "<th class=bar></th><th>games</th><th>wins</th><th>avg rank</th><th>avg score</th>"
        "<th>viol&shy;ations</th></tr>",
    ]
    for place, row in enumerate(rows, 1):
        colour = colours.get(row.bot, "#555")
        bar = (
            f'<svg class="bar" width="{BAR_WIDTH}" height="14" role="img"'
            f' aria-label="{row.lo:.0f} to {row.hi:.0f}">'
            f'<line x1="{x(row.lo):.1f}" x2="{x(row.hi):.1f}" y1="7" y2="7"'
            f' stroke="{colour}" stroke-width="4" stroke-linecap="round" opacity="0.45"/>'
            f'<circle cx="{x(row.elo):.1f}" cy="7" r="4.5" fill="{colour}"/></svg>'
        )
        # Scores of different games are not comparable: the overall table has none.
        score = "-" if row.avg_score is None else f"{row.avg_score:.1f}"
        violations = ", ".join(f"{cause} {count}" for cause, count in row.violations.items())
        if row.disqualified:
            violations = (violations + "; " if violations else "") + "disqualified"
        lines.append(
            f"<tr><td>{place}</td><td class=bot>{escape(row.bot)}{out_mark(out.get(row.bot))}</td>"
            # the interval again under the Elo, shown where its own column is hidden (a phone)
            f'<td class=elo data-elo="{row.elo:.0f}">{row.elo:.0f}'
            f"<small class=range>{row.lo:.0f}–{row.hi:.0f}</small></td>"
            f"<td class=interval>{row.lo:.0f} .. {row.hi:.0f}</td><td class=bar>{bar}</td>"
            f"<td>{row.games}</td>"
            f"<td>{row.wins}</td><td>{row.avg_rank:.2f}</td><td>{score}</td>"
            f"<td>{escape(violations) or '-'}</td></tr>"
        )
    lines.append("</table></div>")
    return "\n".join(lines)


def standings_section(
    standings: Standings, order: Sequence[str], colours: Mapping[str, str]
) -> str:
    """Every standings table, overall first, then the bots that play no more, each
    with its reason."""
    tables = [
        standings_table(name, standings.standings.get(name, []), colours, standings.out)
        for name in order
    ]
    return "\n".join([*tables, out_list(standings)])


def out_list(standings: Standings) -> str:
    """The bots that play no more, marked and with the reason (a failed start's stderr
    kept in its lines); empty if every bot plays."""
    if not standings.out:
        return ""
    items = "".join(
        f"<li><b>{escape(name)}</b>{out_mark(why)}"
        + ("" if name not in standings.no_games else " (no games)")
        + ("" if why == RETIRED else f'<pre class="out-reason">{escape(why)}</pre>')
        + "</li>"
        for name, why in standings.out.items()
    )
    return (
        f'<div class="out-list"><p class="note">Bots that play no more:</p><ul>{items}</ul></div>'
    )


STATIC_HEAT_BOTS = 40
"""Head-to-head tables of up to this many bots are written into the page as HTML; larger
ones travel as two number arrays (:func:`heat_data`) that the page draws into the same
table when it is shown: a 256-bot field's five tables were 32 MB of markup."""


def heat_map(bots: Sequence[str], cells: Mapping[tuple[str, str], list[float]], name: str) -> str:
    """The head-to-head table ``name``: the row bot's share of points against the column
    bot, from red (lost every meeting) through white to green (won every one)."""
    if not bots:
        return "<p>No games yet.</p>"
    if len(bots) > STATIC_HEAT_BOTS:
        return f'<div class="wide"><table class="heat" data-heat="{escape(name)}"></table></div>'
    head = "".join(f"<th><span>{escape(bot)}</span></th>" for bot in bots)
    lines = [f'<div class="wide"><table class="heat"><tr><th></th>{head}</tr>']
    for a in bots:
        tds = []
        for b in bots:
            cell = cells.get((a, b))
            if a == b or cell is None or not cell[1]:
                tds.append('<td class="none"></td>')
                continue
            share = cell[0] / cell[1]
            # 0 -> red, 0.5 -> white, 1 -> green, by lightness so text stays readable.
            hue = 120 if share >= 0.5 else 0
            light = _half_up(100 - abs(share - 0.5) * 2 * 45)
            tds.append(
                f'<td style="background:hsl({hue},65%,{light}%)"'
                f' title="{escape(a)} vs {escape(b)}: {cell[0]:g} of {cell[1]:g}">'
                f"{_half_up(share * 100)}%<small>{cell[1]:g}</small></td>"
            )
        lines.append(f"<tr><th>{escape(a)}</th>{''.join(tds)}</tr>")
    lines.append("</table></div>")
    return "\n".join(lines)


def _half_up(value: float) -> int:
    """``value`` rounded half up, as the page's script rounds (not Python's half to even:
    5 of 8 is 63 %)."""
    return math.floor(value + 0.5)


MAX_HEAT_BOTS = 256
"""The most bots a heat map shows, the top of the standings: its arrays grow with the
square of the bots (10,000 bots would be 100 million cells)."""


def heat_bots(bots: Sequence[str]) -> tuple[list[str], str]:
    """The bots a heat map shows (the first :data:`MAX_HEAT_BOTS` of ``bots``, in
    standings order) and the line that says so when some are left out."""
    if len(bots) <= MAX_HEAT_BOTS:
        return list(bots), ""
    return list(bots[:MAX_HEAT_BOTS]), (
        f'<p class="note">The top {MAX_HEAT_BOTS} of {len(bots)} bots:'
        " <code>goatarena standings --cross --format json</code> has every pair.</p>"
    )


def heat_data(
    bots: Sequence[str], cells: Mapping[tuple[str, str], list[float]]
) -> dict[str, list[Any]] | None:
    """What the page draws a large head-to-head table from (None for a small one, which
    is in the page already): the bots in order and, row by row over every (row, column)
    pair, the row bot's points doubled (ties give halves) and the games, 0 where the two
    never met."""
    if len(bots) <= STATIC_HEAT_BOTS:
        return None
    points, games = [], []
    for a in bots:
        for b in bots:
            cell = cells.get((a, b)) if a != b else None
            points.append(round(2 * cell[0]) if cell else 0)
            games.append(round(cell[1]) if cell else 0)
    return {"bots": list(bots), "points2": points, "games": games}


MAX_PAIR_ROWS = 300
"""The most bot pairs the game-pairs table lists: past that, the pairs among the bots
at the top of the standings (a 256-bot field has 32,640 pairs)."""


def game_pairs_table(records: Mapping[tuple[str, str], PairRecord], order: Sequence[str]) -> str:
    """The two-player head-to-head from game pairs (a deal in both seat orders): pairs by
    the first bot's points, the pentanomial Elo of the first bot over the second with its
    95 % interval (as fastchess computes it) and the games in no complete pair; empty
    without two-player games. With more than :data:`MAX_PAIR_ROWS` pairs, only those of
    the best bots in ``order`` (the standings) are listed, and a line says so."""
    if not records:
        return ""
    shown, note = _top_pairs(records, order), ""
    if len(shown) < len(records):
        note = (
            f'<p class="note">The {len(shown)} pairs among the top of the standings, of'
            f" {len(records)}: <code>goatarena standings --cross --format json</code>"
            " lists every pair.</p>"
        )
    records = shown
    lines = [
        '<div class="wide"><table class="pairs"><caption>Two-player game pairs: pentanomial'
        " Elo of the first bot over the second</caption><tr><th class=bot>bot</th>"
        "<th class=bot>opponent</th><th>pairs</th><th>0</th><th>½</th><th>1</th><th>1½</th>"
        "<th>2</th><th>score</th><th>elo</th><th>95% interval</th><th>LOS</th>"
        "<th>unpaired games</th></tr>"
    ]
    for record in records.values():
        stats = record.stats()
        counts = "".join(f"<td>{count}</td>" for count in record.counts)
        if stats is None:
            figures = "<td>-</td>" * 4
        else:
            margin = f" ± {stats.elo_margin:.1f}" if math.isfinite(stats.elo_margin) else ""
            figures = (
                f"<td>{stats.score:.3f}</td><td>{signed_elo(stats.elo)}{margin}</td>"
                f"<td>{signed_elo(stats.elo_lo)} .. {signed_elo(stats.elo_hi)}</td>"
                f"<td>{stats.los:.1%}</td>"
            )
        lines.append(
            f"<tr><td class=bot>{escape(record.first)}</td><td class=bot>"
            f"{escape(record.second)}</td><td>{sum(record.counts)}</td>{counts}{figures}"
            f"<td>{record.unpaired}</td></tr>"
        )
    lines.append("</table></div>")
    return "\n".join(lines) + note


def _top_pairs(
    records: Mapping[tuple[str, str], PairRecord], order: Sequence[str]
) -> Mapping[tuple[str, str], PairRecord]:
    """The records whose two bots are both among the first bots of ``order``: as many of
    them as keep the pairs within :data:`MAX_PAIR_ROWS`."""
    if len(records) <= MAX_PAIR_ROWS:
        return records
    top = 2
    while (top + 1) * top // 2 <= MAX_PAIR_ROWS and top < len(order):
        top += 1
    best = set(order[:top])
    return {key: r for key, r in records.items() if r.first in best and r.second in best}


def violations_table(table: Mapping[str, Counter[str]]) -> str:
    """Violations by bot (rows) and cause (columns)."""
    causes = sorted({cause for counts in table.values() for cause in counts})
    if not causes:
        return '<p class="clean">No violations: every bot kept to the protocol.</p>'
    head = "".join(f"<th>{escape(cause)}</th>" for cause in causes)
    lines = [
        f'<div class="wide"><table class="violations"><tr><th>bot</th>{head}<th>total</th></tr>'
    ]
    for bot in sorted(table, key=lambda bot: (-sum(table[bot].values()), bot)):
        counts = table[bot]
        if not counts:
            continue
        tds = "".join(f"<td>{counts.get(cause, 0) or ''}</td>" for cause in causes)
        lines.append(
            f"<tr><td class=bot>{escape(bot)}</td>{tds}<td>{sum(counts.values())}</td></tr>"
        )
    lines.append("</table></div>")
    return "\n".join(lines)


def switch_section(
    name: str, label: str, parts: Mapping[str, str], *, css: str = "switched"
) -> str:
    """Several parts of which one shows at a time (the first), chosen by a select
    ``#name``; each part is a ``div.css`` with ``data-table`` and ``data-switch``."""
    options = "".join(f'<option value="{escape(key)}">{escape(key)}</option>' for key in parts)
    shown = "".join(
        f'<div class="{css}" data-switch="{escape(name)}" data-table="{escape(key)}"'
        f"{' hidden' if index else ''}>{html}</div>"
        for index, (key, html) in enumerate(parts.items())
    )
    return (
        f'<label>{escape(label)} <select class="switch" id="{escape(name)}">{options}</select>'
        f"</label>{shown}"
    )


def seat_colour_css() -> str:
    """CSS variables for the seat colours, shared with the terminal's."""
    named = {
        "red": "#d62728",
        "blue": "#1f77b4",
        "green": "#2ca02c",
        "yellow": "#e6a700",
        "magenta": "#b5179e",
        "cyan": "#0f9fb5",
    }
    return (
        ":root{"
        + "".join(f"--seat{index}:{named[colour]};" for index, colour in enumerate(SEAT_COLOURS))
        + "}"
    )
