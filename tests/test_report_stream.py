"""The report reads a results database as the games' summaries, streamed twice, and the
full records of only the games it embeds a replay of or lists the violations of."""

from __future__ import annotations

import random

from click.testing import CliRunner

from goatarena.cli import main
from goatarena.formats.config import SprtSettings, TournamentConfig
from goatarena.formats.sprt import llr_course
from goatarena.games import find_game
from goatarena.ratings.standings import compute_standings
from goatarena.referee.records import MatchResult
from goatarena.report import StoreSource, build_report, data
from goatarena.store.database import StoredGame
from goatarena.store.opening import open_store
from goatarena.store.summary import summary_of
from goatarena.testing import random_playout
from tests.test_report import embedded, msgspec_json, stored_games


class CountingSource(StoreSource):
    """A store's games, remembering which full records were asked for."""

    asked: set[str]

    def records(self, keys):
        self.asked = set(keys)
        return super().records(keys)


def store_of(path, games):
    store = open_store(path)
    for game in games:
        store.add_game(game.key, game.round, game.result)
    return store


def test_a_report_of_a_store_is_the_report_of_its_games_reading_few_records(tmp_path):
    games = stored_games(per_game=6)
    store = store_of(tmp_path / "t.sqlite", games)
    source = CountingSource(store)
    try:
        page = build_report("demo", source, replays=3)
    finally:
        store.close()
    assert page == build_report("demo", games, replays=3)
    # the replays and the one game with a violation, nothing else
    rows = embedded(page, "report-data")["list"]["rows"]
    replayed = {row[0] for row in rows if row[8]}
    violated = {row[0] for row in rows if row[6]}
    assert len(replayed) == 3 and len(violated) == 1 and source.asked == replayed | violated
    assert "no answer in 1000 ms" in page.split('class="violation-list"', 1)[1]


def test_the_list_is_capped_and_keeps_every_replayed_game(monkeypatch):
    monkeypatch.setattr(data, "LIST_LIMIT", 6)
    games = stored_games(per_game=5)
    page = build_report("demo", games, replays=2)
    rows = embedded(page, "report-data")["list"]["rows"]
    assert len(rows) < len(games) and sum(row[8] for row in rows) == 2
    assert f"the list shows {len(rows)} of the games" in page


def test_each_games_history_ends_on_its_standings_row():
    results = [game.result for game in stored_games(per_game=8)]
    found = data.read_report_data(
        "t", lambda: (summary_of(f"g/{n}", 0, r, 0.0) for n, r in enumerate(results)), {}, 0
    )
    standings = compute_standings("t", results).standings
    for table, history in found.history.items():
        rows = {row.bot: row for row in standings[table]}
        assert set(history) == set(rows)
        for bot, points in history.items():
            assert points[-1] == (rows[bot].games, rows[bot].elo, rows[bot].lo, rows[bot].hi)


def test_a_gauntlet_store_shows_its_sprt_course_counted_from_the_summaries(tmp_path):
    settings = SprtSettings(elo0=0, elo1=50)
    config = TournamentConfig(
        name="g",
        bots={"new": "python3 new.py", "old": "python3 old.py"},
        games=[{"name": "goat-lords", "players": 2}],
        format="gauntlet",
        challengers=["new"],
        sprt=settings,
    )
    rng = random.Random(5)
    games = []
    for deal in range(6):
        for rotation, seating in enumerate((["new", "old"], ["old", "new"])):
            state = random_playout(find_game("goat-lords").new_state(2, deal), rng)
            outcome = state.result()
            result = MatchResult(
                game="goat-lords",
                seed=deal,
                players=seating,
                scores=outcome.scores,
                ranks=outcome.ranks,
                violations=[None, None],
                decisions=state.history,
            )
            key = f"0.goat-lords.2p/new+old/d{deal}/r{rotation}"
            games.append(StoredGame(key=key, round=0, result=result))
    db = tmp_path / "g.sqlite"
    store = store_of(db, games)
    store.claim(tournament="g", fingerprint="f", config_json=msgspec_json(config))
    store.close()
    out = tmp_path / "r.html"
    result = CliRunner().invoke(main, ["report", "--db", str(db), "-o", str(out)])
    assert result.exit_code == 0, result.output
    _, course = llr_course(settings, ["new", "old"], "new", ((g.key, g.result) for g in games))
    section = out.read_text().split('id="sprt"', 1)[1].split("</section>", 1)[0]
    assert f"log-likelihood ratio {course[-1][1]:.2f} after 6 pairs of games" in section
    assert len(course) == 6
