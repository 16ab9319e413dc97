"""The site and its JSON API: ``goatarena serve`` and ``goatarena run --serve``.

A live view of a results database that another process may be writing: thin handlers
over the packages below. What lives here:

- :mod:`.follow` — the site's cache: new games read into the index, the event stream's
  listeners, the standings refitted in a process of its own;
- :mod:`.index` — the games' numbers by bot, game type and violation, each bot's counts;
- :mod:`.answers` — every JSON answer as a msgspec type, and the OpenAPI document;
- :mod:`.api`, :mod:`.pages` — the JSON routes and the HTML pages (Jinja2 templates
  under ``templates/``, the report's styles and replay viewer, ``static/``);
- :mod:`.sprt` — a gauntlet's SPRT course;
- :mod:`.app` — the ASGI application: routes, static files, security headers, limits;
- :mod:`.server` — Hypercorn's trio worker, and the child process beside a run.

May import: competition, running, report, render, store, ratings, formats, games.
"""
