"""The entrants' pages, attacked from outside with an HTTP client: signing in gives an
HttpOnly, SameSite=Strict session cookie; a form posted from another site or without its
CSRF token is refused; an entrant's page and logs show their own alone; script in what
an upload names is shown as text; open registration hands out a token once."""

from __future__ import annotations

import io
import re
import tarfile
from collections.abc import Iterator

import httpx
import pytest

from tests.competition_helpers import served
from tests.test_competition_site import prepare

SCRIPT = "<script>alert(1)</script>"


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[tuple[str, dict[str, str]]]:
    folder = tmp_path_factory.mktemp("pages")
    tokens = prepare(folder)
    file = folder / "class.toml"
    file.write_text(
        file.read_text().replace("[competition]", '[competition]\nregistration = "open"')
    )
    with served(folder) as url:
        yield url, tokens


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found, page
    return found.group(1)


def signed_in(server, who: str) -> tuple[httpx.Client, str]:
    url, tokens = server
    client = httpx.Client(base_url=url, timeout=30, headers={"Origin": url})
    form = client.get("/competition")
    answer = client.post(
        "/competition/sign-in", data={"csrf": csrf_of(form.text), "token": tokens[who]}
    )
    assert answer.status_code == 303, answer.text
    cookie = answer.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie
    page = client.get("/competition")
    return client, page.text


def test_an_entrant_signs_in_and_sees_their_own_page(server):
    client, page = signed_in(server, "alice")
    assert "<h2>alice</h2>" in page
    assert "alice@1</a>: active" in page
    assert "bob@1</a>" not in page  # bob's versions are his (his name as an opponent is public)
    assert client.get("/competition/submissions/1/log").status_code == 200
    assert client.get("/competition/submissions/2/log").status_code == 404  # bob's
    assert client.get("/competition/submissions/999/log").status_code == 404


def test_every_page_links_to_the_competition_in_its_nav(server):
    url, _ = server
    for path in ("/", "/games", "/competition", "/no-such-page"):
        nav = httpx.get(url + path, timeout=30).text.split("<nav>", 1)[1].split("</nav>", 1)[0]
        assert '<a href="/competition">competition</a>' in nav, path


def test_a_cross_site_form_post_is_refused(server):
    url, tokens = server
    client = httpx.Client(base_url=url, timeout=30)
    token = csrf_of(client.get("/competition").text)
    evil = client.post(
        "/competition/sign-in",
        data={"csrf": token, "token": tokens["alice"]},
        headers={"Origin": "https://evil.example"},
    )
    assert evil.status_code == 403 and "goatarena_session" not in evil.headers.get("set-cookie", "")
    fetched = client.post(
        "/competition/sign-in",
        data={"csrf": token, "token": tokens["alice"]},
        headers={"Sec-Fetch-Site": "cross-site", "Origin": "null"},
    )
    assert fetched.status_code == 403


@pytest.mark.parametrize("csrf", [None, "", "forged"])
def test_a_form_without_its_csrf_token_is_refused(server, csrf):
    url, tokens = server
    client = httpx.Client(base_url=url, timeout=30, headers={"Origin": url})
    client.get("/competition")
    data = {"token": tokens["alice"], **({"csrf": csrf} if csrf is not None else {})}
    answer = client.post("/competition/sign-in", data=data)
    assert answer.status_code == 403


def test_an_upload_form_without_the_sessions_csrf_token_stores_nothing(server):
    url, tokens = server
    client, page = signed_in(server, "carol")
    before = httpx.get(
        url + "/api/submissions", headers={"Authorization": f"Bearer {tokens['carol']}"}
    ).json()
    answer = client.post(
        "/competition/upload",
        data={"csrf": "forged", "language": "python"},
        files={"archive": ("bot.tar.gz", b"\x1f\x8b" + b"0" * 100)},
    )
    assert "refused" in answer.text
    after = httpx.get(
        url + "/api/submissions", headers={"Authorization": f"Bearer {tokens['carol']}"}
    ).json()
    assert after == before


def test_script_in_an_uploaded_name_is_shown_as_text(server):
    client, page = signed_in(server, "bob")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        info = tarfile.TarInfo(f"../{SCRIPT}")
        tar.addfile(info, io.BytesIO(b""))
    answer = client.post(
        "/competition/upload",
        data={"csrf": csrf_of(page), "language": "python"},
        files={"archive": ("bot.tar.gz", buffer.getvalue())},
    )
    assert "the archive holds a path with" in answer.text
    assert SCRIPT not in answer.text and "&lt;script&gt;" in answer.text


def test_open_registration_hands_out_a_token_that_signs_in(server):
    url, _ = server
    client = httpx.Client(base_url=url, timeout=30, headers={"Origin": url})
    csrf = csrf_of(client.get("/competition").text)
    answer = client.post("/competition/register", data={"csrf": csrf, "name": "dora"})
    token = re.search(r'<code class="token">([^<]+)</code>', answer.text)
    assert token, answer.text
    me = httpx.get(url + "/api/me", headers={"Authorization": f"Bearer {token.group(1)}"})
    assert me.json()["name"] == "dora"
    again = client.post("/competition/register", data={"csrf": csrf, "name": SCRIPT})
    assert "not allowed" in again.text or "ASCII" in again.text
    assert SCRIPT not in again.text
    taken = client.post("/competition/register", data={"csrf": csrf, "name": "random"})
    assert "organiser&#39;s bots" in taken.text and 'class="token"' not in taken.text


def test_an_entrants_page_lists_their_games_with_their_own_stderr(server):
    client, page = signed_in(server, "alice")
    assert 'href="/competition/games/1/logs/0"' in page
    log = client.get("/competition/games/1/logs/0")
    assert log.status_code == 200 and "alice@1's thoughts" in log.text
    assert log.headers["content-type"].startswith("text/plain")
    assert client.get("/competition/games/1/logs/1").status_code == 404  # bob's seat
    bob, _ = signed_in(server, "bob")
    assert "bob@1's thoughts" in bob.get("/competition/games/1/logs/1").text
    assert bob.get("/competition/games/1/logs/0").status_code == 404
    anonymous = httpx.get(server[0] + "/competition/games/1/logs/0", timeout=30)
    assert anonymous.status_code == 401 and "Sign in" in anonymous.text  # whatever is asked
    assert "thoughts" not in anonymous.text
