"""Pictures of games: views built from the engines' public observations, drawn as text.

:mod:`goatarena.render.view` turns a state (or a stored record replayed through the
engine) into JSON-able views, the whole table or one seat's; :mod:`goatarena.render.text`
draws a view for an 80-column terminal, and :mod:`goatarena.render.words` says each
action in words. The HTML report draws the same views in SVG.
"""

from goatarena.render.style import Style
from goatarena.render.text import render_board
from goatarena.render.view import Step, replay_steps, seat_view, table_view

__all__ = ["Step", "Style", "render_board", "replay_steps", "seat_view", "table_view"]
