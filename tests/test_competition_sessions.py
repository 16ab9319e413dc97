"""Sessions on a competition's site are kept in its database: a restart of the server
signs no one out, a signed-out or suspended entrant's cookie signs no one in, even after
a restart, and the database holds no session's id (its hash alone)."""

from __future__ import annotations

import httpx

from goatarena.competition.entrants import add_entrant
from goatarena.competition.sessions import Sessions, id_hash
from goatarena.store.competition import open_competition_store
from tests.competition_helpers import served
from tests.test_competition_pages import csrf_of
from tests.test_competition_site import prepare

COOKIE = "goatarena_session"


def sign_in(url: str, token: str) -> tuple[str, str]:
    """A signed-in session's cookie and its CSRF token."""
    client = httpx.Client(base_url=url, timeout=30, headers={"Origin": url})
    form = csrf_of(client.get("/competition").text)
    answer = client.post("/competition/sign-in", data={"csrf": form, "token": token})
    assert answer.status_code == 303, answer.text
    return client.cookies[COOKIE], csrf_of(client.get("/competition").text)


def as_session(url: str, cookie: str) -> httpx.Client:
    """A client holding only that session cookie, its form posted from the site's page."""
    return httpx.Client(base_url=url, timeout=30, cookies={COOKIE: cookie}, headers={"Origin": url})


def test_a_restart_keeps_a_session_and_a_signed_out_one_stays_out(tmp_path):
    tokens = prepare(tmp_path)
    with served(tmp_path) as url:
        kept, csrf = sign_in(url, tokens["alice"])
        left, left_csrf = sign_in(url, tokens["alice"])
        suspended, _ = sign_in(url, tokens["bob"])
        signed_out = as_session(url, left).post("/competition/sign-out", data={"csrf": left_csrf})
        assert signed_out.status_code == 303
        organiser = {"Authorization": f"Bearer {tokens['organiser']}"}
        for action in ("suspend", "reinstate"):  # suspending ends every session of bob's
            answer = httpx.post(f"{url}/api/entrants/bob/{action}", headers=organiser)
            assert answer.status_code == 200
    database = tmp_path / "results" / "class-competition" / "competition.sqlite"
    stored = b"".join(path.read_bytes() for path in database.parent.glob("competition.sqlite*"))
    assert kept.encode() not in stored  # the ids are not kept, only their hashes
    store = open_competition_store(database)
    try:
        assert store.session(id_hash(kept)) is not None
        assert store.session(id_hash(left)) is None and store.session(id_hash(suspended)) is None
    finally:
        store.close()

    with served(tmp_path) as url:  # the server started again
        alice = as_session(url, kept)
        page = alice.get("/competition")
        assert "<h2>alice</h2>" in page.text and csrf_of(page.text) == csrf
        log = alice.get("/competition/submissions/1/log")
        assert log.status_code == 200 and "alice's build log" in log.text
        # The session's CSRF token still holds: the form is let in (its archive is none).
        upload = alice.post(
            "/competition/upload",
            data={"csrf": csrf, "language": "python"},
            files={"archive": ("bot.tar.gz", b"not an archive")},
        )
        assert upload.status_code == 200 and "the upload was refused:" in upload.text
        for gone in (left, suspended):
            stranger = as_session(url, gone)
            assert "<h2>Sign in</h2>" in stranger.get("/competition").text
            assert stranger.get("/competition/submissions/1/log").status_code == 401
            assert stranger.get("/competition/games/1/logs/1").status_code == 401


def test_an_ended_session_is_refused_and_dropped_and_sign_ins_cannot_fill_the_store(tmp_path):
    store = open_competition_store(tmp_path / "competition.sqlite")
    try:
        add_entrant(store, "alice")
        ended, _ = Sessions(store, lifetime_s=-1).open(1)
        assert Sessions(store).find(ended) is None
        assert store.session(id_hash(ended)) is None  # dropped when found ended
        sessions = Sessions(store, kept_per_entrant=3)
        opened = [sessions.open(1)[0] for _ in range(5)]
        assert store.session_count() == 3  # the newest three
        assert [sessions.find(number) is not None for number in opened] == [False, False] + [
            True
        ] * 3
        assert sessions.find("x" * 500) is None and sessions.find("") is None
        sessions.close_all_of(1)
        assert store.session_count() == 0
    finally:
        store.close()
