"""A running ladder's tables: one matchmaker per game entry, and the deals to play next.

Each game entry of a ladder has its own :class:`~goatarena.formats.ladder.state.Matchmaker`.
On resume they are rebuilt from the stored games in their order, the next table of each
is numbered after the last one chosen, and the deals cut short by a kill come first
(only their missing rotations are played: games are keyed, never stored twice). Then the
entries take turns. The plans of open pairs are remade in a worker thread, so that a
ladder of a thousand bots does not hold up the games' clocks.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterable

import trio

from goatarena.formats.config import TournamentConfig
from goatarena.formats.ladder.deals import deal_key, parse_deal
from goatarena.formats.ladder.matchmaking import MatchRules, TableChoice, default_rules, plan_pairs
from goatarena.formats.ladder.state import Matchmaker
from goatarena.formats.schedule import entry_label
from goatarena.store.database import StoredGame

Deal = tuple[int, int, tuple[str, ...], TableChoice | None]
"""A deal to play: game entry, table number, bots, and the choice (None: one cut short)."""


def rules_of(config: TournamentConfig, players: int) -> MatchRules:
    """The matchmaking rule's settings for tables of ``players``: the ``[ladder]``
    table's where it sets them, else the defaults for that table size."""
    settings = config.ladder
    chosen = {
        name: getattr(settings, name)
        for name in ("min_games", "floor", "explore")
        if getattr(settings, name) is not None
    }
    return dataclasses.replace(default_rules(players), top_k=settings.top_k, **chosen)


class LadderTables:
    """The matchmakers of a ladder's game entries and the order their deals come in."""

    def __init__(self, config: TournamentConfig) -> None:
        self.config = config
        self.matchmakers = [
            Matchmaker(
                players=entry.players, seed=config.seed, rules=rules_of(config, entry.players)
            )
            for entry in config.games
        ]
        self._labels = {entry_label(i, e): i for i, e in enumerate(config.games)}
        self._redo: list[tuple[int, int, tuple[str, ...]]] = []
        self._planning = trio.Lock()
        self._turn = 0

    def rebuild(
        self,
        stored: Iterable[StoredGame],
        choices: dict[str, tuple[str, str]],
        heard: Callable[[int, StoredGame], None],
    ) -> None:
        """Replay the stored ladder games, in their order, to ``heard`` (game entry,
        game), which counts them into the matchmakers; number the next tables after the
        last one chosen and find the deals cut short, to be finished first."""
        per_deal: Counter[str] = Counter()
        deals: dict[str, tuple[int, int, tuple[str, ...]]] = {}
        for game in stored:
            parsed = parse_deal(game.key)
            if parsed is None or parsed[0] not in self._labels:
                continue
            label, table, bots = parsed
            entry = self._labels[label]
            heard(entry, game)
            key = deal_key(entry, self.config.games[entry], table, bots)
            per_deal[key] += 1
            deals[key] = (entry, table, bots)
        for key in choices:
            parsed = parse_deal(key)
            if parsed is not None and parsed[0] in self._labels:
                deals.setdefault(key, (self._labels[parsed[0]], parsed[1], parsed[2]))
        for key, (entry, table, bots) in sorted(deals.items()):
            matchmaker = self.matchmakers[entry]
            matchmaker.index = max(matchmaker.index, table + 1)
            if per_deal[key] < len(bots):
                self._redo.append((entry, table, bots))

    def seat(self, active: Iterable[str], ready: set[str]) -> None:
        """Make the bots of ``active`` that are ``ready`` play; retire the others."""
        playing = set(active)
        for name in sorted(playing & ready):
            for matchmaker in self.matchmakers:
                matchmaker.add(name)
        for matchmaker in self.matchmakers:
            for name in list(matchmaker.active):
                if name not in playing:
                    matchmaker.retire(name)

    async def replan(self) -> None:
        """Remake the plans of open pairs that are due, in a worker thread: at a thousand
        bots a plan takes a tenth of a second, which must not hold up the games' clocks."""
        for matchmaker in self.matchmakers:
            if matchmaker.plan_due():
                async with self._planning:
                    if matchmaker.plan_due():
                        snapshot = matchmaker.contenders()
                        plan = await trio.to_thread.run_sync(plan_pairs, snapshot, matchmaker.rules)
                        matchmaker.set_plan(plan)

    def next_deal(self) -> Deal | None:
        """The next deal: one cut short first, then the matchmakers' in turn (None:
        too few bots are playing)."""
        if self._redo:
            entry, table, bots = self._redo.pop(0)
            return entry, table, bots, None
        count = len(self.matchmakers)
        for step in range(count):
            entry = (self._turn + step) % count
            matchmaker = self.matchmakers[entry]
            table = matchmaker.index
            choice = matchmaker.next_table()
            if choice is not None:
                self._turn = entry + 1
                return entry, table, choice.bots, choice
        return None
