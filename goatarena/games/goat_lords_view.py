"""Goat Lords: the fields of a game state and what can be read off them.

:class:`HerdView` declares the state's fields and holds everything that only reads them:
who acts, the herds' values, the scores, a seat's observation and the text picture. The
rules that change a state are in :mod:`goatarena.games.goat_lords_moves` and
:class:`goatarena.games.goat_lords.GoatLordsState`, built on this class.
"""

from __future__ import annotations

from itertools import chain
from typing import Any

from goatarena.games.base import Observation, Result, State, ranks_from_keys
from goatarena.games.goat_lords_tables import (
    CARD_IDS,
    CARDS,
    HAND_NAMES,
    KIND_IDS,
    NO_KIND,
    VALUES,
    describe_top,
    hand_names,
    pile_kind,
)

_value = VALUES.__getitem__
_card_id = CARD_IDS.__getitem__


class HerdView(State):
    """The fields of a Goat Lords game and the queries on them.

    Cards are indices into ``CARDS``. A hand is a list of counts per card; a herd is a list
    of piles, bottom (the protected first pile) to top, each a list of cards whose first
    card is a goat exactly when the pile has a kind. The draw pile's top is its last card.
    """

    rounds: int
    """The number of rounds to play, or 0 to play until a total reaches ``TARGET``."""
    hand_size: int
    totals: list[int]
    round_scores: list[list[int]]
    round: int
    """The round being played, from 0."""
    hands: list[list[int]]
    herds: list[list[list[int]]]
    draw: list[int]
    discard: list[int]
    recycled: bool
    """Whether the discard pile was shuffled into a new draw pile this round."""
    turn: int
    """The seat whose turn it is (the attacker during a duel)."""
    duel_target: int
    """The defending seat of the duel in progress, or -1."""
    duel_cards: list[int]
    """The cards played in the duel in progress, the attacker's opening card first."""
    _sizes: list[int]
    _top_slots: list[int]
    _uneven: bool
    _next: tuple[int, ...]
    _others: tuple[tuple[int, ...], ...]

    is_over: bool = False
    """True once the last round is scored (a plain field: playouts read it every decision)."""

    @property
    def over(self) -> bool:
        """The same as :attr:`is_over` (the name this field had first)."""
        return self.is_over

    @over.setter
    def over(self, value: bool) -> None:
        self.is_over = value

    def _to_act(self) -> int | None:
        if self.is_over:
            return None
        if self.duel_target < 0:
            return self.turn
        return self._duel_responder()

    def _duel_responder(self) -> int:
        """The side to answer: the defender after an odd number of duel cards."""
        return self.duel_target if len(self.duel_cards) % 2 else self.turn

    # -- scoring -------------------------------------------------------------------------

    def herd_value(self, seat: int) -> int:
        """The points of every card in ``seat``'s herd: the round score so far."""
        return sum(map(_value, chain.from_iterable(self.herds[seat])))

    def _result(self) -> Result:
        return Result(
            scores=[float(total) for total in self.totals], ranks=ranks_from_keys(self.totals)
        )

    # -- what a seat sees ----------------------------------------------------------------

    def observation(self, seat: int) -> Observation:
        """Own hand, every herd, discard top and size, draw size, hand sizes, duel, totals.

        Built from the fields each time (fresh lists and dicts the caller may keep), with
        the per-card work done by ``map`` over tables rather than in Python loops.
        """
        hand = self.hands[seat]
        key = tuple(hand)
        names = HAND_NAMES.get(key) or hand_names(key)
        herds = self.herds
        discard = self.discard
        return {
            "seat": seat,
            "to_act": self._to_act(),
            "round": self.round + 1,
            "turn": self.turn,
            "hand_size": self.hand_size,
            "hand": list(names),
            "hand_sizes": list(map(sum, self.hands)),
            "herds": [
                [{"kind": KIND_IDS[pile[0]], "cards": list(map(_card_id, pile))} for pile in herd]
                for herd in herds
            ],
            "discard_top": CARD_IDS[discard[-1]] if discard else None,
            "discard_size": len(discard),
            "draw_size": len(self.draw),
            "recycled": self.recycled,
            "duel": self._duel_view(),
            "herd_values": [sum(map(_value, chain.from_iterable(herd))) for herd in herds],
            "totals": list(self.totals),
            "round_scores": list(map(list, self.round_scores)),
        }

    def _duel_view(self) -> dict[str, Any] | None:
        if self.duel_target < 0:
            return None
        kind = pile_kind(self.herds[self.duel_target][-1])
        return {
            "attacker": self.turn,
            "defender": self.duel_target,
            "kind": CARD_IDS[kind] if kind != NO_KIND else None,
            "played": [CARD_IDS[card] for card in self.duel_cards],
            "to_answer": self._duel_responder(),
        }

    def render(self) -> str:
        """Round, piles, every hand and herd, the duel in progress and the totals."""
        lines = [
            f"round {self.round + 1}  turn seat {self.turn}  draw {len(self.draw)}"
            f"  discard {len(self.discard)} (top {describe_top(self.discard)})"
            f"{'  recycled' if self.recycled else ''}"
        ]
        duel = self._duel_view()
        if duel is not None:
            lines.append(
                f"  duel: seat {duel['attacker']} attacks seat {duel['defender']}"
                f" ({duel['kind'] or 'wilds'}), played {duel['played']},"
                f" seat {duel['to_answer']} to answer"
            )
        for seat in range(self.players):
            hand = " ".join(
                CARD_IDS[card] for card in range(len(CARDS)) for _ in range(self.hands[seat][card])
            )
            piles = " | ".join(
                " ".join(CARD_IDS[card] for card in pile) for pile in self.herds[seat]
            )
            lines.append(
                f"  seat {seat}: total {self.totals[seat]}, herd {self.herd_value(seat)}:"
                f" [{piles}]  hand: {hand or '-'}"
            )
        if self.is_over:
            lines.append(f"  game over after {len(self.round_scores)} rounds")
        return "\n".join(lines)
