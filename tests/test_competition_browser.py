"""The entrants' pages in a real browser (Chromium driven by Playwright, as
:mod:`tests.test_web_browser`): at 390 and 1600 px an entrant signs in with the form,
uploads a Python kit's folder as an archive and sees it become their version, without a
console error (a Content-Security-Policy violation is one). Screenshots go to
``test-artifacts/competition/``."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from goatarena.competition.uploads import pack_folder
from goatarena.referee.sandbox import probe
from tests.competition_helpers import served
from tests.test_competition_site import prepare
from tests.test_web_browser import browser, open_page  # noqa: F401  (a fixture)

pytestmark = pytest.mark.skipif(probe() is not None, reason="no sandbox on this machine")

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts" / "competition"
KIT = Path(__file__).resolve().parent.parent / "goatarena" / "kits" / "python"


@pytest.fixture(scope="module")
def competition(tmp_path_factory):
    folder = tmp_path_factory.mktemp("browser")
    tokens = prepare(folder)
    file = folder / "class.toml"
    file.write_text(
        file.read_text().replace("upload_mib = 0.05", "upload_mib = 1\nvalidation_games = 1")
    )
    shutil.copytree(KIT, folder / "mybot")
    (folder / "mybot.tar.gz").write_bytes(pack_folder(folder / "mybot"))
    with served(folder) as url:
        yield url, tokens, folder


@pytest.mark.parametrize("width", [390, 1600])
def test_an_entrant_signs_in_and_uploads_in_a_browser(browser, competition, width):  # noqa: F811
    url, tokens, folder = competition
    who, version = ("carol", "carol@1") if width == 390 else ("bob", "bob@2")
    context, page, errors = open_page(browser, width)
    try:
        page.goto(f"{url}/competition")
        page.fill("input[name=token]", tokens[who])
        page.click("form[action='/competition/sign-in'] button")
        page.wait_for_load_state()
        assert page.locator(f"h2:text('{who}')").count() == 1, page.content()
        page.set_input_files("input[name=archive]", str(folder / "mybot.tar.gz"))
        page.select_option("select[name=language]", "python")
        page.click("form[action='/competition/upload'] button")
        for _ in range(120):
            if page.locator(f"li:has-text('{version}')").count():
                break
            page.wait_for_timeout(500)
            page.reload()
        assert page.locator(f"li:has-text('{version}: active')").count() == 1, page.content()
        # Nothing of another entrant's: no version, no submission (opponents are public).
        assert page.locator("li:has-text('alice')").count() == 0
        assert page.locator("table.submissions:has-text('alice')").count() == 0
        # Readable on a phone: the page never scrolls sideways (the table scrolls alone).
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"entrant-{width}.png"), full_page=True)
        assert errors == []
    finally:
        context.close()


@pytest.mark.parametrize("width", [390, 1600])
def test_the_organiser_suspends_and_retires_in_a_browser(browser, competition, width):  # noqa: F811
    """The organiser signs in, opens their page from their own, suspends and reinstates
    an entrant, retires a version and puts it back: each with the page's form."""
    url, tokens, _ = competition
    context, page, errors = open_page(browser, width)
    try:
        page.goto(f"{url}/competition")
        page.fill("input[name=token]", tokens["organiser"])
        page.click("form[action='/competition/sign-in'] button")
        page.wait_for_load_state()
        page.click("a[href='/competition/organiser']")
        page.wait_for_load_state()
        assert page.locator("h2:text('The organiser')").count() == 1, page.content()
        page.fill("input[aria-label='reason to suspend alice']", "late homework")
        page.click("button:text('suspend alice')")
        page.wait_for_load_state()
        assert page.locator("td:has-text('suspended: late homework')").count() == 1
        page.click("button:text('reinstate alice')")
        page.wait_for_load_state()
        page.click("button:text('retire alice@1')")
        page.wait_for_load_state()
        assert page.locator("td > div:has-text('alice@1: retired')").count() == 1, page.content()
        page.click("button:text('reinstate alice@1')")
        page.wait_for_load_state()
        assert page.locator("td > div:has-text('alice@1: active')").count() == 1, page.content()
        assert page.locator("td:has-text('suspended')").count() == 0
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"organiser-{width}.png"), full_page=True)
        assert errors == []
    finally:
        context.close()


BROKEN_MAKEFILE = """\
all:
\t@echo compiling main.py
\t@echo "main.py:3: error: expected ';' before '}' token" >&2
\t@exit 1
"""


def test_a_failed_build_shows_its_reason_and_log_tail_in_a_browser(browser, competition):  # noqa: F811
    """At a phone's width, an upload whose build fails: the page follows it by itself to
    the failed step, says why in one line and shows the end of the build's log."""
    url, tokens, folder = competition
    broken = folder / "broken"
    broken.mkdir()
    (broken / "Makefile").write_text(BROKEN_MAKEFILE)
    (folder / "broken.tar.gz").write_bytes(pack_folder(broken))
    context, page, errors = open_page(browser, 390)
    try:
        page.goto(f"{url}/competition")
        page.fill("input[name=token]", tokens["alice"])
        page.click("form[action='/competition/sign-in'] button")
        page.wait_for_load_state()
        page.set_input_files("input[name=archive]", str(folder / "broken.tar.gz"))
        page.click("form.upload button")
        progress = page.locator("#entrant-live .progress")
        progress.and_(page.locator(".failed")).wait_for(timeout=60_000)  # never reloaded
        said = progress.locator("p").first.inner_text()
        assert re.fullmatch(
            r"Submission \d+ \(python\): failed: the build failed \(exit status 2\)", said
        ), said
        assert progress.locator("li.done").all_inner_texts() == ["uploaded"]
        assert progress.locator("li.failed").all_inner_texts() == ["building"]
        tail = progress.locator("pre.log-tail").inner_text()
        assert "main.py:3: error: expected ';' before '}' token" in tail, tail
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "failed-build-390.png"), full_page=True)
        assert errors == []
    finally:
        context.close()
