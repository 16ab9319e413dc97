"""Every kit's starter (``goatarena new-bot LANGUAGE``), submitted to one competition
that takes all six, is built on the server in the sandbox (no network, the machine's
toolchains) and becomes ``NAME@1``: once with ``goatarena submit``, once uploaded with
the site's form in a real browser (Chromium driven by Playwright, as
:mod:`tests.test_web_browser`), packed as docs/competition.md tells an entrant to or as
a folder chosen in the form (the page packs it), at a phone's or a desk's width, the
page following the build and the validation by itself.
Screenshots go to ``test-artifacts/competition/``.

A kit whose toolchain is missing has it installed as root (its kit.toml's apt packages,
as tests/test_kits.py does; TypeScript's compiler with ``npm install -g``, as an
organiser does), or is skipped, saying why.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from goatarena.formats.tournament_file import load_config
from goatarena.referee.sandbox import probe
from tests.helpers import goatarena as run_goatarena
from tests.test_kits import ensure_toolchain
from tests.test_web_browser import browser, open_page  # noqa: F401  (a fixture)

pytestmark = [
    pytest.mark.skipif(probe() is not None, reason="no sandbox on this machine"),
    pytest.mark.slow,
]

KITS = Path(__file__).resolve().parent.parent / "kits"
LANGUAGES = ("python", "cpp", "go", "java", "rust", "typescript")
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts" / "competition"
TYPESCRIPT = "typescript@5.6.3"
"""The compiler the TypeScript kit pins, installed on the server (builds have no network)."""

FILE = """\
name = "kits"
format = "ladder"
[time]
move_ms = 1000
[bots]
random = "builtin:random"
[competition]
languages = ["python", "cpp", "go", "java", "rust", "typescript"]
validation_games = 1
compare_games = 0
[[games]]
name = "mountain-goats"
"""


def goatarena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_goatarena(*args, cwd=cwd, timeout=600)


def ensure_server_tsc() -> None:
    """A ``tsc`` on the server's PATH, as the TypeScript kit's README asks of an organiser."""
    if shutil.which("tsc"):
        return
    npm = shutil.which("npm")
    if npm is None or os.geteuid() != 0:
        pytest.skip("typescript: no tsc on PATH, and no root npm to install it globally")
    done = subprocess.run(
        [npm, "install", "-g", "--no-audit", "--no-fund", TYPESCRIPT],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    if done.returncode != 0 or not shutil.which("tsc"):
        pytest.skip(f"npm install -g {TYPESCRIPT} failed: {done.stderr.strip()[-300:]}")


@pytest.fixture(scope="module")
def competition(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """A competition of all six kits, served; its folder and its address."""
    folder = tmp_path_factory.mktemp("kits")
    (folder / "kits.toml").write_text(FILE)
    server = subprocess.Popen(
        [sys.executable, "-m", "goatarena", "serve", "kits.toml", "--port", "0"],
        stderr=subprocess.PIPE, text=True, cwd=folder,
    )  # fmt: skip
    try:
        assert server.stderr is not None
        line = server.stderr.readline()
        url = re.search(r"http://[0-9.:]+", line)
        assert url, line
        yield folder, url.group(0)
    finally:
        server.terminate()
        server.wait(timeout=10)


def entrant_and_starter(folder: Path, language: str, name: str) -> tuple[str, Path]:
    """A new entrant's token and, as ``new-bot`` makes it, the kit's starter in a folder
    of its own, its build output cleaned away (the server builds from the sources alone);
    the kit skipped, saying why, when its toolchain cannot be had."""
    kit = tomllib.loads((KITS / language / "kit.toml").read_text())
    ensure_toolchain(kit)
    if language == "typescript":
        ensure_server_tsc()
    added = goatarena("entrant", "add", "kits.toml", name, cwd=folder)
    assert added.returncode == 0, added.stderr
    made = goatarena("new-bot", language, f"starter-{name}", cwd=folder)
    assert made.returncode == 0, made.stdout + made.stderr
    starter = folder / f"starter-{name}"
    if (starter / "Makefile").exists():
        cleaned = subprocess.run(["make", "clean"], cwd=starter, capture_output=True, check=False)
        assert cleaned.returncode == 0, cleaned.stderr
    return added.stdout.split()[-1], starter


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_kit_starter_submitted_becomes_an_active_version(competition, language):
    folder, url = competition
    name = f"{language}-bot"
    token, starter = entrant_and_starter(folder, language, name)
    done = goatarena(
        "submit", url, starter.name, "--token", token, "--language", language, cwd=folder
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1] == f"{name}@1"
    assert f"{name}@1" in load_config(folder / "kits.toml").bots


PACKING = {
    "tar.gz": "tar -czf {archive} --exclude=target --exclude=node_modules --exclude=.git {name}",
    "zip": "zip -qr {archive} {name} -x '*/target/*' '*/node_modules/*' '*/.git/*'",
}
"""How docs/competition.md tells an entrant to pack their folder for the site's form."""
UPLOADS = [
    ("python", 390, "zip"),
    ("cpp", 1600, "tar.gz"),
    ("go", 390, "folder"),
    ("java", 1600, "zip"),
    ("rust", 390, "tar.gz"),
    ("typescript", 1600, "folder"),
]
"""Each kit at a phone's or a desk's width, packed with tar or zip, or its folder chosen
in the form (packed by the page)."""
SHOWN = "document.querySelector('#entrant-live .progress')?.className.split(' ')[1] ?? ''"
"""The state the entrant's page shows for their newest submission."""


def packed(starter: Path, kind: str) -> Path:
    """``starter`` packed with the shell command the docs give."""
    archive = starter.with_name(f"{starter.name}.{kind}")
    command = PACKING[kind].format(archive=archive.name, name=starter.name)
    done = subprocess.run(
        ["sh", "-c", command], cwd=starter.parent, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return archive


@pytest.mark.parametrize(("language", "width", "kind"), UPLOADS)
def test_each_kit_starter_uploaded_with_the_sites_form_becomes_active(
    browser,  # noqa: F811
    competition,
    language,
    width,
    kind,
):
    folder, url = competition
    name = f"{language}-web"
    token, starter = entrant_and_starter(folder, language, name)
    context, page, errors = open_page(browser, width)
    try:
        page.goto(f"{url}/competition")
        page.fill("input[name=token]", token)
        page.click("form[action='/competition/sign-in'] button")
        page.wait_for_load_state()
        assert page.locator(f"h2:text('{name}')").count() == 1, page.content()
        if kind == "folder":
            (starter / "node_modules" / "left").mkdir(parents=True)  # never packed
            (starter / "node_modules" / "left" / "x.js").write_text("x")
            page.set_input_files("form.upload input.folder", str(starter))
            page.locator(".packed:has-text('files packed')").wait_for()
            assert page.evaluate("document.querySelector('input[name=archive]').files.length")
        else:
            page.set_input_files("input[name=archive]", str(packed(starter, kind)))
        page.select_option("select[name=language]", language)
        began = time.monotonic()
        page.click("form.upload button")
        page.wait_for_selector("#entrant-live .progress")
        # Never reloaded: the page follows the submission by itself.
        seen = [page.evaluate(SHOWN)]
        while seen[-1] not in ("active", "failed"):
            assert time.monotonic() - began < 600, f"{name} still {seen[-1]} after 600 s"
            page.wait_for_timeout(100)
            if (shown := page.evaluate(SHOWN)) != seen[-1]:
                seen.append(shown)
        took = time.monotonic() - began
        assert seen[-1] == "active", page.locator("#entrant-live .progress").inner_text()
        assert {"building", "validating"} & set(seen), seen
        assert page.locator(f".progress strong:text('{name}@1')").count() == 1
        assert page.locator("ol.steps li.done").count() == 4
        assert page.locator(f"li:has-text('{name}@1: active')").count() == 1, page.content()
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        number = page.locator("table.submissions td").first.inner_text()
        built = folder / "results" / "kits-competition" / "builds" / number
        assert (built / "Makefile").is_file() and not (built / "node_modules").exists()
        link = page.get_attribute("table.submissions a[href$='/log']", "href")
        log = page.request.get(f"{url}{link}")  # with the entrant's session: their own log
        assert log.ok
        if language == "rust":  # the dependencies came compiled, from the kit's cache
            assert "Compiling goatarena-bot" in log.text(), log.text()
            assert "Compiling serde " not in log.text(), log.text()
            assert not (built / "target").exists()  # the active version runs without it
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"kit-{language}-{width}.png"), full_page=True)
        assert errors == []
        print(f"{language}: uploaded to active in {took:.1f} s, the page showing {seen}")
    finally:
        context.close()
    assert f"{name}@1" in load_config(folder / "kits.toml").bots
