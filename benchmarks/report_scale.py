"""How the HTML report scales: build time, file size and opening time of a report of a
10,000-game tournament (``make bench`` runs it; ``--games N`` for another size).

The games are real: a pool of random playouts of every game type, dealt out again under
new keys and seatings of 16 bots, so every embedded replay is a replay of its record.
The opening time is measured in headless Chromium (Debian's ``/usr/bin/chromium``)
through Playwright, from navigation to the games list drawn; without a browser only
the size and build time are printed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from goatarena.games import GAMES, find_game  # noqa: E402
from goatarena.referee.match import MatchResult  # noqa: E402
from goatarena.report import build_report, write_report  # noqa: E402
from goatarena.store.database import StoredGame  # noqa: E402
from goatarena.testing import random_playout  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--no-first-run"]  # fmt: skip
POOL = 25
"""Distinct playouts per game type."""


def tournament(count: int, players: int = 3, bots: int = 16) -> list[StoredGame]:
    """``count`` finished games, round-robin over the game types."""
    pool = {
        name: [
            random_playout(find_game(name).new_state(players, seed), random.Random(seed))
            for seed in range(POOL)
        ]
        for name in GAMES
    }
    chooser = random.Random(1)
    names = [f"bot{number:02d}" for number in range(bots)]
    games = []
    for number in range(count):
        name = list(GAMES)[number % len(GAMES)]
        state = pool[name][number // len(GAMES) % POOL]
        outcome = state.result()
        seating = chooser.sample(names, players)
        result = MatchResult(
            game=name,
            seed=state.seed,
            players=seating,
            scores=outcome.scores,
            ranks=outcome.ranks,
            violations=[None] * players,
            decisions=list(state.history),
        )
        games.append(
            StoredGame(key=f"{number + 1}.{name}/{'+'.join(seating)}", round=0, result=result)
        )
    return games


def open_time(path: Path) -> dict[str, float] | str:
    """Milliseconds to load the page and draw the list, and to open one replay."""
    if not CHROMIUM.exists():
        return "no /usr/bin/chromium: opening time not measured"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return "playwright is not installed: opening time not measured"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        started = time.perf_counter()
        page.goto(path.as_uri(), wait_until="load")
        page.wait_for_selector("#games-table tbody tr")
        loaded = (time.perf_counter() - started) * 1000
        started = time.perf_counter()
        page.locator("#games-table tbody tr.has-replay button.view").first.click()
        page.wait_for_selector("#board svg[data-step='0']")
        replay = (time.perf_counter() - started) * 1000
        browser.close()
    if errors:
        return f"page errors: {errors}"
    return {"open_ms": round(loaded, 1), "first_replay_ms": round(replay, 1)}


def main() -> None:
    """Build, write and open the report; print the numbers (and JSON with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    games = tournament(args.games)
    started = time.perf_counter()
    page = build_report("scale", games)
    built = time.perf_counter() - started
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "report.html"
        write_report(path, page)
        size = path.stat().st_size
        opened = open_time(path)
    print(f"report of {args.games} games: {size / 1e6:.1f} MB, built in {built:.1f} s")
    if isinstance(opened, str):
        print(f"  {opened}")
    else:
        print(
            f"  opens in {opened['open_ms']:.0f} ms;"
            f" first replay drawn in {opened['first_replay_ms']:.0f} ms"
        )
    if args.json:
        print(
            json.dumps(
                {"games": args.games, "bytes": size, "build_s": round(built, 2), "open": opened}
            )
        )


if __name__ == "__main__":
    main()
