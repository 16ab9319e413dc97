"""Tournament formats and the runner: which games to play next, and playing them.

The formats (:mod:`goatarena.tournament.pairing`) are pure functions from standings to
the next tables; the runner drives them.
"""
