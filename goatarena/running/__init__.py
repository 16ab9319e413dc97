"""Running a tournament: how the games a format asks for get played and stored.

- :mod:`.runner` — the driver: schedule, executors, store, progress, stop and resume;
- :mod:`.job` — the unit of work (one game as a msgspec job) and playing it;
- :mod:`.executors`, :mod:`.procs`, :mod:`.host` — where jobs run: in process, in
  referee processes, on a Dask cluster (:mod:`.cluster`, :mod:`.worker`);
- :mod:`.pool` — bot processes kept between games; :mod:`.preflight` — every bot started
  once before the first game;
- :mod:`.progress`, :mod:`.leaderboard` — the live line and table;
- :mod:`.forwarded_log` — bot stderr carried back from another process.

May import: formats, store, ratings, render, referee, games, errors.
"""
