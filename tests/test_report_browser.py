"""The HTML report in a real browser: headless Chromium (Debian's) driven by Playwright.

The test installs Chromium with apt-get when it is missing and it runs as root (once,
behind a lock, for parallel runs); otherwise it skips and says why. It never downloads
a browser build of Playwright's own. Screenshots go to ``test-artifacts/report/``.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from goatarena.cli import main
from goatarena.formats.config import GameEntry, TournamentConfig
from goatarena.games import GAMES
from goatarena.render.words import describe_move
from goatarena.store.opening import open_store
from tests.test_report import BOTS, stored_games

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts" / "report"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
]


def chromium() -> Path:
    """Debian's chromium, installed first if it can be; skips the test if it cannot."""
    if CHROMIUM.exists():
        return CHROMIUM
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        pytest.skip("no /usr/bin/chromium, and no root apt-get to install it with")
    with open("/tmp/goatarena-chromium-install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not CHROMIUM.exists():
            env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
            for command in (
                ["apt-get", "update", "-qq"],
                ["apt-get", "install", "-y", "-qq", "chromium"],
            ):
                done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
                if done.returncode != 0:
                    pytest.skip(f"installing chromium failed: {done.stderr.strip()[-300:]}")
    if not CHROMIUM.exists():
        pytest.skip("apt-get installed chromium but /usr/bin/chromium is not there")
    return CHROMIUM


@pytest.fixture(scope="module")
def browser():
    executable = chromium()
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(executable), args=FLAGS)
        try:
            yield launched
        finally:
            launched.close()


COMMANDS = {bot: f"python3 bots/{bot}.py --depth 3" for bot in BOTS}


@pytest.fixture(scope="module")
def report_file(tmp_path_factory) -> Path:
    """The report of a stored tournament, made by the ``report`` command as a user would."""
    folder = tmp_path_factory.mktemp("report")
    config = TournamentConfig(
        name="browser-test",
        bots=COMMANDS,
        games=[GameEntry(name=name, players=3) for name in GAMES],
        deals=2,
    )
    store = open_store(folder / "t.sqlite")
    store.claim(
        tournament="browser-test",
        fingerprint="f",
        config_json=msgspec.json.encode(config).decode(),
    )
    for game in stored_games(per_game=2):
        store.add_game(game.key, game.round, game.result)
    store.close()
    path = folder / "report.html"
    made = CliRunner().invoke(main, ["report", "--db", str(folder / "t.sqlite"), "-o", str(path)])
    assert made.exit_code == 0, made.output
    return path


@pytest.fixture
def page(browser, report_file, request):
    width = getattr(request, "param", 1280)
    context = browser.new_context(viewport={"width": width, "height": 900}, offline=True)
    page = context.new_page()
    errors: list[str] = []
    page.on(
        "console", lambda message: errors.append(message.text) if message.type == "error" else None
    )
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(report_file.as_uri())
    yield page
    context.close()
    assert errors == [], errors  # no console errors, whatever the test did


def shoot(page, name: str, *, full: bool = False, selector: str | None = None) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    target = page.locator(selector) if selector else page
    target.screenshot(
        path=str(ARTIFACTS / f"{name}.png"),
        **({"full_page": True} if full and not selector else {}),
    )


def open_replay(page, game: str) -> int:
    """Filter the games list to ``game``, open its first replay; the number of decisions."""
    page.select_option("#filter-game", label=GAMES[game].title.split(" (")[0])
    page.locator("#games-table tbody tr.has-replay button.view").first.click()
    page.wait_for_selector("#board svg[data-step='0']")
    return int(page.locator("#slider").get_attribute("max"))


def test_the_report_opens_with_standings_plots_and_the_games_list(page):
    assert page.locator("table.standings").count() == 1 + len(GAMES)
    assert page.locator("svg.bar").count() > 0
    assert page.locator("#history .plot:visible svg.history polyline").count() == 4  # 4 bots
    page.select_option("#history-table", value="goat-lords")
    visible = page.locator("#history .plot:visible")
    assert visible.count() == 1 and visible.get_attribute("data-table") == "goat-lords"
    lords = {
        bot
        for g in stored_games(per_game=2)
        if g.result.game == "goat-lords"
        for bot in g.result.players
    }
    assert visible.locator("polyline").count() == len(lords)  # the bots that played it
    page.select_option("#history-table", value="overall")
    assert page.locator("table.heat td[title]").count() > 0
    assert page.locator("#games-table tbody tr").count() == 2 * len(GAMES)
    page.select_option("#filter-bot", label="delta")
    filtered = page.locator("#games-table tbody tr")
    assert 0 < filtered.count() < 2 * len(GAMES)
    assert all("delta" in filtered.nth(i).inner_text() for i in range(filtered.count()))
    page.select_option("#filter-bot", label="all")
    page.check("#filter-violations")
    assert page.locator("#games-table tbody tr").count() == 1
    shoot(page, "report", full=True)


@pytest.mark.parametrize("game", list(GAMES))
def test_each_games_replay_steps_from_the_first_decision_to_the_last(page, game):
    decisions = open_replay(page, game)
    assert decisions > 0
    board = page.locator("#board svg")
    # Press "next" through the whole game inside the page (one round trip, not hundreds),
    # noting the step the board shows after each press.
    shown = page.evaluate(
        """(count) => Array.from({length: count}, () => {
            document.getElementById("next").click();
            return Number(document.querySelector("#board svg").dataset.step);
        })""",
        decisions + 1,
    )
    assert shown == [*range(1, decisions + 1), decisions]  # stops at the end
    assert page.locator("#caption").inner_text().startswith("end:")
    assert "game over" in (board.text_content() or "")
    page.click("#first")
    assert board.get_attribute("data-step") == "0"
    page.locator("#moves li").nth(decisions - 1).click()  # the move list jumps too
    assert board.get_attribute("data-step") == str(decisions - 1)
    page.locator("#slider").fill(str(decisions // 2))
    assert board.get_attribute("data-step") == str(decisions // 2)
    shoot(page, f"replay-{game}", selector="#viewer")


def test_the_moves_played_for_a_forfeited_seat_are_marked(page):
    stored = next(g for g in stored_games(per_game=2) if g.result.violations[1] is not None)
    page.locator(f"#games-table tbody tr[data-key='{stored.key}'] button.view").click()
    page.wait_for_selector("#board svg[data-step='0']")
    state = GAMES[stored.result.game].new_state(3, stored.result.seed)
    seats = []
    for action in stored.result.decisions:
        seats.append(state.to_act)
        state.apply(action)
    # Seat 1 forfeited at decision 3 (a timeout): from there on its moves were the referee's.
    marked = page.locator("#moves li").evaluate_all(
        "items => items.map((li) => li.querySelector('.played-for')?.textContent ?? '')"
    )[:-1]
    assert [n for n, note in enumerate(marked) if note] == [
        n for n, seat in enumerate(seats) if seat == 1 and n >= 3
    ]
    assert {note for note in marked if note} == {" (played for the forfeited seat)"}
    page.locator("#moves li").nth(seats.index(1, 3)).click()
    assert page.locator("#caption").inner_text().endswith("(played for the forfeited seat)")


@pytest.mark.parametrize("game", [name for name, info in GAMES.items() if info.hidden_information])
def test_the_seat_view_hides_the_other_seats_hands(page, game):
    decisions = open_replay(page, game)
    page.locator("#slider").fill(str(decisions // 3))
    everyone = page.locator("#board svg .hand")
    assert everyone.count() == 3 and page.locator("#board svg .card.facedown").count() == 0
    page.select_option("#seat", value="1")
    assert page.locator("#board svg").get_attribute("data-seat") == "1"
    for seat in range(3):
        hand = page.locator(f"#board svg .hand[data-seat='{seat}']")
        faceup = hand.locator(".card.faceup").count()
        facedown = hand.locator(".card.facedown").count()
        if seat == 1:
            assert hand.get_attribute("data-hidden") == "0" and facedown == 0
        else:
            assert hand.get_attribute("data-hidden") == "1" and faceup == 0
    # At every step to the end: the other hands face down, and of the other seats' moves
    # only what the engine made public (a face-down discard stays face down).
    page.click("#first")
    seen = page.evaluate(
        """(count) => Array.from({length: count + 1}, (_, step) => {
            if (step) document.getElementById("next").click();
            const svg = document.querySelector("#board svg");
            return [svg.querySelectorAll(".hand:not([data-seat='1']) .card.faceup").length,
                    document.getElementById("caption").textContent];
        })""",
        decisions,
    )
    assert all(faceup == 0 for faceup, _ in seen)
    listed = page.locator("#moves li").all_inner_texts()[:-1]
    assert [text.split(": ", 1)[1] for text in listed] == [
        c.split(": ", 2)[2] for _, c in seen[:-1]
    ]
    key = page.evaluate("document.body.dataset.replay")
    stored = next(g for g in stored_games(per_game=2) if g.key == key)
    state = GAMES[game].new_state(3, stored.result.seed)
    titles = page.locator("#moves li").evaluate_all("items => items.map((li) => li.title)")
    for (_, caption), action, title in zip(seen, stored.result.decisions, titles):
        actor = state.to_act
        shown = action if actor == 1 else state.public_action(actor, action)
        assert json.loads(title) == shown  # the raw action too, as seat 1 saw it
        words = describe_move(state, action, viewer=1)
        name = stored.result.players[actor]
        assert caption == f"decision {len(state.history)}: seat {actor} {name}: {words}"
        if actor != 1 and state.public_action(actor, action) != action:
            assert "a card" in words  # a face-down discard stays face down
        state.apply(action)
    page.locator("#slider").fill(str(decisions // 3))
    shoot(page, f"seat-view-{game}", selector="#viewer")


def test_the_header_tells_the_tournaments_facts_and_the_bots_commands(page):
    facts = dict(
        zip(
            page.locator("#facts dl.facts").first.locator("dt").all_inner_texts(),
            page.locator("#facts dl.facts").first.locator("dd").all_inner_texts(),
        )
    )
    assert facts["format"] == "round-robin"
    assert facts["time control"].startswith("1000 ms a decision")
    assert facts["deals"].startswith("2 deals per table, secret deals")
    assert facts["goatarena"][0].isdigit()  # the version that made the store
    assert facts["played"].startswith("started 20")
    bots = page.locator("#facts details.bots dl")
    assert bots.locator("dt").all_inner_texts() == list(COMMANDS)
    assert bots.locator("dd").all_inner_texts() == list(COMMANDS.values())
    assert "4 game types" in page.locator("header .summary").inner_text()


def test_the_ratings_chart_ends_at_the_ratings_of_its_table(page):
    tables = page.locator("#history-table option").all_inner_texts()
    assert tables == ["overall", *GAMES]
    for table in tables:
        page.select_option("#history-table", value=table)
        plot = page.locator("#history .plot:visible")
        assert plot.get_attribute("data-table") == table
        legend = {
            item.get_attribute("data-bot"): item.locator("b").inner_text()
            for item in plot.locator(".legend li").all()
        }
        rows = page.locator(f"table.standings[data-table='{table}'] tr:has(td)")
        ratings = {
            rows.nth(i).locator("td.bot").inner_text(): rows.nth(i).locator("td.elo").inner_text()
            for i in range(rows.count())
        }
        assert legend == ratings and len(ratings) >= 3, (table, legend, ratings)
        # best first in both
        assert list(legend) == list(ratings)


OVERFLOWS = """() => {
    const width = document.documentElement.clientWidth;
    const cut = [];
    for (const cell of document.querySelectorAll("main td, main th")) {
        const box = cell.getBoundingClientRect();
        if (cell.offsetParent === null || box.width === 0) continue;  // hidden on purpose
        if (box.right > width + 1) cut.push(cell.closest("table").className + ": " + cell.textContent.slice(0, 20));
    }
    return {body: document.documentElement.scrollWidth - window.innerWidth, cut};
}"""


@pytest.mark.parametrize("page", [390, 1600], indirect=True, ids=["phone", "wide"])
def test_the_layout_fits_from_phone_width_to_a_wide_screen(page):
    width = page.viewport_size["width"]
    measured = page.evaluate(OVERFLOWS)
    assert measured["body"] <= 0, measured  # the page never scrolls sideways
    assert measured["cut"] == [], measured["cut"]  # and no column runs off its edge
    # every standings column that matters is there: bot, Elo, games, wins, violations
    heads = page.locator("table.standings").first.locator("th:visible").all_inner_texts()
    for head in ("bot", "elo", "games", "wins"):
        assert head in [h.replace("\u00ad", "").replace("\n", " ") for h in heads], heads
    chart = page.locator("#history .plot:visible svg.history").bounding_box()
    assert chart is not None and chart["width"] >= min(500, width - 60)  # big enough to read
    open_replay(page, "goat-lords")
    assert page.evaluate(OVERFLOWS)["body"] <= 0
    shoot(page, f"report-{width}px", full=True)


HEAT_CELLS = """(tables) => tables.map((table) => [...table.querySelectorAll('td')].map((td) =>
    [td.title, td.innerText, getComputedStyle(td).backgroundColor, td.className]))"""


def test_a_large_fields_head_to_head_is_drawn_as_a_small_ones_is_written(
    browser, tmp_path, monkeypatch
):
    # Past STATIC_HEAT_BOTS bots the page carries the head-to-head as numbers and draws
    # it; drawn, every cell (title, text, colour) is the one the written table has.
    from goatarena.bench.synthetic import build_store
    from goatarena.report import html

    bots = html.STATIC_HEAT_BOTS + 8
    db = tmp_path / "field.sqlite"
    build_store(db, 600, bots=bots, players=4)
    drawn, written = tmp_path / "drawn.html", tmp_path / "written.html"
    # No replays: the head-to-head does not depend on them, and they were most of the time.
    report = ["report", "--db", str(db), "--replays", "0", "-o"]
    made = CliRunner().invoke(main, [*report, str(drawn)])
    assert made.exit_code == 0, made.output
    monkeypatch.setattr(html, "STATIC_HEAT_BOTS", bots)
    made = CliRunner().invoke(main, [*report, str(written)])
    assert made.exit_code == 0, made.output
    assert 'data-heat="overall"' in drawn.read_text() and 'data-heat="' not in written.read_text()
    assert len(drawn.read_bytes()) < len(written.read_bytes())
    cells = {}
    for name, path in (("drawn", drawn), ("written", written)):
        page = browser.new_page()
        page.goto(path.as_uri())
        for table in ["mountain-goats", *GAMES, "overall"]:  # each drawn once shown
            page.select_option("#heat-table", value=table)
        cells[name] = page.eval_on_selector_all("table.heat", HEAT_CELLS)
        page.close()
    assert len(cells["drawn"]) == len(cells["written"]) == 5  # overall and four games
    for drawn_table, written_table in zip(cells["drawn"], cells["written"], strict=True):
        assert len(drawn_table) == len(written_table) > bots * (bots - 1) // 2
    for drawn_table, written_table in zip(cells["drawn"], cells["written"], strict=True):
        differ = [(d, w) for d, w in zip(drawn_table, written_table, strict=True) if d != w]
        assert differ == []


BOARD_MEASURES = """() => {
    const svg = document.querySelector("#board svg");
    const box = svg.getBoundingClientRect();
    const scale = box.width / svg.viewBox.baseVal.width;
    const sizes = [...svg.querySelectorAll("text")]
        .map((node) => parseFloat(getComputedStyle(node).fontSize) * scale)
        .sort((a, b) => a - b);
    const stage = document.querySelector(".stage").getBoundingClientRect();
    const moves = document.getElementById("moves").getBoundingClientRect();
    return {
        board: box.width, right: box.right, top: box.top, viewport: window.innerWidth,
        stage: stage.width, moves: moves.width, movesLeft: moves.left, movesTop: moves.top,
        smallest: sizes[0], median: sizes[Math.floor(sizes.length / 2)],
        narrow: svg.classList.contains("narrow"),
        overflow: document.documentElement.scrollWidth - window.innerWidth,
    };
}"""
"""The replay board as drawn: its width, the moves list's place, and the size its text is
shown at on the screen (font size times the board's scale)."""


@pytest.mark.parametrize("page", [390, 1600], indirect=True, ids=["phone", "wide"])
@pytest.mark.parametrize("game", list(GAMES))
def test_the_replay_board_is_readable_on_a_phone_and_fills_a_wide_screen(page, game):
    decisions = open_replay(page, game)
    page.locator("#slider").fill(str(decisions // 2))
    measured = page.evaluate(BOARD_MEASURES)
    assert measured["overflow"] <= 0, measured  # never wider than the screen
    if measured["viewport"] < 600:
        # A phone: the narrow layout, nearly the screen's width, text a phone can read
        # (a wide board shrunk to fit showed 5-6 px text on a third of the width).
        assert measured["narrow"], measured
        assert measured["board"] >= 0.9 * measured["viewport"], measured
        assert measured["median"] >= 11 and measured["smallest"] >= 8.5, measured
    else:
        # A wide screen: the board and its moves side by side fill the stage, no gap.
        assert not measured["narrow"], measured
        assert measured["movesLeft"] > measured["right"] and measured["movesTop"] == measured["top"]
        assert measured["stage"] - measured["board"] - measured["moves"] <= 24, measured
        assert measured["median"] >= 11, measured
    shoot(page, f"board-{game}-{measured['viewport']}px", selector="#viewer")
