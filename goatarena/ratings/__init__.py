"""Ratings and standings: from finished games to a table with intervals.

- :mod:`.tally` — the pairwise results of games counted one at a time (NumPy arrays whose
  size grows with the pairs, not the games);
- :mod:`.fit` — the Elo fit (Bradley–Terry over the pairs of every table, with seat
  terms) of a tally, and its intervals; :mod:`._newton` its numerics (NumPy, SciPy);
- :mod:`.pair_stats` — two-bot match statistics and points from ranks;
  :mod:`.pentanomial` — two bots' game pairs (a deal in both seat orders) as fastchess
  counts them; :mod:`.clusters` — the deal-adjusted (deal-clustered) intervals;
- :mod:`.points` — the point estimates alone, which Swiss pairing uses;
- :mod:`.graph` — which bots are connected by games, so a fit is defined;
- :mod:`.tiebreaks` — Buchholz and Sonneborn–Berger for Swiss tables;
- :mod:`.standings` — the standings, counted game by game (:class:`StandingsTally`);
  :mod:`.table` their rows and :mod:`.standings_render` their text, JSON and CSV.

May import: games, the referee's record types (:mod:`goatarena.referee.records`), errors.
Never the store, the formats or the runner: they call down into this package.
"""

from goatarena.ratings.fit import Rating, RatingFit, fit, fit_ratings
from goatarena.ratings.standings import Standings, compute_standings

__all__ = ["Rating", "RatingFit", "Standings", "compute_standings", "fit", "fit_ratings"]
