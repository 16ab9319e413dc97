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
from collections.abc import Sequence

import msgspec

from goatarena.render.replay import played_for, record_of
from goatarena.render.view import Step, final_view, replay_steps
from goatarena.render.words import describe_action
from goatarena.store.database import StoredGame
from goatarena.store.summary import GameSummary, summary_of

DEFAULT_REPLAYS = 200
"""Replays embedded by default; every game when there are no more games than this."""


def choose_replays(games: Sequence[StoredGame], limit: int) -> list[StoredGame]:
    """Up to ``limit`` games, shared fairly between game types: violations first, then
    games evenly spread over the tournament (see :class:`ReplayChooser`)."""
    chooser = ReplayChooser(limit)
    summaries = [summary_of(game.key, game.round, game.result, 0.0) for game in games]
    for summary in summaries:
        chooser.observe(summary)
    chooser.settle()
    return [game for game, summary in zip(games, summaries, strict=True) if chooser.pick(summary)]


class ReplayChooser:
    """The games to replay, chosen in two passes over the summaries, in finishing order.

    All games when there are no more than ``limit``. Otherwise each game type gets its
    share of ``limit``: up to half of it its first games with a forfeit, the rest spread
    evenly over its other games. The first pass (``observe`` each game, then ``settle``)
    counts; the second (``pick`` each game again) says which are chosen. Memory: the
    counts per type and at most ``limit`` keys.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.chosen: set[str] = set()
        self._counts: dict[str, int] = {}
        self._flagged: dict[str, list[str]] = {}
        self._spread: dict[str, set[int]] = {}
        self._seen: dict[str, int] = {}
        self._all = False

    def observe(self, summary: GameSummary) -> None:
        """First pass: count one game."""
        kind = summary.game
        self._counts[kind] = self._counts.get(kind, 0) + 1
        flagged = self._flagged.setdefault(kind, [])
        if any(summary.forfeits) and len(flagged) <= self.limit // 2:
            flagged.append(summary.key)

    def settle(self) -> None:
        """Between the passes: each type's share, its flagged games, its spread."""
        self._all = sum(self._counts.values()) <= self.limit
        types = len(self._counts)
        for index, (kind, count) in enumerate(self._counts.items()):
            share = self.limit // types + (index < self.limit % types)
            flagged = self._flagged[kind][: share // 2]
            self._flagged[kind] = flagged
            rest = count - len(flagged)
            wanted = min(share - len(flagged), rest)
            self._spread[kind] = {i * rest // wanted for i in range(wanted)} if wanted else set()
            self.chosen.update(flagged)

    def pick(self, summary: GameSummary) -> bool:
        """Second pass: whether this game is replayed."""
        if self._all:
            self.chosen.add(summary.key)
            return True
        if summary.key in self.chosen:
            return True
        kind = summary.game
        position = self._seen.get(kind, 0)
        self._seen[kind] = position + 1
        if position in self._spread.get(kind, ()):
            self.chosen.add(summary.key)
            return True
        return False


def encode_replay(game: StoredGame) -> str:
    """One game's replay as base64 of gzipped JSON: ``{"game", "players", "steps", "end",
    "notes"}``.

    A step is ``[actor, action, shown, view, words, shown words]``: ``shown``, what the
    others learnt of the action, and its words are null when it is the action itself.
    ``notes`` holds, by decision number, the note on each decision no bot chose (played
    for a forfeited seat, or a random move for a strike), as ``goatarena replay`` shows it.
    """
    result = game.result
    record = record_of(result)
    # Replayed whole first: a record the engine rejects raises before any of its actions
    # is described (a describer reads only legal actions).
    replayed = list(replay_steps(record))
    steps = [_packed_step(result.game, step) for step in replayed]
    payload = {
        "key": game.key,
        "game": result.game,
        "players": result.players,
        "ranks": result.ranks,
        "scores": result.scores,
        "steps": steps,
        "end": final_view(record),
        "notes": {number: note.strip() for number, note in played_for(result).items()},
    }
    packed = gzip.compress(msgspec.json.encode(payload), compresslevel=9, mtime=0)
    return base64.b64encode(packed).decode("ascii")


def _packed_step(game: str, step: Step) -> list[object]:
    words = describe_action(game, step.view, step.actor, step.action)
    if step.shown == step.action:
        return [step.actor, step.action, None, step.view, words, None]
    shown_words = describe_action(game, step.view, step.actor, step.shown)
    return [step.actor, step.action, step.shown, step.view, words, shown_words]
