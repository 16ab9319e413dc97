"""Attacks on a competition that its other tests leave out, made as an attacker would,
most from outside against ``goatarena serve FILE`` in a process of its own: an entrant
holding an upload open to upload another beside it, headers sent a byte at a time,
headers and forms too large, script in a build log and a failure's reason shown on the
pages, tokens guessed through the sign-in form rather than the API; and a build that
leaves processes behind to outlive it."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from goatarena.competition.builds import BuildLimits
from goatarena.referee.sandbox import probe
from goatarena.store.competition import open_competition_store
from tests.competition_helpers import served
from tests.helpers import trickled_head_is_cut_off
from tests.test_competition_builds import build, recipe
from tests.test_competition_pages import csrf_of, signed_in
from tests.test_competition_site import SCRIPT, prepare
from tests.test_competition_uploads import ATTACKS, LIMITS

WAIT_S = 20.0
"""How long a test waits for the server to notice something (a loaded machine's time)."""


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[tuple[str, dict[str, str], Path]]:
    folder = tmp_path_factory.mktemp("hostile")
    tokens = prepare(folder)
    file = folder / "class.toml"  # the limits the archive attacks were made against
    limits = f"upload_mib = 1\nunpacked_mib = 4\nfiles = {LIMITS.files}\nratio = {LIMITS.ratio}"
    file.write_text(file.read_text().replace("upload_mib = 0.05", limits))
    store = open_competition_store(folder / "results" / "class-competition" / "competition.sqlite")
    store.set_state(1, "failed", reason=f"the build failed: {SCRIPT}")
    store.close()
    with served(folder) as url:
        yield url, tokens, folder


def address(url: str) -> tuple[str, int]:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    return host, int(port)


def upload(url: str, token: str, data: bytes = b"not an archive") -> httpx.Response:
    return httpx.post(
        url + "/api/submissions?language=python",
        content=data,
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )


def until(check, seconds: float = WAIT_S) -> bool:
    """Whether ``check()`` comes true within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.1)
    return False


def test_an_entrant_holding_an_upload_open_cannot_upload_beside_it(server):
    url, tokens, _ = server
    with socket.create_connection(address(url), timeout=30) as held:
        held.sendall(
            b"POST /api/submissions?language=python HTTP/1.1\r\nHost: x\r\n"
            b"Content-Length: 40000\r\n"
            + f"Authorization: Bearer {tokens['carol']}\r\n\r\n".encode()
            + b"\x1f\x8b"
        )
        refused: list[httpx.Response] = []
        assert until(
            lambda: refused.append(upload(url, tokens["carol"])) or refused[-1].status_code == 429
        )
        assert refused[-1].json() == {
            "error": "an upload of yours is still arriving: one at a time"
        }
        assert upload(url, tokens["bob"]).status_code == 422  # others upload meanwhile
    # The held upload's connection closed: its place is given back.
    assert until(lambda: upload(url, tokens["carol"]).status_code == 422)


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_every_archive_attack_over_http_is_refused_in_one_line_and_nothing_kept(server, attack):
    url, tokens, folder = server
    data, said = ATTACKS[attack]
    answer = upload(url, tokens["carol"], data)
    assert answer.status_code in (413, 422) and said in answer.json()["error"], answer.text
    assert "\n" not in answer.json()["error"]
    mine = httpx.get(
        url + "/api/submissions", headers={"Authorization": f"Bearer {tokens['carol']}"}
    )
    assert mine.json() == []
    uploads = folder / "results" / "class-competition" / "uploads"
    assert not uploads.exists() or list(uploads.iterdir()) == []


def test_a_session_cookie_does_nothing_on_the_api(server):
    """Another site's page could make a browser send the cookie; the API reads a bearer
    token alone, so the organiser's signed-in browser acts on nothing there."""
    url, tokens, folder = server
    organiser, _ = signed_in((url, tokens), "organiser")
    assert organiser.post("/api/entrants/bob/suspend").status_code == 404  # as nobody
    assert organiser.post("/api/versions/bob@1/retire").status_code == 404
    carol, _ = signed_in((url, tokens), "carol")
    assert carol.post("/api/submissions?language=python", content=b"x").status_code == 401
    assert carol.get("/api/submissions/1").status_code == 401
    bob = httpx.get(url + "/api/me", headers={"Authorization": f"Bearer {tokens['bob']}"})
    assert bob.status_code == 200 and bob.json()["versions"] == ["bob@1"]  # still in play


def test_headers_sent_a_byte_at_a_time_are_cut_off_and_others_served(server):
    url, _, _ = server

    def others_served() -> None:
        assert httpx.get(url + "/competition", timeout=30).status_code == 200

    host, port = address(url)
    assert trickled_head_is_cut_off(host, port, "/competition", others_served), (
        "the server waited a minute for a request's headers"
    )


def test_headers_and_forms_too_large_are_refused_and_nothing_is_stored(server):
    url, tokens, _ = server
    huge = httpx.get(url + "/competition", headers={"X-Filler": "a" * 40_000}, timeout=30)
    assert huge.status_code == 431 and "goatarena" not in huge.text
    client, page = signed_in((url, tokens), "carol")
    before = upload(url, tokens["carol"]).status_code  # 422: the daily count untouched
    big = bytes(range(256)) * (5 << 10)  # 1.25 MiB, over the 1 MiB limit and its form's margin
    declared = client.post(
        "/competition/upload",
        data={"csrf": csrf_of(page), "language": "python"},
        files={"archive": ("bot.tar.gz", big)},
    )
    assert declared.status_code == 403 and "too large" in declared.text

    def chunks() -> Iterator[bytes]:  # no length declared: refused without reading it
        yield b'--x\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n'
        yield csrf_of(page).encode() + b"\r\n--x\r\n"
        yield from (big[i : i + 8192] for i in range(0, len(big), 8192))

    streamed = client.post(
        "/competition/upload",
        content=chunks(),
        headers={"Content-Type": "multipart/form-data; boundary=x"},
    )
    assert streamed.status_code == 403
    mine = httpx.get(
        url + "/api/submissions", headers={"Authorization": f"Bearer {tokens['carol']}"}
    )
    assert mine.json() == [] and before == 422


@pytest.mark.parametrize("how", ["declared", "streamed", "a form", "a wrong token"])
def test_a_refusal_reaches_a_client_still_sending_a_large_body(server, how):
    """Refused before its body is read, a 16 MiB upload still gets its answer: the
    server reads the rest and throws it away rather than stalling the connection until
    the client gives up (as it did: each of these waited for the client's timeout)."""
    url, tokens, _ = server
    big = b"\0" * (16 << 20)
    bearer = {"Authorization": f"Bearer {tokens['carol']}"}
    with httpx.Client(base_url=url, timeout=60) as client:
        if how == "declared":
            answer = client.post("/api/submissions", content=big, headers=bearer)
        elif how == "streamed":
            pieces = (big[i : i + (1 << 16)] for i in range(0, len(big), 1 << 16))
            answer = client.post("/api/submissions", content=pieces, headers=bearer)
        elif how == "a wrong token":
            wrong = {"Authorization": f"Bearer {tokens['carol']}x"}
            answer = client.post("/api/submissions", content=big, headers=wrong)
        else:
            pages, page = signed_in((url, tokens), "carol")
            answer = pages.post(
                "/competition/upload",
                data={"csrf": csrf_of(page), "language": "python"},
                files={"archive": ("bot.tar.gz", big)},
                timeout=60,
            )
    expected = {"a form": 403, "a wrong token": 401}.get(how, 413)
    assert answer.status_code == expected, answer.text
    assert httpx.get(url + "/competition", timeout=30).status_code == 200  # still serving


def test_script_in_a_build_log_and_a_reason_is_shown_as_text_on_the_pages(server):
    url, tokens, _ = server
    alice, page = signed_in((url, tokens), "alice")
    assert "the build failed:" in page
    organiser, _ = signed_in((url, tokens), "organiser")
    organisers = organiser.get("/competition/organiser").text
    assert "the build failed:" in organisers
    for shown in (page, organisers):
        assert SCRIPT not in shown and "&lt;script&gt;" in shown
    log = alice.get("/competition/submissions/1/log")
    assert log.headers["content-type"].startswith("text/plain")
    assert log.headers["x-content-type-options"] == "nosniff"


def test_tokens_guessed_through_the_sign_in_form_are_paused(server):
    # Last in this file: it pauses this client's address for a minute.
    url, tokens, _ = server
    client = httpx.Client(base_url=url, timeout=30, headers={"Origin": url})
    csrf = csrf_of(client.get("/competition").text)
    number = tokens["alice"].split(".")[0]
    said = []
    for guess in range(11):
        answer = client.post(
            "/competition/sign-in", data={"csrf": csrf, "token": f"{number}.{guess}"}
        )
        assert answer.status_code == 200 and "goatarena_session" not in answer.headers.get(
            "set-cookie", ""
        )
        said.append("too many wrong tokens" in answer.text)
    # The tenth wrong token from this address starts the pause (the test of a wrong
    # token's upload above gave one already), and it lasts.
    first = said.index(True)
    assert first in (8, 9) and said[first:] == [True] * (len(said) - first)
    right = client.post("/competition/sign-in", data={"csrf": csrf, "token": tokens["alice"]})
    assert right.status_code == 200 and "too many wrong tokens" in right.text  # even the right one


def processes_named(marker: str) -> list[int]:
    """The machine's processes whose command line holds ``marker``."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(int(pid))
        except OSError:
            continue  # gone meanwhile
    return found


@pytest.mark.skipif(probe() is not None, reason="no sandbox on this machine")
@pytest.mark.parametrize("stopped", [False, True], ids=["finished", "stopped"])
def test_no_process_of_a_build_outlives_it(tmp_path, stopped):
    """A build leaves processes behind in sessions of their own (setsid, nohup), whether
    it finishes or is stopped for its time: none is left running after it."""
    marker = f"{os.getpid() % 1000}.{int(stopped)}4321"
    lines = (
        f"(setsid sleep {marker} > /dev/null 2>&1 &)",
        f"(nohup sleep {marker} >/dev/null 2>&1 &)",
    )
    limits = BuildLimits(
        seconds=2, memory_bytes=512 << 20, processes=64, file_bytes=1 << 20, log_bytes=4096
    )
    result, _ = build(tmp_path, recipe(*lines, *(["sleep 60"] if stopped else [])), limits)
    assert result.ok is not stopped, result.reason
    assert until(lambda: processes_named(f"sleep {marker}") == [], 5)
