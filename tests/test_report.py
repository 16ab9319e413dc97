"""The HTML report: one self-contained file with standings, plots, games and replays."""

from __future__ import annotations

import base64
import gzip
import json
import random
import re
import sys

from click.testing import CliRunner

from goatarena.cli import main
from goatarena.games import GAMES, find_game
from goatarena.referee.records import MatchResult, Violation
from goatarena.render.view import observation_of
from goatarena.render.words import describe_move
from goatarena.report import build_report
from goatarena.report.replays import choose_replays
from goatarena.store.database import StoredGame
from goatarena.store.opening import open_store
from goatarena.testing import random_playout

BOTS = ["alpha", "bravo", "charlie", "delta"]


def stored_games(per_game: int = 2, players: int = 3) -> list[StoredGame]:
    """Random games of every game type between the BOTS, the last one with a timeout."""
    games = []
    for kind, name in enumerate(GAMES):
        for number in range(per_game):
            seed = 100 * kind + number
            state = random_playout(find_game(name).new_state(players, seed), random.Random(seed))
            outcome = state.result()
            seating = [BOTS[(number + seat) % len(BOTS)] for seat in range(players)]
            late = Violation(cause="timeout", decision=3, detail="no answer in 1000 ms")
            violations = [
                late if kind == 3 and number == 0 and seat == 1 else None for seat in range(players)
            ]
            result = MatchResult(
                game=name,
                seed=seed,
                players=seating,
                scores=outcome.scores,
                ranks=outcome.ranks,
                violations=violations,
                decisions=state.history,
                all_violations=[[v] if v else [] for v in violations],
            )
            games.append(StoredGame(key=f"{name}/{number}", round=number, result=result))
    return games


def embedded(page: str, element: str) -> dict:
    match = re.search(rf'<script type="application/json" id="{element}">(.*?)</script>', page, re.S)
    assert match, element
    return json.loads(match.group(1))


def test_the_report_is_self_contained_and_holds_every_part():
    games = stored_games()
    page = build_report("demo", games)
    # Nothing is fetched: no external URL anywhere, a policy that forbids connections.
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "default-src 'none'" in page
    for part in ('id="standings"', 'class="heat"', 'class="violations"', 'class="history"'):
        assert part in page
    assert page.count('<table class="standings"') == 1 + len(GAMES)
    assert ">timeout</th>" in page  # violations by bot and cause
    listed = embedded(page, "report-data")["list"]
    assert len(listed["rows"]) == len(games) and set(listed["bots"]) == set(BOTS)
    replays = embedded(page, "report-replays")
    assert set(replays) == {game.key for game in games}


def test_a_replay_holds_the_engines_observations_at_every_step():
    game = stored_games(per_game=1)[1]
    packed = embedded(build_report("demo", [game]), "report-replays")[game.key]
    replay = json.loads(gzip.decompress(base64.b64decode(packed)))
    state = find_game(game.result.game).new_state(3, game.result.seed)
    assert len(replay["steps"]) == len(game.result.decisions)
    for step, decision in zip(replay["steps"], game.result.decisions):
        actor, action, shown, view, words, shown_words = step
        assert actor == state.to_act and action == decision
        assert words == describe_move(state, action)
        if shown is not None:  # a hidden move: the other seats' words say "a card"
            assert shown_words == describe_move(state, action, viewer=(actor + 1) % 3)
        for seat in range(3):
            assert observation_of(view, seat) == state.observation(seat)
        state.apply(action)
    assert replay["end"]["to_act"] is None and replay["ranks"] == game.result.ranks


def test_a_replay_notes_every_move_played_for_a_forfeited_seat():
    game = next(g for g in stored_games(per_game=1) if g.result.violations[1] is not None)
    packed = embedded(build_report("demo", [game]), "report-replays")[game.key]
    replay = json.loads(gzip.decompress(base64.b64decode(packed)))
    # Seat 1 timed out at decision 3 and forfeited: the referee played its later moves.
    forfeited = {n for n, step in enumerate(replay["steps"]) if step[0] == 1 and n >= 3}
    assert forfeited and {int(n) for n in replay["notes"]} == forfeited
    assert set(replay["notes"].values()) == {"(played for the forfeited seat)"}


def test_big_tournaments_embed_a_bounded_share_of_replays_of_every_game():
    games = stored_games(per_game=10)
    chosen = choose_replays(games, 8)
    kinds = [game.result.game for game in chosen]
    assert len(chosen) == 8 and all(kinds.count(name) == 2 for name in GAMES)
    assert "herr-der-ziegen/0" in {game.key for game in chosen}  # the one with a violation
    assert choose_replays(games, 100) == games
    assert choose_replays(games, 0) == [] and len(choose_replays(games, 3)) == 3


CRASHING_BOT = """import json, os, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "crash"}), flush=True)
    elif message["type"] == "decide":  # its model is missing: the error names its path
        open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "model.bin"))
"""


def test_violation_details_show_paths_from_the_tournament_files_folder(tmp_path):
    import trio

    from goatarena.web.api import Api
    from goatarena.web.follow import Follower, Readers

    folder = tmp_path / "home" / "alice" / "league"
    (folder / "bots").mkdir(parents=True)
    (folder / "bots" / "crash.py").write_text(CRASHING_BOT)
    (folder / "t.toml").write_text(
        f'name = "t"\nsandbox = "none"\n[bots]\ncrash = "{sys.executable} bots/crash.py"\n'
        'random = "builtin:random"\n[[games]]\nname = "mountain-goats"\nplayers = 2\n'
    )
    db = tmp_path / "home" / "alice" / "results" / "t.sqlite"
    db.parent.mkdir()
    ran = CliRunner().invoke(main, ["run", str(folder / "t.toml"), "--db", str(db)])
    assert ran.exit_code == 0, ran.output
    page = tmp_path / "r.html"
    made = CliRunner().invoke(main, ["report", "--db", str(db), "-o", str(page)])
    assert made.exit_code == 0, made.output
    html = page.read_text()
    # The crash's last line of stderr, as the report shows commands: from the file's folder.
    assert "No such file or directory: &#x27;./bots/model.bin&#x27;" in html
    assert str(tmp_path) not in html
    listed = embedded(html, "report-data")["list"]["rows"]
    assert any("./bots/model.bin" in str(row[9]) for row in listed if len(row) > 9)
    # The site's game page and API read the same details, shown the same way.
    follower, readers = Follower(db), Readers(db)
    try:
        answer, _ = trio.run(Api(follower, readers, None).game, 1)
    finally:
        readers.close()
        follower.close()
    details = [violation.detail for violation in answer.violations]
    assert details and all("'./bots/model.bin'" in detail for detail in details), details


def test_report_command_writes_the_file_and_says_where(tmp_path):
    db = tmp_path / "t.sqlite"
    store = open_store(db)
    for game in stored_games(per_game=1):
        store.add_game(game.key, game.round, game.result)
    store.close()
    out = tmp_path / "sub" / "r.html"
    result = CliRunner().invoke(main, ["report", "--db", str(db), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert str(out) in result.output and "4 games" in result.output
    assert out.read_text().startswith("<!DOCTYPE html>")
    assert not list(out.parent.glob(".*.tmp"))
    bare = CliRunner().invoke(main, ["report", "--db", str(db), "-o", str(out), "--replays", "0"])
    assert bare.exit_code == 0 and embedded(out.read_text(), "report-replays") == {}
    missing = CliRunner().invoke(main, ["report", "--db", str(tmp_path / "none.sqlite")])
    assert missing.exit_code != 0 and "no such results database" in missing.output
    blocked = CliRunner().invoke(main, ["report", "--db", str(db), "-o", str(db / "x.html")])
    assert blocked.exit_code != 0 and "cannot write" in blocked.output
    assert "Traceback" not in blocked.output


def test_an_empty_tournament_still_makes_a_page():
    page = build_report("empty", [])
    assert "No games yet" in page and embedded(page, "report-data")["list"]["rows"] == []


def test_hostile_bot_names_cannot_break_out_of_the_page():
    hostile = '</script><img src=x onerror="alert(1)">'
    games = stored_games(per_game=1)
    renamed = [
        StoredGame(
            key=game.key,
            round=game.round,
            result=MatchResult(**{
                **{f: getattr(game.result, f) for f in game.result.__struct_fields__},
                "players": [hostile, *game.result.players[1:]],
            }),
        )
        for game in games
    ]  # fmt: skip
    page = build_report(hostile, renamed)
    assert hostile not in page and "<img" not in page.split('id="report-data">')[0]
    assert embedded(page, "report-data")["list"]["bots"][0] == hostile


def test_the_rating_history_ends_at_each_bots_games_and_its_standings_rating():
    from goatarena.ratings.standings import compute_standings
    from goatarena.report.data import rating_history

    results = [game.result for game in stored_games(per_game=3)]
    history = rating_history(results, checkpoints=5)
    # The standings fit seat advantage per game; a history without it ended elsewhere
    # (a legend of 1956 beside a table of 1997).
    rows = {row.bot: row for row in compute_standings("t", results).standings["overall"]}
    for bot, points in history.items():
        games = sum(bot in result.players for result in results)
        assert points[-1][0] == games
        assert points[-1][1:] == (rows[bot].elo, rows[bot].lo, rows[bot].hi)
        assert [p[0] for p in points] == sorted(p[0] for p in points)
        assert all(lo <= elo <= hi for _, elo, lo, hi in points)


def test_a_record_its_engine_cannot_replay_is_listed_without_a_replay():
    games = stored_games(per_game=1)
    bad = games[0].result
    broken = MatchResult(
        **{
            **{f: getattr(bad, f) for f in bad.__struct_fields__},
            "decisions": [*bad.decisions[:3], {"birth": "no-such-card"}],
        }
    )
    games[0] = StoredGame(key=games[0].key, round=0, result=broken)
    page = build_report("demo", games)
    rows = embedded(page, "report-data")["list"]["rows"]
    assert [row[8] for row in rows] == [False, True, True, True]
    assert games[0].key not in embedded(page, "report-replays")
    assert f"1 could not be replayed ({games[0].key}: " in page


def test_report_refuses_to_replace_a_file_that_is_not_a_report_unless_forced(tmp_path):
    db = tmp_path / "t.sqlite"
    store = open_store(db)
    for game in stored_games(per_game=1):
        store.add_game(game.key, game.round, game.result)
    store.close()
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    refused = CliRunner().invoke(main, ["report", "--db", str(db), "-o", str(notes)])
    assert refused.exit_code != 0
    assert refused.output == (
        f"goatarena: error: cannot write {notes}: it exists and is not a goatarena report;"
        " pass --force to replace it\n"
    )
    assert notes.read_text() == "my notes\n"
    # a report is replaced without asking, an empty file too; anything else with --force
    report = tmp_path / "r.html"
    for _ in range(2):
        again = CliRunner().invoke(main, ["report", "--db", str(db), "-o", str(report)])
        assert again.exit_code == 0, again.output
    (tmp_path / "empty.html").write_text("")
    empty = CliRunner().invoke(
        main, ["report", "--db", str(db), "-o", str(tmp_path / "empty.html")]
    )
    assert empty.exit_code == 0
    forced = CliRunner().invoke(main, ["report", "--db", str(db), "-o", str(notes), "--force"])
    assert forced.exit_code == 0 and notes.read_text().startswith("<!DOCTYPE html>")


def test_a_report_written_before_the_generator_mark_may_be_replaced(tmp_path):
    from goatarena.report import is_report

    old = tmp_path / "old.html"
    old.write_text("<!DOCTYPE html>\n<html><head><title>league: goatarena report</title>")
    assert is_report(old) and is_report(tmp_path / "missing.html")
    (tmp_path / "page.html").write_text("<!DOCTYPE html><title>my page</title>")
    assert not is_report(tmp_path / "page.html")


def test_one_game_type_is_singular_and_more_are_plural():
    one = build_report("t", [game for game in stored_games(per_game=2) if game.key[0] == "m"])
    assert "2 games, 4 bots, 1 game type; 2 replays embedded" in one
    many = build_report("t", stored_games(per_game=1))
    assert "4 games, 3 bots, 4 game types; 4 replays embedded" in many


def test_the_report_shows_every_part_of_the_story():
    games = stored_games(per_game=2)
    page = build_report("demo", games)
    # head to head overall and per game, one shown at a time
    assert page.count('data-switch="heat-table"') == 1 + len(GAMES)
    # seat advantage per game and table size, latency, the violation with its detail
    assert 'class="seats"' in page and page.count("(3 players)</td>") == len(GAMES)
    assert 'id="latency"' in page
    listed = page.split('class="violation-list"', 1)[1].split("</table>", 1)[0]
    assert "mountain-goats/0" in listed and "no answer in 1000 ms" in listed
    row = next(
        r for r in embedded(page, "report-data")["list"]["rows"] if r[0] == "mountain-goats/0"
    )
    assert row[9][1] == "at decision 3: no answer in 1000 ms"
    # how the overall table pools games of different kinds
    assert "can be last overall" in page


def test_the_header_shows_the_tournaments_facts_from_its_store(tmp_path):
    from goatarena.formats.config import TournamentConfig

    config = TournamentConfig(
        name="league",
        bots={bot: f"python3 {bot}.py --level 2" for bot in BOTS},
        games=[{"name": name, "players": 3} for name in GAMES],
        format="round-robin",
        deals=2,
        secret_deals=False,
        seed=41,
    )
    db = tmp_path / "t.sqlite"
    store = open_store(db)
    store.claim(tournament="league", fingerprint="f", config_json=msgspec_json(config))
    for game in stored_games(per_game=1):
        store.add_game(game.key, game.round, game.result)
    store.close()
    out = tmp_path / "r.html"
    assert CliRunner().invoke(main, ["report", "--db", str(db), "-o", str(out)]).exit_code == 0
    header = out.read_text().split('id="facts"', 1)[1].split("</section>", 1)[0]
    for text in (
        "round-robin", "1000 ms a decision", "2 deals per table, seed 41", "goat-lords (3 players)",
        "python3 alpha.py --level 2", "timeout: forfeit", "started 20",
    ):  # fmt: skip
        assert text in header, text
    from goatarena.store.database import goatarena_version

    assert f"<dd>{goatarena_version()}</dd>" in header


def test_a_store_without_a_tournament_file_says_not_recorded(tmp_path):
    db = tmp_path / "t.sqlite"
    store = open_store(db)
    for game in stored_games(per_game=1):
        store.add_game(game.key, game.round, game.result)
    store.close()
    out = tmp_path / "r.html"
    assert CliRunner().invoke(main, ["report", "--db", str(db), "-o", str(out)]).exit_code == 0
    header = out.read_text().split('id="facts"', 1)[1].split("</section>", 1)[0]
    assert "<dt>format</dt><dd>not recorded</dd>" in header
    assert "not recorded (stored by an older version)" in header
    assert "<dt>alpha</dt>" in header  # the bots that played, without commands


def test_a_gauntlet_report_draws_the_sprt_course_between_its_bounds():
    from goatarena.report import SprtCourse

    course = SprtCourse(
        challenger="alpha", baseline="bravo", lower=-2.94, upper=2.94, elo0=0, elo1=50,
        verdict="H1", points=[(1, 0.4), (2, 1.1), (3, 3.0)],
    )  # fmt: skip
    page = build_report("g", stored_games(per_game=1), sprt=course)
    section = page.split('id="sprt"', 1)[1].split("</section>", 1)[0]
    assert "log-likelihood ratio 3.00 after 3 pairs" in section and "accepted H1" in section
    assert section.count('class="bound"') == 2 and "at 2.94" in section and "at -2.94" in section
    assert 'id="sprt"' not in build_report("g", stored_games(per_game=1))


def test_chart_ticks_are_round_and_cover_the_data():
    from goatarena.report.charts import nice_ticks

    assert nice_ticks(1221.7, 1598.2, 6) == [1200, 1300, 1400, 1500, 1600]
    assert nice_ticks(0, 12, 6, whole=True) == [0, 2, 4, 6, 8, 10, 12]
    assert nice_ticks(0, 3, 6, whole=True) == [0, 1, 2, 3]
    assert nice_ticks(-2.94, 2.94, 6) == [-3, -2, -1, 0, 1, 2, 3]


def msgspec_json(value) -> str:
    import msgspec

    return msgspec.json.encode(value).decode()


def test_a_run_keeps_the_names_the_bots_give_and_the_report_shows_them(tmp_path):
    from tests.helpers import ROOT

    greedy = f"{sys.executable} {ROOT / 'bots' / 'python' / 'greedy_bot.py'}"
    random_bot = f"{sys.executable} {ROOT / 'bots' / 'python' / 'random_bot.py'}"
    file = tmp_path / "t.toml"
    file.write_text(
        'name = "named"\nsandbox = "none"\ndeals = 1\n'
        f"[bots]\nmine = {json.dumps(greedy)}\nrandom = {json.dumps(random_bot)}\n"
        '[[games]]\nname = "mountain-goats"\nplayers = 2\n'
    )
    db = tmp_path / "t.sqlite"
    ran = CliRunner().invoke(main, ["run", str(file), "--db", str(db), "--quiet"])
    assert ran.exit_code == 0, ran.output
    out = tmp_path / "r.html"
    assert CliRunner().invoke(main, ["report", "--db", str(db), "-o", str(out)]).exit_code == 0
    bots = out.read_text().split('class="bots"', 1)[1].split("</details>", 1)[0]
    assert "(says it is &#x27;greedy&#x27;)" in bots  # "mine" in the file, "greedy" itself
    assert "says it is" not in bots.split("<dt>random</dt>", 1)[1]  # the same name: no note


def test_hostile_details_and_commands_cannot_break_out_of_the_page():
    hostile = '</script><img src=x onerror="alert(1)">'
    games = stored_games(per_game=1)
    last = games[-1].result
    late = Violation(cause="timeout", decision=3, detail=hostile)
    games[-1] = StoredGame(
        key=games[-1].key,
        round=0,
        result=MatchResult(**{
            **{f: getattr(last, f) for f in last.__struct_fields__},
            "violations": [late, None, None],
            "all_violations": [[late], [], []],
        }),
    )  # fmt: skip
    page = build_report("t", games, facts=[("format", hostile)], bots=[("alpha", hostile)])
    assert hostile not in page and "<img" not in page.split('id="report-data">')[0]
    assert embedded(page, "report-data")["list"]["rows"][-1][9][0].endswith(hostile)


def test_the_head_to_head_shows_the_pentanomial_elo_of_two_player_game_pairs():
    games = []
    for deal in range(3):
        seed = 700 + deal
        for rotation, seating in enumerate((["alpha", "bravo"], ["bravo", "alpha"])):
            state = random_playout(
                find_game("goat-lords").new_state(2, seed), random.Random(seed + rotation)
            )
            outcome = state.result()
            result = MatchResult(
                game="goat-lords",
                seed=seed,
                players=seating,
                scores=outcome.scores,
                ranks=outcome.ranks,
                violations=[None, None],
                decisions=state.history,
            )
            key = f"0.goat-lords/alpha+bravo/d{deal}/r{rotation}"
            games.append(StoredGame(key=key, round=0, result=result))
    games.pop()  # the last deal's second rotation is missing: one unpaired game
    page = build_report("pairs", games)
    tables = re.findall(r'<table class="pairs">.*?</table>', page, re.S)
    assert len(tables) == 2  # overall and goat-lords
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", tables[0])
    assert cells[:3] == ["alpha", "bravo", "2"]  # two complete pairs
    assert sum(int(count) for count in cells[3:8]) == 2
    assert cells[-1] == "1"  # unpaired games
    assert "pentanomial Elo" in tables[0] and "95% interval" in tables[0]


def test_a_large_two_player_field_lists_the_game_pairs_of_the_top_bots(tmp_path):
    # 30 bots make 435 pairs: the game-pairs table keeps the 300 among the top 25 of
    # the standings and says where the rest are.
    from goatarena.bench.synthetic import build_store
    from goatarena.report import html

    db = tmp_path / "field.sqlite"
    build_store(db, 3000, bots=30, players=2, game_types=["mountain-goats"])
    out = tmp_path / "field.html"
    made = CliRunner().invoke(main, ["report", "--db", str(db), "-o", str(out)])
    assert made.exit_code == 0, made.output
    page = out.read_text()
    overall = page[page.index('data-table="overall"') :]
    start = overall.index('<table class="pairs">')
    table = overall[start : overall.index("</table>", start)]
    rows = re.findall(r"<tr><td class=bot>([^<]+)</td><td class=bot>([^<]+)</td>", table)
    assert html.MAX_PAIR_ROWS == 25 * 24 // 2
    assert 0.9 * html.MAX_PAIR_ROWS < len(rows) <= html.MAX_PAIR_ROWS  # a few never met
    standings = page[page.index('id="standings"') : page.index('id="heat"')]
    order = list(dict.fromkeys(re.findall(r"bot\d{4}", standings)))
    assert {bot for pair in rows for bot in pair} == set(order[:25])
    assert "lists every pair" in overall[start : start + len(table) + 400]


def test_a_field_past_the_heat_map_limit_shows_the_top_of_the_standings(tmp_path, monkeypatch):
    # The drawn heat map's arrays grow with the square of the bots: past MAX_HEAT_BOTS
    # it shows the top of the standings and says where every pair is.
    from goatarena.bench.synthetic import build_store
    from goatarena.report import html

    monkeypatch.setattr(html, "MAX_HEAT_BOTS", 50)
    db = tmp_path / "field.sqlite"
    build_store(db, 400, bots=60, players=4, game_types=["mountain-goats"])
    out = tmp_path / "field.html"
    made = CliRunner().invoke(main, ["report", "--db", str(db), "-o", str(out)])
    assert made.exit_code == 0, made.output
    page = out.read_text()
    found = json.loads(re.search(r'id="report-data"[^>]*>(.*?)</script>', page, re.S).group(1))
    heat = found["heat"]["overall"]
    assert len(heat["bots"]) == 50 and len(heat["games"]) == 50 * 50
    standings = page[page.index('id="standings"') : page.index('id="heat"')]
    order = list(dict.fromkeys(re.findall(r"bot\d{4}", standings)))
    assert heat["bots"] == order[:50]
    assert "The top 50 of 60 bots" in page
