"""The competition server: strangers submit bots to a ladder, and none sees another's work.

- :mod:`.place` — a competition's file, databases and folders;
- :mod:`.tokens` — entrants' tokens: made, hashed (argon2), checked in constant time;
- :mod:`.entrants` — adding entrants, signing them in, the limits on them;
- :mod:`.uploads` — an uploaded archive checked at one boundary, stored whole or not at all;
- :mod:`.builds` — a submission built inside the bots' sandbox, its log kept;
- :mod:`.validation` — the gate a new version passes before it plays rated games;
- :mod:`.versions` — an accepted build made ``NAME@k`` in the ladder's file;
- :mod:`.pipeline` — submissions taken through build and validation, resumed after a stop;
- :mod:`.access` — what a viewer may see and do, route by route: the one place that
  decides it;
- :mod:`.guards` — the client's address, a pause for token guessing, one upload at a time;
- :mod:`.sessions` — the site's sessions, kept in the competition's database.

May import: formats, checkbot, referee, store, ratings (never running, web or cli).
"""
