"""The report's per-bot details as HTML: latency, every violation with its cause's
detail, seat advantage per game."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

import msgspec

from goatarena.ratings.standings import Row, SeatTerm
from goatarena.referee.policy import Penalty
from goatarena.referee.records import MatchResult, Violation
from goatarena.report.data import MAX_VIOLATIONS_LISTED
from goatarena.report.facts import shown_text
from goatarena.store.database import StoredGame


def latency_table(rows: Sequence[Row]) -> str:
    """Each bot's answer times over its games: the median of its per-game medians and
    the slowest single answer."""
    timed = [row for row in rows if row.latency_median_ms is not None]
    if not timed:
        return '<p class="note">No answer times were recorded.</p>'
    lines = [
        '<div class="wide"><table class="latency"><tr><th class=bot>bot</th>'
        "<th>median ms</th><th>slowest ms</th><th>games</th></tr>"
    ]
    for row in sorted(timed, key=lambda row: (row.latency_median_ms or 0.0, row.bot)):
        lines.append(
            f"<tr><td class=bot>{escape(row.bot)}</td><td>{row.latency_median_ms:.1f}</td>"
            f"<td>{row.latency_max_ms or 0.0:.1f}</td><td>{row.games}</td></tr>"
        )
    lines.append("</table></div>")
    return "\n".join(lines)


def violation_list(games: Sequence[tuple[int, StoredGame]], replayed: set[str], total: int) -> str:
    """Every violation, game by game: who, what, at which decision, the referee's detail
    and the penalty (the first :data:`MAX_VIOLATIONS_LISTED`). ``games`` are the games
    with violations read whole, each with its number in finishing order; ``total`` counts
    the violations of every game."""
    items = [
        (number, stored, seat, violation)
        for number, stored in games
        for seat, listed in enumerate(_all_violations(stored.result))
        for violation in listed
    ]
    if not items:
        return ""
    lines = [
        '<div class="wide"><table class="violation-list"><tr><th>#</th><th>game</th>'
        "<th class=bot>bot</th><th>seat</th><th>cause</th><th>decision</th>"
        "<th class=detail>detail</th><th>penalty</th></tr>"
    ]
    for number, stored, seat, violation in items[:MAX_VIOLATIONS_LISTED]:
        replay = ' class="has-replay"' if stored.key in replayed else ""
        lines.append(
            f'<tr data-key="{escape(stored.key)}"{replay}><td>{number}</td>'
            f"<td class=key>{escape(stored.key)}</td>"
            f"<td class=bot>{escape(stored.result.players[seat])}</td><td>{seat}</td>"
            f"<td>{escape(violation.cause)}</td><td>{violation.decision}</td>"
            f"<td class=detail>{escape(violation.detail)}</td>"
            f"<td>{escape(_penalty_words(violation.penalty))}</td></tr>"
        )
    lines.append("</table></div>")
    more = total - min(len(items), MAX_VIOLATIONS_LISTED)
    if more > 0:
        lines.append(f'<p class="note">and {more} more (goatarena list --violations)</p>')
    return "\n".join(lines)


def seat_advantage_table(terms: Mapping[str, Sequence[SeatTerm]]) -> str:
    """Per game and table size, each seat's fitted advantage over the average seat, Elo
    (with its 95% interval): what moving first is worth."""
    rows = [term for name, listed in terms.items() if name != "overall" for term in listed]
    if not rows:
        return '<p class="note">No seat advantage was fitted.</p>'
    groups: dict[tuple[str, int], list[SeatTerm]] = {}
    for term in rows:
        groups.setdefault((term.game, term.players), []).append(term)
    widest = max(players for _, players in groups)
    head = "".join(f"<th>seat {seat}</th>" for seat in range(widest))
    lines = [f'<div class="wide"><table class="seats"><tr><th class=bot>game</th>{head}</tr>']
    for (game, players), listed in sorted(groups.items()):
        by_seat = {term.seat: term for term in listed}
        cells = "".join(
            f'<td title="{by_seat[s].lo:+.0f} .. {by_seat[s].hi:+.0f}">{by_seat[s].elo:+.0f}'
            f"<small>{by_seat[s].lo:+.0f} .. {by_seat[s].hi:+.0f}</small></td>"
            if s in by_seat
            else "<td></td>"
            for s in range(widest)
        )
        lines.append(f"<tr><td class=bot>{escape(game)} ({players} players)</td>{cells}</tr>")
    lines.append("</table></div>")
    return "\n".join(lines)


def shown_details(result: MatchResult, folder: str | None) -> MatchResult:
    """``result`` with the paths in its violations' details (a crash's last line of
    stderr, say) written relative to ``folder``, the tournament file's, as the report
    shows commands (:func:`~goatarena.report.facts.shown_text`): the organiser's own
    folders stay off the page."""
    if folder is None or not (any(result.violations) or any(result.all_violations)):
        return result

    def shown(violation: Violation) -> Violation:
        return msgspec.structs.replace(violation, detail=shown_text(violation.detail, folder))

    return msgspec.structs.replace(
        result,
        violations=[None if found is None else shown(found) for found in result.violations],
        all_violations=[[shown(found) for found in listed] for listed in result.all_violations],
    )


def _all_violations(result: MatchResult) -> list[list[Violation]]:
    if result.all_violations:
        return [list(listed) for listed in result.all_violations]
    return [[violation] if violation else [] for violation in result.violations]


def _penalty_words(penalty: str) -> str:
    return "forfeit" if penalty == Penalty.FORFEIT.value else "a random move was played"
