"""The HTML report: one self-contained file with standings, plots, games and replays."""

from __future__ import annotations

import base64
import gzip
import json
import random
import re

from click.testing import CliRunner

from goatarena.cli import main
from goatarena.games import GAMES, find_game
from goatarena.referee.records import MatchResult, Violation
from goatarena.render.view import observation_of
from goatarena.report import build_report
from goatarena.report.replays import choose_replays
from goatarena.store.database import StoredGame, open_store
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
    for (actor, action, _shown, view), decision in zip(replay["steps"], game.result.decisions):
        assert actor == state.to_act and action == decision
        for seat in range(3):
            assert observation_of(view, seat) == state.observation(seat)
        state.apply(action)
    assert replay["end"]["to_act"] is None and replay["ranks"] == game.result.ranks


def test_big_tournaments_embed_a_bounded_share_of_replays_of_every_game():
    games = stored_games(per_game=10)
    chosen = choose_replays(games, 8)
    kinds = [game.result.game for game in chosen]
    assert len(chosen) == 8 and all(kinds.count(name) == 2 for name in GAMES)
    assert "herr-der-ziegen/0" in {game.key for game in chosen}  # the one with a violation
    assert choose_replays(games, 100) == games
    assert choose_replays(games, 0) == [] and len(choose_replays(games, 3)) == 3


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


def test_the_rating_history_ends_at_each_bots_games_and_the_full_fit():
    from goatarena.ratings.fit import fit_ratings
    from goatarena.report.data import rating_history

    results = [game.result for game in stored_games(per_game=3)]
    history = rating_history(results, checkpoints=5)
    final = fit_ratings([dict(zip(r.players, r.ranks)) for r in results])
    for bot, points in history.items():
        games = sum(bot in result.players for result in results)
        assert points[-1][0] == games and points[-1][1] == final[bot].elo
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
    assert [row[-1] for row in rows] == [False, True, True, True]
    assert games[0].key not in embedded(page, "report-replays")
    assert f"1 could not be replayed ({games[0].key}: " in page
