"""The results database and everything that reads or writes it.

The only package that touches a results database. What lives here:

- :mod:`.database` — :class:`Store`: one transaction per finished game (its full record
  and its summary), streaming readers, opening a file to write or read-only, putting a
  database aside;
- :mod:`.schema` — the tables and the migration of databases of older versions;
- :mod:`.summary` — the compact summary of a game that every reader but ``replay`` reads;
- :mod:`.problems` — what can be wrong with a database (SQLite errors in words, files that
  are no database, damaged records, a full disk);
- :mod:`.lock` — one writer per database file, across processes;
- :mod:`.standings` — the standings of a stored tournament;
- :mod:`.export` — stored games as lines, JSONL and CSV;
- :mod:`.whole_file` — writing an output file (an export, a report) whole or not at all.

May import: ratings, referee's record types, games, errors. Nothing above (formats,
running, report, cli).
"""

from goatarena.store.database import Store, StoredGame
from goatarena.store.opening import open_store

__all__ = ["Store", "StoredGame", "open_store"]
