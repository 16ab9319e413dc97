"""Tournament formats: what to play, as pure functions from what was played.

- :mod:`.config` — the tournament file (msgspec), its checks and its limits (:mod:`.size`);
- :mod:`.schedule` — the games of a round-robin or gauntlet, in order, and their keys;
- :mod:`.pairing`, :mod:`.grouping`, :mod:`.seating` — tables of k bots (Swiss pairing,
  round-robin groups, seat rotations);
- :mod:`.swiss_rounds` — a Swiss round: the standings before it, its pairing, its games;
- :mod:`.sprt` — the gauntlet's sequential test;
- :mod:`.growth` — which edits of a tournament file keep its stored games.

A new format goes here: its config fields in :mod:`.config`, its choice of tables as a
module of pure functions, and one branch in :mod:`goatarena.running.runner`.

May import: store (to read what was played), ratings, referee's record and settings
types, games, protocol, errors. Never the running package or the command line.
"""
