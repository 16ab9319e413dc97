"""A ladder's matchmaking state: who is active, the games so far, the next table.

:class:`Matchmaker` holds the bots and their quick estimates (:mod:`.estimate`) and
hands out tables through the pure :func:`~.matchmaking.choose_table`, as the
:class:`~.matchmaking.Field` it reads. Its work is kept small per call, so that it can
run on the event loop of a ladder of a thousand bots: the summaries the rule needs
(fewest games, mean games) are kept up to date as games come in, each
recorded game refines the estimates of a few bots (a whole sweep over the ladder every
quarter of its size in games), and the plan of open pairs is remade once per sweep.
Built from the same stored games in the same order with the same seed, it makes the
same choices.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from goatarena.formats.ladder.estimate import QuickRatings
from goatarena.formats.ladder.matchmaking import (
    Contender,
    MatchRules,
    PairPlan,
    TableChoice,
    choose_table,
    plan_pairs,
)

REFINED_PER_GAME = 4
"""Bots whose estimate one recorded game refines (one Newton step each)."""


class Matchmaker:
    """The next tables of one ladder game: ``players`` seats, master ``seed``."""

    def __init__(self, *, players: int, seed: int, rules: MatchRules | None = None) -> None:
        self.players = players
        self.seed = seed
        self.rules = rules or MatchRules()
        self.ratings = QuickRatings()
        self.pending: Counter[str] = Counter()
        """Games chosen but not recorded yet, per bot (a table is one game per rotation)."""
        self.index = 0
        """How many tables were chosen: the next table's index."""
        self._active: list[str] = []
        self._count: dict[str, int] = {}
        self._total = 0
        self._heap: list[tuple[int, str]] = []
        self._plan: PairPlan | None = None
        self._cursor = 0

    @property
    def active(self) -> list[str]:
        """The active bots, sorted."""
        return self._active

    # --- the Field the rule reads --------------------------------------------------------

    def __len__(self) -> int:
        return len(self._active)

    def names(self) -> Sequence[str]:
        """The active bots, sorted."""
        return self._active

    def contender(self, name: str) -> Contender:
        """One active bot: its games (with those in flight) and its estimate."""
        return Contender(name, self._count[name], self.ratings.elo(name), self.ratings.stderr(name))

    def fewest(self) -> Contender:
        """The active bot with the fewest games (the first name among equals)."""
        while True:
            games, name = self._heap[0]
            if self._count.get(name) == games:
                return self.contender(name)
            heapq.heappop(self._heap)  # stale: the bot played since, or left

    def mean_games(self) -> float:
        """The mean games of the active bots (those in flight counted)."""
        return self._total / len(self._active) if self._active else 0.0

    def _set_count(self, name: str, games: int) -> None:
        if name in self._count:
            self._total += games - self._count[name]
            self._count[name] = games
            heapq.heappush(self._heap, (games, name))

    # --- changes -------------------------------------------------------------------------

    def add(self, name: str) -> None:
        """Make ``name`` active (it keeps any games it has)."""
        if name in self._count:
            return
        self.ratings.add_bot(name)
        self._active.append(name)
        self._active.sort()
        games = self.ratings.games[name] + self.pending[name]
        self._count[name] = games
        self._total += games
        heapq.heappush(self._heap, (games, name))
        self._plan = None

    def retire(self, name: str) -> None:
        """Take ``name`` out of the tables to come; its games stay in the estimates."""
        if name not in self._count:
            return
        self._active.remove(name)
        self._total -= self._count.pop(name)
        self._plan = None

    def record(self, ranks: Mapping[str, int], *, chosen_here: bool = True) -> None:
        """Count one finished game (bot -> rank); ``chosen_here``: it was handed out by
        :meth:`next_table` (so it leaves the games in flight)."""
        self.ratings.add_game(ranks)
        for name in ranks:
            if chosen_here and self.pending[name] > 0:
                self.pending[name] -= 1
            else:
                self._set_count(name, self._count.get(name, 0) + 1)
        self._refine()

    def abandon(self, bots: Iterable[str], games: int = 1) -> None:
        """Forget ``games`` in flight of each of ``bots`` that will never be recorded."""
        for name in bots:
            dropped = min(games, self.pending[name])
            self.pending[name] -= dropped
            self._set_count(name, self._count.get(name, 0) - dropped)

    def _refine(self) -> None:
        """Sweep the next few bots: the whole ladder once per ``len/4`` games recorded."""
        names = self.ratings.names()
        if not names:
            return
        start = self._cursor % len(names)
        batch = names[start : start + REFINED_PER_GAME]
        self.ratings.refresh(sweeps=1, names=batch)
        self._cursor = start + len(batch)
        if self._cursor >= len(names):
            self._cursor = 0
            self._plan = None  # a sweep is complete: the order of open pairs is remade

    def contenders(self) -> list[Contender]:
        """The active bots as the matchmaker sees them now."""
        return [self.contender(name) for name in self._active]

    def plan_due(self) -> bool:
        """Whether the plan of open pairs is to be remade before the next table."""
        return self._plan is None and len(self._active) >= self.players

    def set_plan(self, plan: PairPlan) -> None:
        """Use ``plan`` (from :func:`plan_pairs` over :meth:`contenders`, made off the
        event loop: at a thousand bots it takes a tenth of a second)."""
        self._plan = plan if len(plan.order) == len(self._active) else None

    def next_table(self) -> TableChoice | None:
        """Choose the next table (its games are in flight until recorded), or None when
        too few bots are active."""
        if len(self._active) < self.players:
            return None
        if self._plan is None:
            self._plan = plan_pairs(self.contenders(), self.rules)
        choice = choose_table(
            self,
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
                self._set_count(name, self._count[name] + self.players)
        return choice
