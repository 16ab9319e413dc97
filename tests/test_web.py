"""The site and its JSON API, served by ``goatarena serve`` in a process of its own, as a
user starts it: every route against its OpenAPI schema, hostile names escaped, no path
traversal, the security headers, limits on requests, and games stored by another
process arriving live."""

from __future__ import annotations

import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote

import httpx
import jsonschema
import pytest
from markupsafe import escape

from goatarena.games import GAMES, find_game
from goatarena.referee.records import MatchResult, Violation
from goatarena.store.opening import open_store
from goatarena.testing import random_playout
from goatarena.web.follow import QUEUE
from tests.helpers import trickled_head_is_cut_off

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = '<script>alert("name")</script>\u2028&amp;'
BOTS = ["alpha", "bravo", HOSTILE]
HOSTILE_DETAIL = "</script><img src=x onerror=alert(1)>\u2029"


def game_result(
    kind: str, seed: int, players: list[str], *, late: int | None = None
) -> MatchResult:
    """A random game of ``kind`` between ``players``; seat ``late`` timed out."""
    state = random_playout(find_game(kind).new_state(len(players), seed), random.Random(seed))
    outcome = state.result()
    violation = Violation(cause="timeout", decision=2, detail=HOSTILE_DETAIL)
    violations = [violation if seat == late else None for seat in range(len(players))]
    return MatchResult(
        game=kind,
        seed=seed,
        players=players,
        scores=outcome.scores,
        ranks=outcome.ranks,
        violations=violations,
        decisions=state.history,
        all_violations=[[v] if v else [] for v in violations],
    )


def make_store(path: Path, games: int = 12) -> None:
    """A store of ``games`` games of every type between :data:`BOTS` (one with a hostile
    name and a hostile violation detail)."""
    store = open_store(path)
    config = {"name": "web", "format": "round-robin", "bots": {b: f"/secret/{i}" for i, b in
                                                                enumerate(BOTS)}}  # fmt: skip
    store.claim(tournament="web", fingerprint="web", config_json=json.dumps(config))
    kinds = sorted(GAMES)
    for number in range(games):
        kind = kinds[number % len(kinds)]
        seating = [BOTS[(number + seat) % 3] for seat in range(3)]
        late = 1 if number == 3 else None
        store.add_game(f"{kind}/{number}/r0", 0, game_result(kind, number, seating, late=late))
    store.close()


def start_server(db: Path, *extra: str) -> tuple[subprocess.Popen[str], str]:
    """``goatarena serve`` on a free port; its process and its address."""
    child = subprocess.Popen(
        [sys.executable, "-m", "goatarena", "serve", "--db", str(db), "--port", "0", *extra],
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert child.stderr is not None
    line = child.stderr.readline()
    found = re.search(r"at (http://\S+?);", line)
    if not found:
        child.kill()
        raise AssertionError(f"no address in {line!r}: {child.stderr.read()}")
    return child, found.group(1)


def wait_for_standings(client: httpx.Client) -> dict:
    for _ in range(200):
        answer = client.get("/api/standings")
        if answer.status_code == 200:
            return answer.json()
        time.sleep(0.05)
    raise AssertionError("the standings never came")


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[tuple[httpx.Client, Path]]:
    db = tmp_path_factory.mktemp("web") / "web.sqlite"
    make_store(db)
    child, address = start_server(db)
    try:
        with httpx.Client(base_url=address, timeout=10) as client:
            wait_for_standings(client)
            yield client, db
    finally:
        child.send_signal(signal.SIGINT)
        child.wait(timeout=10)


@pytest.fixture(scope="module")
def schemas(served) -> dict:
    client, _ = served
    return client.get("/api/openapi.json").json()


def check(answer: httpx.Response, schemas: dict, name: str) -> dict:
    """The answer's JSON, validated against the OpenAPI component ``name``."""
    body = answer.json()
    schema = {"$ref": f"#/components/schemas/{name}", "components": schemas["components"]}
    jsonschema.validate(body, schema)
    return body


def test_every_api_route_answers_what_its_schema_says(served, schemas) -> None:
    client, _ = served
    standings = check(client.get("/api/standings"), schemas, "StandingsAnswer")
    assert standings["tournament"] == "web" and standings["games"] == 12
    assert {row["bot"] for row in standings["standings"]["overall"]} == set(BOTS)
    one = check(client.get("/api/standings?game=goat-lords"), schemas, "StandingsAnswer")
    assert list(one["standings"]) == ["goat-lords"] and one["games"] == 3
    page = check(client.get("/api/games?limit=5"), schemas, "GamesPage")
    assert [g["number"] for g in page["games"]] == [1, 2, 3, 4, 5] and page["total"] == 12
    following = check(client.get(f"/api/games?limit=5&after={page['next_after']}"), schemas,
                      "GamesPage")  # fmt: skip
    assert following["games"][0]["number"] == 6
    flagged = check(client.get("/api/games?violation=1"), schemas, "GamesPage")
    assert [g["number"] for g in flagged["games"]] == [4]
    kind = check(client.get("/api/games?game=mountain-goats&bot=alpha"), schemas, "GamesPage")
    assert all(g["game"] == "mountain-goats" for g in kind["games"]) and kind["total"] == 3
    game = check(client.get("/api/games/4"), schemas, "GameAnswer")
    assert game["violations"][0]["detail"] == HOSTILE_DETAIL
    assert game["moves"] and all(move["words"] for move in game["moves"])
    bot = check(client.get("/api/bots/alpha"), schemas, "BotAnswer")
    assert bot["games"] == 12 and "overall" in bot["rows"] and bot["command"] is None
    assert {t["name"] for t in bot["per_opponent"]} == {"bravo", HOSTILE}
    for path, status in [("/api/games/999", 404), ("/api/games/x", 404),
                         ("/api/bots/nobody", 404), ("/api/games?limit=0", 400),
                         ("/api/games?after=-1", 400), ("/api/games?game=chess", 400),
                         ("/api/standings?game=chess", 404)]:  # fmt: skip
        answer = client.get(path)
        assert answer.status_code == status, path
        check(answer, schemas, "Problem")


def test_the_event_stream_tells_of_games_stored_by_another_process(served, schemas) -> None:
    client, db = served
    events: list[tuple[str, dict]] = []
    with client.stream("GET", "/api/events") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        store = open_store(db)  # another writer, as a run would be
        store.add_game("goat-lords/new/r0", 0, game_result("goat-lords", 99, ["bravo", "alpha",
                                                                              HOSTILE]))  # fmt: skip
        store.close()
        kind = None
        for line in stream.iter_lines():
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: ") and kind is not None:
                events.append((kind, json.loads(line[6:])))
                if kind == "standings":
                    break
    game = next(data for kind, data in events if kind == "game")
    check_schema = {"$ref": "#/components/schemas/GameEvent", "components": schemas["components"]}
    jsonschema.validate(game, check_schema)
    assert game["game"]["number"] == 13 and game["game"]["key"] == "goat-lords/new/r0"
    assert client.get("/api/standings").json()["games"] == 13


def test_hostile_names_and_details_are_escaped_on_every_page(served) -> None:
    client, _ = served
    for path in ["/", "/games", "/games/4", "/bots/alpha", "/head-to-head",
                 "/games?bot=" + HOSTILE]:  # fmt: skip
        page = client.get(path)
        assert page.status_code == 200, path
        text = page.text
        assert "<script>alert" not in text and "<img src=x" not in text, path
    game = client.get("/games/4").text
    assert "&lt;img src=x onerror=alert(1)&gt;" in game  # the detail, shown as text
    embedded = re.search(r'id="report-data">(.*?)</script>', game, re.S)
    assert embedded and "\u2028" not in embedded.group(1) and "</" not in embedded.group(1)
    assert json.loads(embedded.group(1))["list"]["bots"][2] == HOSTILE


def test_head_to_head_shows_each_pairs_points_as_each_bots_page_counts_them(served) -> None:
    client, _ = served
    page = client.get("/head-to-head").text
    shown = 0
    for bot in ["alpha", "bravo"]:  # the hostile name's "/" takes it to no bot's route
        for rival in client.get(f"/api/bots/{bot}").json()["per_opponent"]:
            names = f"{bot} vs {escape(rival['name'])}"  # as the template escapes them
            assert f'title="{names}: {rival["points"]} of {rival["meetings"]}"' in page, names
            shown += 1
    assert shown == 4  # each met both others


def test_every_answer_forbids_inline_script(served) -> None:
    client, _ = served
    for path in ["/", "/games/1", "/api/standings", "/static/site.js", "/nowhere"]:
        answer = client.get(path)
        policy = answer.headers["content-security-policy"]
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy.split(";")[1]
        assert answer.headers["x-content-type-options"] == "nosniff"
    page = client.get("/games/1").text
    assert not re.search(r"<script(?![^>]*(src=|application/json))", page)  # no inline code
    assert not re.search(r"\son[a-z]+=", page)  # no inline handlers


def test_no_path_leads_out_of_the_static_files(served) -> None:
    client, _ = served
    assert client.get("/static/site.css").status_code == 200
    for path in ["/static/../app.py", "/static/%2e%2e/app.py", "/static/..%2fapp.py",
                 "/static/", "/static", "/static/templates/base.html", "/static//etc/passwd",
                 "/static/%2fetc%2fpasswd", "/templates/base.html"]:  # fmt: skip
        answer = client.get(path)
        assert answer.status_code == 404, path
        assert "root:" not in answer.text and "<li><a" not in answer.text


def test_requests_are_bounded(served) -> None:
    client, _ = served
    huge = client.get("/", headers={"X-Filler": "a" * 20_000})
    assert huge.status_code in (400, 413, 431)
    assert client.post("/api/standings", content=b"x" * 1000).status_code == 405


def test_public_pages_hide_the_commands_and_paths(served) -> None:
    client, db = served
    for path in ["/", "/bots/alpha", "/api/bots/alpha", "/api/standings", "/games/1"]:
        text = client.get(path).text
        assert "/secret/" not in text and str(db.parent) not in text, path


def test_commands_are_shown_when_asked_for(tmp_path) -> None:
    db = tmp_path / "shown.sqlite"
    make_store(db, games=4)
    child, address = start_server(db, "--show-commands")
    try:
        with httpx.Client(base_url=address, timeout=10) as client:
            assert client.get("/api/bots/alpha").json()["command"] == "/secret/0"
    finally:
        child.send_signal(signal.SIGINT)
        assert child.wait(timeout=10) in (0, 130)


def test_serving_a_missing_database_is_one_line(tmp_path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "goatarena", "serve", "--db", str(tmp_path / "no.sqlite")],
        capture_output=True, text=True, cwd=ROOT, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "no such results database" in done.stderr


def test_serving_at_a_port_in_use_is_one_line(tmp_path) -> None:
    db = tmp_path / "busy.sqlite"
    make_store(db, games=2)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "goatarena", "serve", "--db", str(db), "--port", str(port)],
            capture_output=True, text=True, cwd=ROOT, timeout=60, check=False,
        )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().count("\n") == 0
    assert f"cannot serve at 127.0.0.1:{port}" in done.stderr


def test_binding_beyond_this_machine_is_said(tmp_path) -> None:
    db = tmp_path / "wide.sqlite"
    make_store(db, games=2)
    child = subprocess.Popen(
        [sys.executable, "-m", "goatarena", "serve", "--db", str(db), "--host", "0.0.0.0",
         "--port", "0"],
        stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip
    try:
        assert child.stderr is not None
        assert "reachable from other machines" in child.stderr.readline()
    finally:
        os.kill(child.pid, signal.SIGTERM)
        child.wait(timeout=10)


def test_a_slow_client_cannot_hold_a_connection(served) -> None:
    """Headers sent a byte at a time (slowloris) are cut off, and others are served meanwhile."""
    client, _ = served

    def others_served() -> None:
        assert client.get("/api/standings").status_code == 200

    host, port = client.base_url.host, client.base_url.port
    assert trickled_head_is_cut_off(host, port, "/", others_served), (
        "the server waited a minute for a request's headers"
    )


@pytest.mark.slow
def test_run_serve_serves_while_it_runs_and_stops_with_it(tmp_path) -> None:
    (tmp_path / "t.toml").write_text(
        'name = "served"\nseed = 1\ndeals = 400\n'
        '[bots]\nrandom = "builtin:random"\ngreedy = "builtin:greedy"\n'
        '[[games]]\nname = "mountain-goats"\nplayers = 2\n'
    )
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    run = subprocess.Popen(
        [sys.executable, "-m", "goatarena", "run", "t.toml", "--sandbox", "none", "--quiet",
         "--serve", str(port)],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        total = 0
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
            for _ in range(600):
                try:
                    total = client.get("/api/games?limit=1").json()["total"]
                except httpx.TransportError:
                    total = 0
                if total > 0 or run.poll() is not None:
                    break
                time.sleep(0.1)
        assert total > 0 and run.poll() is None, "the site never showed a game during the run"
    finally:
        run.send_signal(signal.SIGINT)
        _, err = run.communicate(timeout=30)
    assert run.returncode == 130, err
    with pytest.raises(httpx.TransportError):  # the site ended with the run
        httpx.get(f"http://127.0.0.1:{port}/api/standings", timeout=5)


def test_a_gauntlets_sprt_course_and_a_ladders_reasons_are_shown(tmp_path) -> None:
    db = tmp_path / "gauntlet.sqlite"
    store = open_store(db)
    config = {"name": "g", "format": "gauntlet", "challengers": ["alpha"],
              "bots": {"alpha": "a", "bravo": "b"},
              "games": [{"name": "mountain-goats", "players": 2}],
              "sprt": {"elo0": 0.0, "elo1": 50.0}}  # fmt: skip
    store.claim(tournament="g", fingerprint="g", config_json=json.dumps(config))
    for deal in range(6):
        store.add_ladder_choice(f"mountain-goats/d{deal}", "rule <b>", f"because {deal} <i>")
        for rotation, seating in enumerate((["alpha", "bravo"], ["bravo", "alpha"])):
            result = game_result("mountain-goats", deal, seating)
            store.add_game(f"mountain-goats/d{deal}/r{rotation}", 0, result)
    store.disqualify("bravo", "suspended: crashed <3 times>")
    store.close()
    child, address = start_server(db)
    try:
        with httpx.Client(base_url=address, timeout=10) as client:
            standings = wait_for_standings(client)
            assert standings["sprt"]["pairs"] == 6 and standings["sprt"]["challenger"] == "alpha"
            page = client.get("/sprt").text
            assert '<svg class="sprt"' in page and "after 6 pairs" in page
            game = client.get("/api/games/3").json()
            assert game["chosen_because"] == "rule <b>: because 1 <i>"
            assert "because 1 &lt;i&gt;" in client.get("/games/3").text
            assert standings["out"] == {"bravo": "suspended: crashed <3 times>"}
            assert "bravo</a>: suspended: crashed &lt;3 times&gt;" in client.get("/").text
    finally:
        child.send_signal(signal.SIGINT)
        child.wait(timeout=10)


def make_ladder_store(db: Path) -> None:
    """A ladder's store: alpha replaced by alpha@2, bravo suspended, a hostile bot
    disqualified, charlie retired in the file, and six deals with why each was chosen."""
    store = open_store(db)
    bots = ["alpha", "alpha@2", "bravo", "charlie", HOSTILE]
    config = {"name": "lad", "format": "ladder", "bots": {name: "x" for name in bots},
              "ladder": {"retired": ["alpha", "charlie"]}}  # fmt: skip
    store.claim(tournament="lad", fingerprint="lad", config_json=json.dumps(config))
    for deal in range(6):
        seating = [["alpha", "bravo"], ["alpha@2", "bravo"]][deal % 2]
        store.add_ladder_choice(f"mountain-goats/d{deal}", "closest", f"close in Elo <{deal}>")
        store.add_game(
            f"mountain-goats/d{deal}/r0", 0, game_result("mountain-goats", deal, seating)
        )
    store.disqualify("bravo", "suspended: 9 of its last 10 games had a violation")
    store.disqualify(HOSTILE, HOSTILE_DETAIL)
    store.close()


def test_a_ladders_page_shows_each_bots_state_and_why_each_game_was_chosen(tmp_path) -> None:
    db = tmp_path / "ladder.sqlite"
    make_ladder_store(db)
    child, address = start_server(db)
    try:
        with httpx.Client(base_url=address, timeout=10) as client:
            wait_for_standings(client)
            assert '<a href="/ladder">ladder</a>' in client.get("/").text
            page = client.get("/ladder").text
            rows = re.findall(r'<tr class="(\w+)"><td><a href="/bots/([^"]+)"', page)
            states = {unquote(name): state for state, name in rows}
            assert states == {"alpha@2": "active", "bravo": "suspended", HOSTILE: "disqualified",
                              "alpha": "retired", "charlie": "retired"}  # fmt: skip
            assert "replaced by its newer version alpha@2" in page
            assert "retired in the ladder&#39;s file" in page
            assert "9 of its last 10 games had a violation" in page
            assert "1 active, 1 suspended, 1 disqualified, 2 retired" in page
            assert "<script>" not in page and "<img" not in page
            assert "&lt;/script&gt;&lt;img src=x" in page  # the hostile reason, as text
            choices = page.split('id="ladder-choices"', 1)[1]
            assert choices.index('href="/games/6"') < choices.index('href="/games/1"')
            assert "close in Elo &lt;5&gt;" in choices and "close in Elo &lt;0&gt;" in choices
            store = open_store(db)  # the running ladder suspends alpha@2: shown at once
            store.disqualify("alpha@2", "suspended: crashed")
            store.close()
            assert "0 active, 2 suspended" in client.get("/ladder").text
    finally:
        child.send_signal(signal.SIGINT)
        child.wait(timeout=10)


def test_only_a_ladder_has_a_ladder_page(served) -> None:
    client, _ = served
    assert client.get("/ladder").status_code == 404
    assert '<a href="/ladder">' not in client.get("/").text


@pytest.mark.slow
def test_a_bot_that_answers_in_markup_is_shown_as_text_and_costs_the_honest_nothing(
    tmp_path,
) -> None:
    hostile = ROOT / "tests" / "bots" / "hostile_site.py"
    (tmp_path / "t.toml").write_text(
        'name = "attack"\nseed = 3\ndeals = 2\n'
        f'[bots]\nhonest = "builtin:random"\nmarkup = "{sys.executable} {hostile}"\n'
        '[[games]]\nname = "mountain-goats"\nplayers = 2\n'
    )
    ran = subprocess.run(
        [sys.executable, "-m", "goatarena", "run", "t.toml", "--sandbox", "none", "--quiet"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    child, address = start_server(tmp_path / "results" / "attack.sqlite")
    try:
        with httpx.Client(base_url=address, timeout=10) as client:
            standings = wait_for_standings(client)
            honest = next(r for r in standings["standings"]["overall"] if r["bot"] == "honest")
            assert honest["games"] == 4 and honest["wins"] == 4 and not honest["violations"]
            flagged = client.get("/api/games?violation=1").json()
            assert flagged["total"] == 4
            detail = client.get("/api/games/1").json()["violations"][0]["detail"]
            assert "<script>alert(" in detail  # the referee quoted it, as data
            with client.stream("GET", "/api/events") as stream:
                first = next(stream.iter_lines())
            assert first.startswith("retry:")
            for path in ["/", "/games?violation=1", "/games/1", "/bots/markup", "/api/games/1"]:
                text = client.get(path).text
                assert "<script>alert" not in text and "<img src=x" not in text, path
                assert not path.startswith("/api") or "\u2028" not in text
            page = client.get("/games/1").text
            embedded = re.search(r'id="report-data">(.*?)</script>', page, re.S)
            assert embedded and "</" not in embedded.group(1) and "\u2028" not in embedded.group(1)
    finally:
        child.send_signal(signal.SIGINT)
        child.wait(timeout=10)


def test_run_refuses_a_bad_serve_address_before_anything_runs(tmp_path) -> None:
    (tmp_path / "t.toml").write_text(
        'name = "bad"\n[bots]\na = "builtin:random"\nb = "builtin:random"\n'
        '[[games]]\nname = "mountain-goats"\n'
    )
    done = subprocess.run(
        [sys.executable, "-m", "goatarena", "run", "t.toml", "--sandbox", "none",
         "--serve", "localhost:http"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and "--serve localhost:http" in done.stderr
    assert not (tmp_path / "results").exists()


def test_a_bots_page_names_its_versions(tmp_path) -> None:
    db = tmp_path / "versions.sqlite"
    store = open_store(db)
    store.claim(tournament="v", fingerprint="v", config_json="{}")
    for number, seating in enumerate((["mine", "other"], ["mine@2", "other"])):
        store.add_game(f"g/{number}", 0, game_result("mountain-goats", number, seating))
    store.close()
    child, address = start_server(db)
    try:
        with httpx.Client(base_url=address, timeout=10) as client:
            wait_for_standings(client)
            assert client.get("/api/bots/mine@2").json()["versions"] == ["mine", "mine@2"]
            assert client.get("/api/bots/other").json()["versions"] == []
            assert 'href="/bots/mine"' in client.get("/bots/mine@2").text
    finally:
        child.send_signal(signal.SIGINT)
        child.wait(timeout=10)


def test_a_stream_that_is_not_read_holds_up_no_other(tmp_path) -> None:
    db = tmp_path / "streams.sqlite"
    make_store(db, games=2)
    child, address = start_server(db)
    url = httpx.URL(address)
    deaf = socket.create_connection((url.host, url.port))
    try:
        with httpx.Client(base_url=address, timeout=20) as client:
            wait_for_standings(client)
            deaf.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
            deaf.sendall(b"GET /api/events HTTP/1.1\r\nHost: x\r\n\r\n")  # and never reads
            with client.stream("GET", "/api/events") as stream:
                lines = stream.iter_lines()
                next(lines)
                store = open_store(db)
                for number in range(QUEUE + 10):  # more than the deaf stream may fall behind
                    result = game_result("goat-lords", 1000 + number, ["alpha", "bravo", HOSTILE])
                    store.add_game(f"goat-lords/flood{number}/r0", 0, result)
                store.close()
                games = 0
                for line in lines:
                    games += line == "event: game"
                    if games == QUEUE + 10:
                        break
            assert games == QUEUE + 10
            assert client.get("/api/games?limit=1").json()["total"] == QUEUE + 12
    finally:
        # Stopped while the deaf stream is still open: the site ends all the same.
        child.send_signal(signal.SIGINT)
        child.wait(timeout=30)
        deaf.close()


def test_a_database_that_goes_bad_while_served_is_one_clear_answer(tmp_path) -> None:
    db = tmp_path / "spoilt.sqlite"
    make_store(db, games=40)
    child, address = start_server(db)
    try:
        with httpx.Client(base_url=address, timeout=20) as client:
            wait_for_standings(client)
            with open(db, "r+b") as file:  # every page but the first (the header) spoilt
                file.seek(4096)
                file.write(random.Random(1).randbytes(db.stat().st_size - 4096))
            pages = ["/", "/games", "/games?bot=alpha&violation=1", "/games/3", "/bots/alpha"]
            for path in pages:
                answer = client.get(path)
                assert answer.status_code == 503, path
                assert "the results database cannot be read" in answer.text
                assert (
                    "spoilt.sqlite is corrupt" in answer.text and str(tmp_path) not in answer.text
                )
            for path in ["/api/games", "/api/games?game=goat-lords&bot=bravo", "/api/games/7"]:
                answer = client.get(path)
                assert answer.status_code == 503, path
                said = answer.json()["error"]
                assert said.startswith("the results database cannot be read: spoilt.sqlite is")
            assert client.get("/api/standings").status_code == 200  # the cached fit still
    finally:
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=30)
    assert child.returncode == 130, err
    lines = err.strip().splitlines()
    assert "Traceback" not in err and all(line.startswith("goatarena: ") for line in lines), err
    assert sum("goatarena: serving: " in line for line in lines) == 1, err  # once, not per page
    assert "is corrupt" in err
