"""The site in a real browser (Debian's Chromium driven by Playwright, found or installed
as :mod:`tests.test_report_browser` does): every page at a phone's 390 px and a desk's
1600 px without a console error (a Content-Security-Policy violation is one), the
replay viewer drawing a game, and the leaderboard updating live when another process
stores a game. Screenshots go to ``test-artifacts/web/``."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from goatarena.store.opening import open_store
from tests.test_report_browser import FLAGS, chromium
from tests.test_web import HOSTILE, game_result, make_ladder_store, make_store, start_server

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts" / "web"


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


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    db = tmp_path_factory.mktemp("site") / "site.sqlite"
    make_store(db, games=16)
    child, address = start_server(db)
    try:
        yield address, db
    finally:
        child.send_signal(signal.SIGINT)
        child.wait(timeout=10)


def open_page(browser, width: int):
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    return context, page, errors


def poll(page, expression: str, wanted: object, limit_s: float = 20.0) -> float:
    """Seconds until ``expression`` is ``wanted`` in the page (fails past ``limit_s``)."""
    began = time.monotonic()
    while page.evaluate(expression) != wanted:
        assert time.monotonic() - began < limit_s, f"{expression} never became {wanted!r}"
        page.wait_for_timeout(50)
    return time.monotonic() - began


def fits(page) -> bool:
    """Whether the page is no wider than the window (wide tables scroll in their box)."""
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


@pytest.mark.slow
@pytest.mark.parametrize("width", [390, 1600])
def test_every_page_shows_without_errors(browser, site, width) -> None:
    address, _ = site
    context, page, errors = open_page(browser, width)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    try:
        for name, path in [("leaderboard", "/"), ("games", "/games?violation=&limit=20"),
                           ("bot", "/bots/alpha"), ("head-to-head", "/head-to-head"),
                           ("game", "/games/4")]:  # fmt: skip
            page.goto(address + path)
            if name == "game":
                page.wait_for_selector("#board svg[data-step='0']")
                page.click("#next")
                page.wait_for_selector("#board svg[data-step='1']")
                assert page.locator("#moves li").count() > 2
                # Seat 1 timed out at decision 2: the moves played for it are marked.
                assert page.locator("#moves li .played-for").count() > 0
            assert page.locator("header h1").inner_text() == "web"
            assert fits(page), f"{name} is wider than {width} px"
            page.screenshot(path=str(ARTIFACTS / f"{name}-{width}.png"), full_page=width > 400)
        page.goto(address + "/")
        # The hostile name is on the page as text, and made no element of its own.
        assert page.evaluate("document.body.textContent.includes('<script>alert')")
        assert (
            page.evaluate("document.querySelectorAll('script:not([src]):not([type])').length") == 0
        )
    finally:
        context.close()
    assert errors == [], errors


@pytest.fixture(scope="module")
def ladder_site(tmp_path_factory):
    db = tmp_path_factory.mktemp("ladder") / "ladder.sqlite"
    make_ladder_store(db)
    child, address = start_server(db)
    try:
        yield address
    finally:
        child.send_signal(signal.SIGINT)
        child.wait(timeout=10)


@pytest.mark.slow
@pytest.mark.parametrize("width", [390, 1600])
def test_a_ladders_page_shows_without_errors(browser, ladder_site, width) -> None:
    context, page, errors = open_page(browser, width)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    try:
        page.goto(ladder_site + "/")
        page.click("nav a[href='/ladder']")
        page.wait_for_selector("#ladder-choices")
        assert page.locator("table.ladder tbody tr").count() == 5
        assert page.locator("table.choices tbody tr").count() == 6
        assert page.locator("tr.suspended").inner_text().startswith("bravo")
        assert fits(page), f"the ladder's page is wider than {width} px"
        page.screenshot(path=str(ARTIFACTS / f"ladder-{width}.png"), full_page=width > 400)
    finally:
        context.close()
    assert errors == [], errors


@pytest.mark.slow
def test_the_leaderboard_updates_live_when_a_game_is_stored(browser, site) -> None:
    address, db = site
    context, page, errors = open_page(browser, 1280)
    try:
        page.goto(address + "/")
        before = int(page.locator("#stored").inner_text())
        page.wait_for_timeout(300)  # the stream is open
        store = open_store(db)  # another process's writer, as a run's
        number = before + 1
        result = game_result("mountain-goats", 500 + number, ["alpha", "bravo", HOSTILE])
        store.add_game(f"mountain-goats/live{number}/r0", 0, result)
        store.close()
        # Polled from here: the page's policy forbids the eval wait_for_function uses.
        poll(page, "document.getElementById('stored').textContent", str(number))
        assert page.locator("#recent-games li").first.inner_text().startswith(f"#{number}")
        poll(page, "document.body.dataset.refreshed !== undefined", True)
        assert f"({number} games stored when fitted)" in page.locator("#tables").inner_text()
    finally:
        context.close()
    assert errors == [], errors
