"""The games for learning tools: a fixed action numbering, observation vectors, a
PettingZoo environment (:mod:`goatarena.envs.pettingzoo`) and OpenSpiel games
(:mod:`goatarena.envs.openspiel`).

The numbering and the vectors need only NumPy; PettingZoo, Gymnasium and OpenSpiel (the
``rl`` extra, ``pip install 'goatarena[rl]'``) are imported only by the modules that wrap
the games for them.
"""

from goatarena.envs.actions import ActionNumbering, numbering

__all__ = ["ActionNumbering", "numbering"]
