"""Standings of a stored tournament: the results, entrants and format read from its store.

The games are read as their compact summaries (:meth:`Store.summaries`), streamed into a
:class:`~goatarena.ratings.standings.StandingsTally`: memory for the bots and pairs, not
the games.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable

import msgspec

from goatarena.ratings.standings import Standings, StandingsTally
from goatarena.ratings.table import RETIRED
from goatarena.store.database import Store, StoredGame
from goatarena.store.split_count import count_split
from goatarena.store.summary import GameSummary, summary_of


def standings_from_store(
    store: Store,
    *,
    game: str | None = None,
    los: bool = False,
    stored: list[StoredGame] | None = None,
    tally: StandingsTally | None = None,
    also: Callable[[GameSummary], None] | None = None,
    deals: bool = False,
) -> Standings:
    """Standings of every stored game (or one game's), with the Swiss columns for a Swiss.

    The entrants and the format come from the tournament file the store was claimed with;
    a store without one (or with one it cannot read) gives standings of the games alone.
    ``stored`` passes the games when the caller has read them already; ``tally`` a tally
    to count into (one made with ``cross`` keeps the head-to-head table), and ``also`` is
    shown each game's summary as it is read (an SPRT counting the same games). With
    ``deals`` the summaries are read a second time, at the fitted ratings, for the
    deal-adjusted intervals (``deal_lo``/``deal_hi`` of each row).
    """
    config = _config(store)
    entered = config.get("bots")
    bots = [str(name) for name in entered] if isinstance(entered, dict) else []
    swiss = config.get("format") == "swiss"
    tally = tally or StandingsTally()

    def read() -> Iterable[GameSummary]:
        if stored is None:
            return store.summaries(game=game)
        return (summary_of(item.key, item.round, item.result, 0.0) for item in stored)

    def deal_games() -> Iterable[tuple[str, str, list[str], list[int]]]:
        return ((item.deal_key, item.game, item.players, item.ranks) for item in read())

    if _in_any_order(store, tally, stored, swiss, also):
        count_split(store, tally, count_summary, game=game)
    else:
        for summary in read():
            count_summary(tally, summary, swiss=swiss)
            if also is not None:
                also(summary)
    standings = tally.standings(
        store.meta("tournament") or "?",
        disqualified=store.disqualified(),
        bots=bots,
        swiss=swiss,
        los=los,
        deal_games=deal_games if deals else None,
    )
    return msgspec.structs.replace(standings, out=bots_out(store))


def _in_any_order(
    store: Store,
    tally: StandingsTally,
    stored: list[StoredGame] | None,
    swiss: bool,
    also: Callable[[GameSummary], None] | None,
) -> bool:
    """Whether the games may be counted in any order, and so in two processes
    (:mod:`~goatarena.store.split_count`): read from a store with summaries, with nothing
    that needs every game in order (an SPRT, a Swiss's rounds, the head-to-head's game
    pairs)."""
    if stored is not None or swiss or also is not None or tally.keeps_cross:
        return False
    return store.has_summaries


def count_summary(tally: StandingsTally, summary: GameSummary, *, swiss: bool = False) -> None:
    """Count one stored game into a standings tally (with its Swiss event and round)."""
    tally.add(
        summary.game,
        summary.players,
        summary.ranks,
        summary.scores,
        summary.violations,
        summary.latency,
        (summary.event, summary.round) if swiss else None,
        checked=False,
        key=summary.key,
    )


def _config(store: Store) -> dict[str, object]:
    text = store.meta("config")
    if not text:
        return {}
    try:
        config = json.loads(text)
    except ValueError:
        return {}
    return config if isinstance(config, dict) else {}


TOURNAMENT_FOLDER = "tournament_folder"
"""The metadata key of the tournament file's folder (kept by ``run``): the report shows
the bots' paths relative to it."""


def bots_out(store: Store) -> dict[str, str]:
    """Each bot that plays no more, with why: the stored reason it was disqualified or
    suspended, ``retired`` for a ladder's retired version, or both."""
    out = store.disqualified()
    for name in retired_bots(store):
        out[name] = f"{RETIRED}; {out[name]}" if name in out else RETIRED
    return dict(sorted(out.items()))


def retired_bots(store: Store) -> list[str]:
    """The versions a ladder's file retired (empty for other formats)."""
    config = _config(store)
    ladder = config.get("ladder")
    if config.get("format") != "ladder" or not isinstance(ladder, dict):
        return []
    retired = ladder.get("retired")
    return [str(name) for name in retired] if isinstance(retired, list) else []


def without_bots(standings: Standings, names: list[str]) -> Standings:
    """``standings`` with the rows of ``names`` left out (a ladder's live table)."""
    hidden = set(names)
    tables = {
        table: [row for row in rows if row.bot not in hidden]
        for table, rows in standings.standings.items()
    }
    return msgspec.structs.replace(standings, standings=tables)
