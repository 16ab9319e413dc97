"""A competition's routes, attacked from outside with an HTTP client against ``goatarena
serve FILE`` in a process of its own: each entrant sees their own and nothing of
another's (IDOR by number answers as a missing number), tokens cannot be guessed at
speed, uploads cannot flood, and logs are never served as a page."""

from __future__ import annotations

import io
import tarfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from goatarena.competition.entrants import add_entrant
from goatarena.formats.tournament_file import load_config
from goatarena.referee.records import MatchResult
from goatarena.referee.stderr_log import StderrLog
from goatarena.store.competition import open_competition_store
from goatarena.store.opening import open_store
from tests.competition_helpers import served

ROOT = Path(__file__).resolve().parent.parent
FILE = """\
name = "class"
format = "ladder"
[bots]
random = "builtin:random"
"alice@1" = "/builds/1/bot"
"bob@1" = "/builds/2/bot"
[competition]
languages = ["python"]
per_day = 2
upload_mib = 0.05
[[games]]
name = "mountain-goats"
"""
KEY = "0.mountain-goats.2p/t000000/alice@1+bob@1/r0"
SCRIPT = "<script>alert(1)</script>"


def tar_gz(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def prepare(folder: Path) -> dict[str, str]:
    """A competition with entrants alice and bob (a version each, one game between
    them, each bot's stderr in it) and an organiser; their tokens."""
    (folder / "class.toml").write_text(FILE)
    results = folder / "results"
    results.mkdir()
    store = open_store(results / "class.sqlite")
    store.claim(tournament="class", fingerprint="class", config_json='{"name": "class"}')
    store.add_game(KEY, 0, MatchResult(
        game="mountain-goats", seed=1, players=["alice@1", "bob@1"], scores=[1.0, 0.0],
        ranks=[1, 2], violations=[None, None], decisions=[],
    ))  # fmt: skip
    store.close()
    logs = results / "class-logs"
    logs.mkdir()
    for seat, bot in enumerate(["alice@1", "bob@1"]):
        (logs / f"{bot}.log").write_text(
            f"[goatarena: game 0.other/r0, seat 0, pid 1]\n{bot} in another game\n"
            f"[goatarena: game {KEY}, seat {seat}, pid 2]\n{bot}'s thoughts {SCRIPT}\n"
        )
    competition = open_competition_store(results / "class-competition" / "competition.sqlite")
    tokens = {}
    for name in ("alice", "bob", "carol"):
        tokens[name] = add_entrant(competition, name)
    tokens["organiser"] = add_entrant(competition, "org", organiser=True)
    for number, name in ((1, "alice"), (2, "bob")):
        entrant = competition.entrant_named(name)
        assert entrant is not None
        submission = competition.add_submission(entrant.id, "python", 100)
        assert submission == number
        competition.set_state(number, "failed", build_log=f"{name}'s build log {SCRIPT}")
        competition.add_version(f"{name}@1", entrant.id, number, f"/builds/{number}/bot")
    competition.close()
    return tokens


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[tuple[str, dict[str, str]]]:
    folder = tmp_path_factory.mktemp("competition")
    tokens = prepare(folder)
    with served(folder) as url:
        FOLDERS[url] = folder
        yield url, tokens


FOLDERS: dict[str, Path] = {}


def server_file(server) -> Path:
    """The competition file of a server the fixture started."""
    return FOLDERS[server[0]] / "class.toml"


def get(server, path: str, who: str | None) -> httpx.Response:
    url, tokens = server
    headers = {"Authorization": f"Bearer {tokens[who]}"} if who else {}
    return httpx.get(url + path, headers=headers, timeout=30)


def test_an_entrant_sees_their_own_submission_build_log_and_bot_log(server):
    mine = get(server, "/api/submissions/1", "alice")
    assert mine.status_code == 200 and mine.json()["version"] == "alice@1"
    assert [s["number"] for s in get(server, "/api/submissions", "alice").json()] == [1]
    assert "alice's build log" in get(server, "/api/submissions/1/log", "alice").text
    log = get(server, "/api/games/1/logs/0", "alice")
    assert log.status_code == 200
    assert "alice@1's thoughts" in log.text and "another game" not in log.text


@pytest.mark.parametrize(
    "path",
    ["/api/submissions/1", "/api/submissions/1/log", "/api/games/1/logs/0"],
)
def test_another_entrants_things_by_number_are_not_found(server, path):
    theirs = get(server, path, "bob")
    missing = get(server, path.replace("/1", "/999"), "bob")
    assert theirs.status_code == missing.status_code == 404
    assert theirs.text == missing.text  # the same answer: nothing to probe
    assert "alice" not in theirs.text


def test_a_seat_out_of_range_or_a_game_that_does_not_exist_is_not_found(server):
    for path in ("/api/games/1/logs/2", "/api/games/1/logs/99999", "/api/games/x/logs/0"):
        assert get(server, path, "alice").status_code == 404


def test_the_organiser_sees_every_entrants_things(server):
    assert "bob's build log" in get(server, "/api/submissions/2/log", "organiser").text
    assert "bob@1's thoughts" in get(server, "/api/games/1/logs/1", "organiser").text
    assert "alice@1's thoughts" in get(server, "/api/games/1/logs/0", "organiser").text


def test_nobody_signed_in_sees_nothing(server):
    for path in ("/api/submissions", "/api/submissions/1", "/api/games/1/logs/0"):
        answer = get(server, path, None)
        assert answer.status_code == 401
        assert "alice" not in answer.text


def test_logs_are_text_never_a_page(server):
    for path in ("/api/submissions/1/log", "/api/games/1/logs/0"):
        answer = get(server, path, "alice")
        assert answer.headers["content-type"].startswith("text/plain")
        assert answer.headers["x-content-type-options"] == "nosniff"
        assert "script-src 'self'" in answer.headers["content-security-policy"]
        assert SCRIPT in answer.text  # as the bot wrote it, shown as text


def upload(server, who: str, data: bytes, **extra) -> httpx.Response:
    url, tokens = server
    return httpx.post(
        url + "/api/submissions?language=python",
        content=data,
        headers={"Authorization": f"Bearer {tokens[who]}", **extra},
        timeout=30,
    )


def test_an_archive_attack_over_http_is_refused_in_one_line(server):
    answer = upload(server, "carol", tar_gz({"../../etc/cron.d/x": b"* * * * * root sh\n"}))
    assert answer.status_code == 422
    assert answer.json() == {"error": "the archive holds a path with '..': '../../etc/cron.d/x'"}


def test_an_oversized_upload_is_refused_before_it_is_read(server):
    big = bytes(range(256)) * 400  # 100 KiB, over the 0.05 MiB limit
    answer = upload(server, "carol", big)
    assert answer.status_code == 413 and "too large" in answer.json()["error"]

    def chunks():  # no length declared: counted as it arrives
        yield from (big[i : i + 8192] for i in range(0, len(big), 8192))

    url, tokens = server
    streamed = httpx.post(
        url + "/api/submissions", content=chunks(),
        headers={"Authorization": f"Bearer {tokens['carol']}"}, timeout=30,
    )  # fmt: skip
    assert streamed.status_code == 413


def test_an_upload_flood_stops_at_the_daily_limit(server):
    failing = tar_gz({"Makefile": b"all:\n\texit 1\n"})
    answers = [upload(server, "carol", failing) for _ in range(3)]
    assert [answer.status_code for answer in answers] == [202, 202, 422]
    assert "2 submissions in 24 hours" in answers[2].json()["error"]


def test_only_the_organiser_suspends_an_entrant(server):
    url, tokens = server

    def post(path: str, who: str) -> httpx.Response:
        headers = {"Authorization": f"Bearer {tokens[who]}"}
        return httpx.post(url + path, headers=headers, timeout=30)

    assert get(server, "/api/submissions", "bob").status_code == 200  # the token is known
    assert post("/api/entrants/bob/suspend", "alice").status_code == 404  # as if none
    assert post("/api/entrants/nobody/suspend", "organiser").status_code == 404
    assert post("/api/entrants/bob/suspend?reason=copied", "organiser").status_code == 200
    refused = upload(server, "bob", tar_gz({"Makefile": b"all:\n"}))
    assert refused.status_code == 422 and refused.json()["error"] == "bob is suspended: copied"
    assert post("/api/entrants/bob/reinstate", "organiser").status_code == 200
    assert "suspended" not in upload(server, "bob", b"not an archive").text


def test_only_the_organiser_retires_a_version(server):
    url, tokens = server

    def retire(name: str, who: str) -> httpx.Response:
        headers = {"Authorization": f"Bearer {tokens[who]}"}
        return httpx.post(f"{url}/api/versions/{name}/retire", headers=headers, timeout=30)

    assert retire("bob@1", "alice").status_code == 404  # as if there were none
    assert retire("bob@1", "bob").status_code == 404  # not even one's own
    assert retire("random", "organiser").status_code == 404  # no entrant's version
    assert retire("bob@1", "organiser").status_code == 200
    assert load_config(server_file(server)).ladder.retired == ["bob@1"]
    again = retire("bob@1", "organiser")
    assert again.status_code == 409 and "retired already" in again.json()["error"]


def test_token_guessing_is_slowed_down_then_refused(server):
    # Last in this file: it pauses this client's address for a minute.
    url, tokens = server
    number, _ = tokens["alice"].split(".")
    codes = [
        httpx.get(
            url + "/api/submissions",
            headers={"Authorization": f"Bearer {number}.guess{n}"},
            timeout=30,
        ).status_code
        for n in range(12)
    ]
    assert codes == [401] * 9 + [429] * 3  # the tenth wrong token starts the pause
    # Even the right token waits now: guessing cannot go on between real sign-ins.
    assert get(server, "/api/submissions", "alice").status_code == 429


def test_an_upload_trickling_in_is_cut_off(tmp_path, monkeypatch):
    """A slow client cannot hold an upload's place: past its time it gets 408."""
    import trio

    from goatarena.competition.pipeline import Competition
    from goatarena.web import competition_routes
    from goatarena.web.app import Site

    tokens = prepare(tmp_path)
    monkeypatch.setattr(competition_routes, "UPLOAD_BASE_S", 0.5)
    competition = Competition(tmp_path / "class.toml", tmp_path / "results" / "class.sqlite")
    site = Site(tmp_path / "results" / "class.sqlite")
    served = competition_routes.CompetitionSite(site, competition)

    async def trickle() -> bytes:
        async with trio.open_nursery() as nursery:
            bound = await nursery.start(
                competition_routes.serve_competition, served, "127.0.0.1", 0
            )
            port = int(bound[0].rsplit(":", 1)[1])
            stream = await trio.open_tcp_stream("127.0.0.1", port)
            head = (
                "POST /api/submissions HTTP/1.1\r\nHost: x\r\nContent-Length: 40000\r\n"
                f"Authorization: Bearer {tokens['carol']}\r\n\r\n"
            )
            await stream.send_all(head.encode())
            answer = b""
            with trio.move_on_after(20):
                for _ in range(400):
                    with trio.move_on_after(0.05):
                        answer += await stream.receive_some(4096)
                    if answer:
                        break
                    await stream.send_all(b"\x1f")
            nursery.cancel_scope.cancel()
            return answer

    try:
        answer = trio.run(trickle)
    finally:
        site.close()
        competition.close()
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]


def test_a_late_games_bot_log_is_served_after_the_bot_has_written_more_than_its_cap(tmp_path):
    """A bot that writes a lot to stderr in every game of a long ladder: its log is
    capped per game and rotates, so a late game's log is still its owner's to read."""
    tokens = prepare(tmp_path)
    limits = load_config(tmp_path / "class.toml").limits
    results = tmp_path / "results"
    store = open_store(results / "class.sqlite")
    log = StderrLog(
        results / "class-logs" / "alice@1.log", limits.stderr_log_bytes, limits.stderr_game_bytes
    )
    log.attach()
    games = 40  # each writes 100 KiB: 4 MiB in all, four times the log's cap
    for number in range(games):
        key = KEY.replace("/r0", f"/r{number + 1}")
        store.add_game(key, number + 1, MatchResult(
            game="mountain-goats", seed=1, players=["alice@1", "bob@1"], scores=[1.0, 0.0],
            ranks=[1, 2], violations=[None, None], decisions=[],
        ))  # fmt: skip
        log.mark_game(7, f"game {key}, seat 0")
        for _ in range(100):
            log.write(7, f"alice@1 in game {number + 1}: ".encode() + b"x" * 1000 + b"\n")
    log.detach(7)
    store.close()
    on_disk = sum(path.stat().st_size for path in (results / "class-logs").glob("alice@1.log*"))
    assert on_disk <= 2 * limits.stderr_log_bytes + limits.stderr_game_bytes
    with served(tmp_path) as url:
        server = (url, tokens)
        last = get(server, f"/api/games/{games + 1}/logs/0", "alice")
        assert last.status_code == 200
        assert f"alice@1 in game {games}: " in last.text
        assert f"alice@1 in game {games - 1}: " not in last.text
        assert len(last.text) <= limits.stderr_game_bytes + 200  # capped, and says so
        assert last.text.rstrip().endswith("this game's log truncated]")
        for number in range(games - 15, games + 1):  # the recent games' logs are all there
            recent = get(server, f"/api/games/{number + 1}/logs/0", "organiser")
            assert f"alice@1 in game {number}: " in recent.text
        assert get(server, f"/api/games/{games + 1}/logs/0", "bob").status_code == 404
