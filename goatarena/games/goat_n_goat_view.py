"""Goat 'n' Goat: the fields of a game state and what can be read off them.

:class:`FlockView` declares the state's fields and holds everything that only reads them:
who acts, penalties and scores, a seat's observation and the text picture. The rules that
change a state are in :mod:`goatarena.games.goat_n_goat_moves` and
:class:`goatarena.games.goat_n_goat.GoatNGoatState`, built on this class.
"""

from __future__ import annotations

from goatarena.games.base import Action, Observation, Result, State, ranks_from_keys
from goatarena.games.goat_n_goat_tables import (
    CODES,
    COLOUR_LETTERS,
    COLOURS,
    FINAL_RUN_OUT,
    OVER,
    Phase,
    codes_of_counts,
    named_by_colour,
    sorted_codes,
)


class FlockView(State):
    """The fields of a Goat 'n' Goat game and the queries on them.

    Hands are counts per card index; flocks are the numbers of their cards, bottom to
    top; penalty piles keep the public old flocks apart from the hidden hand discards.
    Each colour's face-up mountains are kept in ascending order (trades only remove one),
    so the cheapest is the first: whoever sets :attr:`mountains` must keep it so.
    """

    draw: list[int]
    """The draw pile, its top card last."""
    discard: list[int]
    """Traded flocks' cards, the next draw pile once the first one runs out."""
    row: list[int]
    hands: list[list[int]]
    known: list[list[int]]
    """Per seat and card: how many of the hand's cards everybody saw it take."""
    flocks: list[list[list[int]]]
    """Per seat and colour: the numbers of the flock's cards, bottom to top."""
    penalty_public: list[list[int]]
    penalty_hidden: list[list[int]]
    mountains: list[list[int]]
    """Per colour: the face-up mountains' values, ascending."""
    held: list[list[list[int]]]
    """Per seat and colour: the values of the mountains the seat traded for."""
    seat: int
    """The seat whose turn it is."""
    _phase: Phase
    take_count: int
    """The number of cards to take: the number just played."""
    played: list[str]
    """The cards played this turn, by name."""
    run_outs: int
    reshuffled: bool
    """Whether the draw pile was rebuilt from the discard pile."""
    ending: bool
    """Whether the final run-out came: the turn in progress is the last."""

    is_over = False
    """True once no seat has anything left to decide: a plain attribute, not the base
    class's property, since every playout step reads it. It follows :attr:`phase`."""

    @property
    def phase(self) -> Phase:
        """The decision the seat to act must make next (``OVER`` once the game is over).

        Writable like any field (samplers and tests set it); writing it keeps
        :attr:`is_over` in step. The engine's own steps write ``_phase`` directly and set
        ``is_over`` where the game ends.
        """
        return self._phase

    @phase.setter
    def phase(self, value: Phase) -> None:
        self._phase = value
        self.is_over = value is OVER

    def _to_act(self) -> int | None:
        return None if self.is_over else self.seat

    # -- scoring -------------------------------------------------------------------------

    def penalty(self, seat: int) -> int:
        """Cards in the penalty pile of ``seat``."""
        return len(self.penalty_public[seat]) + len(self.penalty_hidden[seat])

    def score(self, seat: int) -> int:
        """Mountain values held minus one per penalty card."""
        return sum(sum(values) for values in self.held[seat]) - self.penalty(seat)

    def _result(self) -> Result:
        scores = [self.score(seat) for seat in range(self.players)]
        keys = [(scores[seat], -self.penalty(seat)) for seat in range(self.players)]
        return Result(scores=[float(score) for score in scores], ranks=ranks_from_keys(keys))

    # -- what a seat sees ----------------------------------------------------------------

    def observation(self, seat: int) -> Observation:
        """Own hand and everything public; other hands and the draw order stay hidden."""
        # Built through map and C-level helpers: the referee asks for one per decision.
        held = [named_by_colour(by_colour) for by_colour in self.held]
        penalties = list(map(len, self.penalty_public))
        hidden = list(map(len, self.penalty_hidden))
        for other, size in enumerate(hidden):
            penalties[other] += size
        scores = [
            sum(green) + sum(blue) + sum(red) - penalties[other]
            for other, (green, blue, red) in enumerate(self.held)
        ]
        return {
            "seat": seat,
            "to_act": None if self.is_over else self.seat,
            "turn": self.seat,
            "phase": self._phase.value,
            "played": list(self.played),
            "take_count": self.take_count,
            "hand": codes_of_counts(self.hands[seat]),
            "row": list(map(CODES.__getitem__, self.row)),
            "flocks": [named_by_colour(by_colour) for by_colour in self.flocks],
            "penalty_sizes": penalties,
            "mountains_held": held,
            "mountains": named_by_colour(self.mountains),
            "hand_sizes": list(map(sum, self.hands)),
            "known_in_hands": list(map(codes_of_counts, self.known)),
            "draw_size": len(self.draw),
            "draw_cards": sorted_codes(self.draw) if self.reshuffled else None,
            "discard": sorted_codes(self.discard),
            "run_outs": self.run_outs,
            "final_run_out": FINAL_RUN_OUT[self.players],
            "ending": self.ending,
            "scores": scores,
        }

    def public_action(self, seat: int, action: Action) -> Action:
        """A hand discard goes face down: the other seats learn only that it happened."""
        if isinstance(action, dict) and "discard" in action:
            return {"discard": None}
        return action

    def render(self) -> str:
        """The row, the supplies and every seat's hand, flocks, penalties and mountains."""
        state = "game over" if self.phase is Phase.OVER else f"seat {self.seat}: {self.phase}"
        if self.phase is Phase.TAKE:
            state += f" {self.take_count} (played {' '.join(self.played)})"
        lines = [
            f"{state}  draw {len(self.draw)}  discard {len(self.discard)}"
            f"  run-outs {self.run_outs}/{FINAL_RUN_OUT[self.players]}"
            + ("  (last turn)" if self.ending else ""),
            f"  row: {' '.join(CODES[card] for card in self.row) or '-'}",
            "  mountains: "
            + "  ".join(
                f"{name} {' '.join(map(str, values)) or '-'}"
                for name, values in zip(COLOURS, self.mountains, strict=True)
            ),
        ]
        for seat in range(self.players):
            flocks = "  ".join(
                f"{name} {''.join(map(str, flock)) or '-'}"
                for name, flock in zip(COLOURS, self.flocks[seat], strict=True)
            )
            held = " ".join(
                f"{COLOUR_LETTERS[c]}{v}" for c in range(len(COLOURS)) for v in self.held[seat][c]
            )
            lines.append(
                f"  seat {seat}: hand {' '.join(codes_of_counts(self.hands[seat])) or '-'}"
                f" | flocks {flocks} | penalty {self.penalty(seat)}"
                f" | mountains {held or '-'} | score {self.score(seat)}"
            )
        return "\n".join(lines)
