"""Standings of a stored tournament: the results, entrants and format read from its store."""

from __future__ import annotations

import json

from goatarena.ratings.standings import Standings, compute_standings
from goatarena.store.database import Store, StoredGame


def standings_from_store(
    store: Store,
    *,
    game: str | None = None,
    los: bool = False,
    stored: list[StoredGame] | None = None,
) -> Standings:
    """Standings of every stored game (or one game's), with the Swiss columns for a Swiss.

    The entrants and the format come from the tournament file the store was claimed with;
    a store without one (or with one it cannot read) gives standings of the games alone.
    ``stored`` passes the games when the caller has read them already.
    """
    if stored is None:
        stored = list(store.games(game=game))
    config = _config(store)
    entered = config.get("bots")
    bots = [str(name) for name in entered] if isinstance(entered, dict) else []
    swiss = config.get("format") == "swiss"
    rounds = [(item.key.split("/", 1)[0], item.round) for item in stored] if swiss else None
    return compute_standings(
        store.meta("tournament") or "?",
        [item.result for item in stored],
        disqualified=store.disqualified(),
        bots=bots,
        swiss_rounds=rounds,
        los=los,
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
