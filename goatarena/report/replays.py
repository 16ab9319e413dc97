"""Replays embedded in the report: every step's table view, gzip-compressed and base64.

The views are the engine's own observations (:mod:`goatarena.render.view`), so the
browser draws exactly what the referee saw and never reimplements a rule. A tournament
of thousands of games would make the file too big for every game to carry its replay:
:func:`choose_replays` picks a bounded number, spread over each game type, with the
games that had violations first (the ones authors look at).
"""

from __future__ import annotations

import base64
import gzip
from collections import defaultdict
from collections.abc import Sequence

import msgspec

from goatarena.render.replay import record_of
from goatarena.render.view import final_view, replay_steps
from goatarena.store.database import StoredGame

DEFAULT_REPLAYS = 200
"""Replays embedded by default; every game when there are no more games than this."""


def choose_replays(games: Sequence[StoredGame], limit: int) -> list[StoredGame]:
    """Up to ``limit`` games, shared fairly between game types: violations first, then
    games evenly spread over the tournament."""
    if len(games) <= limit:
        return list(games)
    by_type: dict[str, list[StoredGame]] = defaultdict(list)
    for game in games:
        by_type[game.result.game].append(game)
    chosen: list[StoredGame] = []
    for index, group in enumerate(by_type.values()):
        share = limit // len(by_type) + (index < limit % len(by_type))
        flagged = [g for g in group if any(g.result.violations)][: share // 2]
        rest = [g for g in group if g not in flagged]
        wanted = min(share - len(flagged), len(rest))
        spread = [rest[i * len(rest) // wanted] for i in range(wanted)] if wanted else []
        chosen.extend(flagged + spread)
    keys = {game.key for game in chosen}
    return [game for game in games if game.key in keys]


def encode_replay(game: StoredGame) -> str:
    """One game's replay as base64 of gzipped JSON: ``{"game", "players", "steps", "end"}``.

    A step is ``[actor, action, shown, view]`` (``shown``, what the others learnt of
    the action, is null when it is the action itself).
    """
    result = game.result
    record = record_of(result)
    steps = [
        [step.actor, step.action, None if step.shown == step.action else step.shown, step.view]
        for step in replay_steps(record)
    ]
    payload = {
        "key": game.key,
        "game": result.game,
        "players": result.players,
        "ranks": result.ranks,
        "scores": result.scores,
        "steps": steps,
        "end": final_view(record),
    }
    packed = gzip.compress(msgspec.json.encode(payload), compresslevel=9, mtime=0)
    return base64.b64encode(packed).decode("ascii")
