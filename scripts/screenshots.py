"""Regenerate the pictures in the docs: the HTML report and a board in the terminal.

Usage (from the repository root)::

    .venv/bin/python scripts/screenshots.py [--out docs/images]

It plays a small real tournament of the bundled bots (random, greedy and mcts at
three-player tables in all four games, one deal in every seat rotation, unsandboxed:
they are our own bots), writes its report with ``goatarena report``, and photographs it
with headless Chromium driven by Playwright, as ``tests/test_report_browser.py`` does
(Debian's ``/usr/bin/chromium``; that test installs it when run as root). The terminal
picture is ``goatarena replay`` of one stored game in colour, its ANSI escapes turned
into an HTML page of the same colours and photographed the same way. Writes
``report.png`` (the top of the report), ``report-phone.png`` (the same 390 px wide),
``ratings.png`` (the ratings chart), ``replay.png`` (the report's replay viewer) and
``terminal-board.png``, each some tens of kilobytes.
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
TOURNAMENT = """\
name = "screenshots"
format = "round-robin"
seed = 11
deals = 1
secret_deals = false
sandbox = "none"

[time]
move_ms = 1000

[bots]
random = "python3 bots/random_bot.py"
greedy = "python3 bots/greedy_bot.py"
mcts = "python3 bots/mcts_bot.py --ms 20"
{games}
"""
GAMES = ("goat-lords", "goat-n-goat", "herr-der-ziegen", "mountain-goats")
TERMINAL_COLOURS = {
    "31": "#ff6b6b", "32": "#7bd88f", "33": "#f0c674", "34": "#6cb6ff",
    "35": "#e58fe5", "36": "#5fd7d7", "90": "#8a8f98",
}  # fmt: skip
"""ANSI colour code -> the colour the terminal picture paints it in (a dark theme)."""
BOARD_GAME = 2
"""The stored game drawn in the terminal picture (its number in finishing order)."""
BOARD_DECISION = 12


def main() -> int:
    """Play, report and photograph; one line and exit status 1 if something is missing."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    args = parser.parse_args()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("screenshots: playwright is not installed (pip install -e '.[test]')")
        return 1
    if not CHROMIUM.exists():
        print(f"screenshots: no {CHROMIUM}; apt-get install chromium (as root) first")
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    # A fixed folder with a copy of the bundled bots: the report shows each bot's command
    # as the run resolved it, and the pictures should not show this checkout's path.
    work = Path(tempfile.gettempdir()) / "goatarena-screenshots"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(ROOT / "bots" / "python", work / "bots")
    try:
        db = play(work)
        report = work / "report.html"
        goatarena("report", "--db", str(db), "-o", str(report))
        board = work / "board.html"
        board.write_text(terminal_page(replay_text(db)), encoding="utf-8")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)
            try:
                photograph(browser, report, board, args.out)
            finally:
                browser.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if shutil.which("pngquant"):
        # 256 colours lose nothing visible in pictures of text and cut the size by ~3x
        pictures = [str(path) for path in args.out.glob("*.png")]
        subprocess.run(
            ["pngquant", "--force", "--skip-if-larger", "--ext", ".png", "256", *pictures],
            check=False,
        )
    else:
        print("screenshots: no pngquant (apt-get install pngquant): the pictures stay big")
    for name in sorted(args.out.glob("*.png")):
        print(f"{name.relative_to(ROOT) if name.is_relative_to(ROOT) else name}:"
              f" {name.stat().st_size / 1000:.0f} kB")  # fmt: skip
    return 0


def goatarena(*args: str) -> str:
    """Run a goatarena command of this checkout; its standard output."""
    command = [sys.executable, "-m", "goatarena", *args]
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"screenshots: {' '.join(args[:1])} failed: {done.stdout}{done.stderr}")
    return done.stdout


def play(work: Path) -> Path:
    """Play the small tournament; the path of its results database."""
    games = "".join(f'\n[[games]]\nname = "{name}"\nplayers = 3\n' for name in GAMES)
    file = work / "screenshots.toml"
    file.write_text(TOURNAMENT.format(games=games), encoding="utf-8")
    db = work / "screenshots.sqlite"
    goatarena("run", str(file), "--db", str(db), "--quiet", "--concurrency", "2")
    return db


def replay_text(db: Path) -> str:
    """What ``goatarena replay N --at D`` prints on a colour terminal for one stored game:
    its header, the board before the decision and the decision in words."""
    from goatarena.render import Style
    from goatarena.render.replay import picture_match, replay_header
    from goatarena.store.opening import open_store

    store = open_store(db, create=False)
    try:
        game = store.find_game(str(BOARD_GAME))
    finally:
        store.close()
    picture = picture_match(game.result, at=BOARD_DECISION, style=Style(True))
    return f"{replay_header(game.key, game.round)}\n{picture}"


def terminal_page(text: str) -> str:
    """An HTML page that shows ``text`` as a dark terminal would, its colours kept."""
    out: list[str] = []
    open_spans = 0
    for part in re.split(r"(\x1b\[[0-9;]*m)", text):
        match = re.fullmatch(r"\x1b\[([0-9;]*)m", part)
        if not match:
            out.append(html.escape(part))
            continue
        codes = match.group(1).split(";")
        if codes in (["0"], [""]):
            out.append("</span>" * open_spans)
            open_spans = 0
            continue
        style = "".join(
            f"color:{TERMINAL_COLOURS[code]};" if code in TERMINAL_COLOURS
            else "font-weight:700;" if code == "1" else "opacity:.7;" if code == "2" else ""
            for code in codes
        )  # fmt: skip
        out.append(f'<span style="{style}">')
        open_spans += 1
    out.append("</span>" * open_spans)
    return (
        '<!DOCTYPE html><meta charset="utf-8"><style>body{margin:0;background:#1d1f21}'
        "pre{margin:0;padding:14px 18px;color:#d8d8d8;display:inline-block;"
        'font:14px/1.35 "DejaVu Sans Mono",ui-monospace,monospace}</style>'
        f"<pre>{''.join(out)}</pre>"
    )


def photograph(browser, report: Path, board: Path, out: Path) -> None:
    """The four pictures, each clipped to what the docs show."""
    wide = browser.new_page(viewport={"width": 1000, "height": 900})
    wide.goto(report.as_uri())
    overall = "table.standings[data-table='overall']"
    clip_to(wide, ["header", "#facts", overall], out / "report.png", height=900)
    wide.locator("#history").screenshot(path=str(out / "ratings.png"))
    wide.close()
    viewer = browser.new_page(viewport={"width": 1400, "height": 900})
    viewer.goto(report.as_uri())
    viewer.locator("#games-table tbody tr.has-replay button.view").nth(1).click()
    viewer.wait_for_selector("#board svg[data-step='0']")
    viewer.locator("#slider").fill("40")
    viewer.locator("#viewer").screenshot(path=str(out / "replay.png"))
    viewer.close()
    phone = browser.new_page(viewport={"width": 390, "height": 844})
    phone.goto(report.as_uri())
    clip_to(phone, ["header", "#facts", overall], out / "report-phone.png", height=1200)
    phone.close()
    terminal = browser.new_page(viewport={"width": 900, "height": 600})
    terminal.goto(board.as_uri())
    terminal.locator("pre").screenshot(path=str(out / "terminal-board.png"))
    terminal.close()


def clip_to(page, selectors: list[str], path: Path, *, height: int) -> None:
    """A screenshot from the top of the first element to the bottom of the last (at most
    ``height`` pixels)."""
    boxes = [page.locator(selector).first.bounding_box() for selector in selectors]
    top = min(box["y"] for box in boxes if box)
    bottom = max(box["y"] + box["height"] for box in boxes if box)
    width = page.viewport_size["width"]
    page.screenshot(
        path=str(path),
        full_page=True,
        clip={"x": 0, "y": top, "width": width, "height": min(bottom - top + 12, height)},
    )


if __name__ == "__main__":
    sys.exit(main())
