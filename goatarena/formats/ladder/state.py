"""A ladder's matchmaking state: who is active, the games so far, the next table.

:class:`Matchmaker` holds the bots and their quick estimates (:mod:`.estimate`) and
hands out tables through the pure :func:`~.matchmaking.choose_table`. Its work is kept
small per call, so that it can run on the event loop: each recorded game refines the
estimates of a few bots (a whole sweep over the ladder every quarter of its size in
games) and the plan of open pairs is remade once per sweep. Built from the same stored
games in the same order with the same seed, it makes the same choices.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from goatarena.formats.ladder.estimate import QuickRatings
from goatarena.formats.ladder.matchmaking import (
    Contender,
    MatchRules,
    PairPlan,
    TableChoice,
    choose_table,
    plan_pairs,
)


class Matchmaker:
    """The next tables of one ladder game: ``players`` seats, master ``seed``."""

    def __init__(self, *, players: int, seed: int, rules: MatchRules | None = None) -> None:
        self.players = players
        self.seed = seed
        self.rules = rules or MatchRules()
        self.ratings = QuickRatings()
        self.active: list[str] = []
        self.pending: Counter[str] = Counter()
        """Games chosen but not recorded yet, per bot (a table is one game per rotation)."""
        self.index = 0
        """How many tables were chosen: the next table's index."""
        self._plan: PairPlan | None = None
        self._cursor = 0
        self._recorded = 0

    def add(self, name: str) -> None:
        """Make ``name`` active (it keeps any games it has)."""
        if name not in self.active:
            self.active.append(name)
            self.active.sort()
            self.ratings.add_bot(name)
            self._plan = None

    def retire(self, name: str) -> None:
        """Take ``name`` out of the tables to come; its games stay in the estimates."""
        if name in self.active:
            self.active.remove(name)
            self._plan = None

    def record(self, ranks: Mapping[str, int], *, chosen_here: bool = True) -> None:
        """Count one finished game (bot -> rank); ``chosen_here``: it was handed out by
        :meth:`next_table` (so it leaves the games in flight)."""
        self.ratings.add_game(ranks)
        if chosen_here:
            for name in ranks:
                if self.pending[name] > 0:
                    self.pending[name] -= 1
        self._recorded += 1
        self._refine()

    def abandon(self, bots: Iterable[str], games: int = 1) -> None:
        """Forget ``games`` in flight of each of ``bots`` that will never be recorded."""
        for name in bots:
            self.pending[name] = max(0, self.pending[name] - games)

    def _refine(self) -> None:
        """Sweep the next few bots: the whole ladder once per ``len/4`` games recorded."""
        names = self.ratings.names()
        if not names:
            return
        chunk = 4
        start = self._cursor % len(names)
        batch = names[start : start + chunk]
        self.ratings.refresh(sweeps=1, names=batch)
        self._cursor = start + len(batch)
        if self._cursor >= len(names):
            self._cursor = 0
            self._plan = None  # a sweep is complete: the order of open pairs is remade

    def contenders(self) -> list[Contender]:
        """The active bots as the matchmaker sees them now."""
        return [
            Contender(
                name,
                self.ratings.games[name] + self.pending[name],
                self.ratings.elo(name),
                self.ratings.stderr(name),
            )
            for name in self.active
        ]

    def next_table(self) -> TableChoice | None:
        """Choose the next table (its games are in flight until recorded), or None when
        too few bots are active."""
        contenders = self.contenders()
        if len(contenders) < self.players:
            return None
        if self._plan is None:
            self._plan = plan_pairs(contenders, self.rules)
        choice = choose_table(
            contenders,
            self._plan,
            players=self.players,
            seed=self.seed,
            index=self.index,
            rules=self.rules,
        )
        if choice is not None:
            self.index += 1
            for name in choice.bots:
                self.pending[name] += self.players
        return choice
