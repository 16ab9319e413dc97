"""Text pictures of the four games, one renderer per game, from views (never states).

Each renderer is a pure function from a view (:mod:`goatarena.render.view`), a
:class:`~goatarena.render.style.Style` and optional seat names to lines of at most about
80 columns.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from goatarena.render.style import Style
from goatarena.render.text import goat_lords, goat_n_goat, herr_der_ziegen, mountain_goats

Renderer = Callable[[dict[str, Any], Style, Sequence[str] | None], list[str]]

RENDERERS: Mapping[str, Renderer] = {
    "goat-lords": goat_lords.render,
    "goat-n-goat": goat_n_goat.render,
    "herr-der-ziegen": herr_der_ziegen.render,
    "mountain-goats": mountain_goats.render,
}
"""The text renderer of each game, by game name."""


def render_board(
    game: str, view: dict[str, Any], style: Style, names: Sequence[str] | None = None
) -> str:
    """The picture of ``view`` in ``game`` as one string of lines."""
    return "\n".join(line.rstrip() for line in RENDERERS[game](view, style, names))
