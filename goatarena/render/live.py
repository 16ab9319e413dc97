"""A game followed live: the board after every decision, written to a stream.

:class:`LiveBoard` is a :data:`~goatarena.referee.match.Watcher`: the referee awaits it
after each decision, between requests, so neither drawing nor the pause counts against
any bot's clock. On a terminal each frame replaces the last (the screen is cleared);
elsewhere frames follow each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

import msgspec
import trio

from goatarena.games import Action, State
from goatarena.render.style import Style
from goatarena.render.text import render_board
from goatarena.render.view import View, table_view
from goatarena.render.words import describe_action

CLEAR = "\x1b[H\x1b[2J"


class LiveBoard:
    """Draws the table after each decision, then waits ``delay_s``."""

    def __init__(
        self,
        game: str,
        names: Sequence[str],
        stream: TextIO,
        *,
        delay_s: float = 0.0,
        colour: bool = False,
        in_place: bool = False,
    ) -> None:
        self.game = game
        self.names = list(names)
        self.stream = stream
        self.delay_s = delay_s
        self.style = Style(colour)
        self.in_place = in_place
        self.shown = 0
        # The table last drawn and after how many decisions: the view the next decision
        # is described from (a describer reads the state before the action).
        self._last: tuple[int, View] | None = None

    def show(self, state: State, caption: str) -> None:
        """Write one frame: ``caption`` and the board of ``state``."""
        view = table_view(state)
        board = render_board(self.game, view, self.style, self.names)
        prefix = CLEAR if self.in_place else ("\n" if self.shown else "")
        self.stream.write(f"{prefix}{caption}\n{board}\n")
        self.stream.flush()
        self.shown += 1
        self._last = (len(state.history), view)

    async def __call__(self, state: State, seat: int, action: Action) -> None:
        """Show the decision just made, in words, and the board after it; then pause."""
        label = self.style.seat(seat, f"seat {seat} {self.names[seat]}")
        number = len(state.history) - 1
        self.show(state, f"> [{number}] {label}: {self._words(state, seat, action)}")
        if self.delay_s > 0:
            await trio.sleep(self.delay_s)

    def _words(self, state: State, seat: int, action: Action) -> str:
        """The decision just made in words, from the table before it: the one drawn last,
        or (when this watcher missed a frame) the game replayed up to it."""
        number = len(state.history) - 1
        if self._last is not None and self._last[0] == number:
            before = self._last[1]
        else:
            record = state.to_record()
            record = msgspec.structs.replace(record, decisions=record.decisions[:-1])
            before = table_view(state.info.replay(record))
        return describe_action(self.game, before, seat, action)
