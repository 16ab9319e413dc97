"""The organiser's page over HTTP, against ``goatarena serve FILE`` in a process of its
own: the organiser sees every entrant and version, suspends and reinstates either, and
closes uploads; an entrant, or nobody signed in, gets 404 on the page and on every form;
a form without the session's CSRF token or from another site is refused."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from goatarena.formats.tournament_file import load_config
from tests.competition_helpers import served
from tests.test_competition_pages import csrf_of, signed_in
from tests.test_competition_site import prepare, tar_gz

PAGE = "/competition/organiser"


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[tuple[str, dict[str, str], Path]]:
    folder = tmp_path_factory.mktemp("organiser")
    tokens = prepare(folder)
    with served(folder) as url:
        yield url, tokens, folder


def organiser(server) -> tuple[httpx.Client, str]:
    url, tokens, _ = server
    client, page = signed_in((url, tokens), "organiser")
    assert f'href="{PAGE}"' in page
    return client, client.get(PAGE).text


@pytest.mark.parametrize(
    "path",
    [
        "/entrants/bob/suspend",
        "/entrants/bob/reinstate",
        "/versions/bob@1/retire",
        "/versions/bob@1/reinstate",
        "/uploads/close",
        "/uploads/open",
    ],
)
def test_an_entrant_gets_404_on_the_page_and_every_form(server, path):
    url, tokens, folder = server
    client, page = signed_in((url, tokens), "alice")
    assert PAGE not in page
    assert client.get(PAGE).status_code == 404
    assert httpx.get(url + PAGE, timeout=30).status_code == 404  # nobody signed in
    answer = client.post(PAGE + path, data={"csrf": csrf_of(page), "reason": "mine now"})
    assert answer.status_code == 404
    assert "bob@1" not in load_config(folder / "class.toml").ladder.retired
    me = httpx.get(url + "/api/me", headers={"Authorization": f"Bearer {tokens['bob']}"})
    assert me.status_code == 200  # bob was not suspended


def test_the_organiser_sees_every_entrant_and_version(server):
    _, page = organiser(server)
    for name in ("alice", "bob", "carol", "org (organiser)"):
        assert f"<td>{name}</td>" in page
    assert "alice@1</a>: active" in page and "bob@1</a>: active" in page
    assert "1; newest #1 active" in page  # alice's one submission


def test_the_organiser_suspends_and_reinstates_an_entrant(server):
    url, tokens, _ = server
    client, page = organiser(server)
    carol = {"Authorization": f"Bearer {tokens['carol']}"}
    done = client.post(
        PAGE + "/entrants/carol/suspend", data={"csrf": csrf_of(page), "reason": "copied code"}
    )
    assert done.status_code == 303
    assert "suspended: copied code" in client.get(PAGE).text
    refused = httpx.post(f"{url}/api/submissions", content=tar_gz({"a": b"1"}), headers=carol)
    assert refused.status_code == 422 and "carol is suspended: copied code" in refused.text
    done = client.post(PAGE + "/entrants/carol/reinstate", data={"csrf": csrf_of(page)})
    assert done.status_code == 303
    assert "suspended: copied code" not in client.get(PAGE).text


def test_the_organiser_retires_and_reinstates_a_version(server):
    _, tokens, folder = server
    client, page = organiser(server)
    file = folder / "class.toml"
    done = client.post(PAGE + "/versions/alice@1/retire", data={"csrf": csrf_of(page)})
    assert done.status_code == 303
    assert "alice@1" in load_config(file).ladder.retired
    page = client.get(PAGE).text
    assert "alice@1</a>: retired" in page and "reinstate alice@1" in page
    again = client.post(PAGE + "/versions/alice@1/retire", data={"csrf": csrf_of(page)})
    assert "alice@1: alice@1 is retired already" in again.text  # said, never a traceback
    done = client.post(PAGE + "/versions/alice@1/reinstate", data={"csrf": csrf_of(page)})
    assert done.status_code == 303
    assert "alice@1" not in load_config(file).ladder.retired
    assert "alice@1</a>: active" in client.get(PAGE).text


def test_the_organiser_closes_and_opens_uploads(server):
    url, tokens, _ = server
    client, page = organiser(server)
    bob = {"Authorization": f"Bearer {tokens['bob']}"}
    done = client.post(PAGE + "/uploads/close", data={"csrf": csrf_of(page), "reason": "exam"})
    assert done.status_code == 303
    assert "Closed: exam" in client.get(PAGE).text
    refused = httpx.post(f"{url}/api/submissions", content=tar_gz({"a": b"1"}), headers=bob)
    assert refused.status_code == 422 and "uploads are closed: exam" in refused.text
    bobs_page = signed_in((url, tokens), "bob")[1]
    assert "Uploads are closed." in bobs_page
    done = client.post(PAGE + "/uploads/open", data={"csrf": csrf_of(page)})
    assert done.status_code == 303
    assert "close uploads" in client.get(PAGE).text


def test_an_organisers_form_without_csrf_or_from_another_site_is_refused(server):
    url, _, folder = server
    client, page = organiser(server)
    forged = client.post(PAGE + "/versions/bob@1/retire", data={"csrf": "forged"})
    assert forged.status_code == 403
    evil = client.post(
        PAGE + "/versions/bob@1/retire",
        data={"csrf": csrf_of(page)},
        headers={"Origin": "https://evil.example"},
    )
    assert evil.status_code == 403
    assert "bob@1" not in load_config(folder / "class.toml").ladder.retired
