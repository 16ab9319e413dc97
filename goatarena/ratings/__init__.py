"""Ratings and standings: from finished games to a table with intervals.

- :mod:`.fit` — the Elo fit (Bradley–Terry over the pairs of every table, with seat
  terms), its intervals and the pair statistics;
- :mod:`.points` — points from ranks, and the fit on points that Swiss pairing uses;
- :mod:`.graph` — which bots are connected by games, so a fit is defined;
- :mod:`.tiebreaks` — Buchholz and Sonneborn–Berger for Swiss tables;
- :mod:`.standings` — the standings table (rows, seat terms, cross table) and its text.

May import: games, the referee's record types (:mod:`goatarena.referee.match`), errors.
Never the store, the formats or the runner: they call down into this package.
"""

from goatarena.ratings.fit import Rating, RatingFit, fit, fit_ratings
from goatarena.ratings.standings import Standings, compute_standings

__all__ = ["Rating", "RatingFit", "Standings", "compute_standings", "fit", "fit_ratings"]
