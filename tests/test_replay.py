"""Replays of stored games, whole and from one seat's point of view."""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner

from goatarena.cli import main
from goatarena.games import GAMES, find_game
from goatarena.referee.records import MatchResult
from goatarena.render.replay import describe_match
from goatarena.render.words import describe_move
from goatarena.store.opening import open_store
from goatarena.testing import random_playout


def finished_game(name: str, players: int, seed: int) -> MatchResult:
    state = random_playout(find_game(name).new_state(players, seed), random.Random(seed))
    result = state.result()
    return MatchResult(
        game=name,
        seed=seed,
        players=[f"bot{seat}" for seat in range(players)],
        scores=result.scores,
        ranks=result.ranks,
        violations=[None] * players,
        decisions=state.history,
    )


@pytest.mark.parametrize("name", list(GAMES))
def test_a_seat_view_shows_only_that_seats_observations_and_public_moves(name):
    result = finished_game(name, 3, seed=11)
    log = describe_match(result, seat=1)
    seen = [line.split("you see: ", 1)[1] for line in log.splitlines() if "you see: " in line]
    assert seen and all(json.loads(text)["seat"] == 1 for text in seen)
    state = find_game(name).new_state(3, 11)
    for number, action in enumerate(result.decisions):
        actor = state.to_act
        assert actor is not None
        words = describe_move(state, action, viewer=1)
        assert f"[{number}] {actor} bot{actor}: {words}" in log
        if actor != 1 and state.public_action(actor, action) != action:
            assert "a card" in words  # what seat 1 did not see is not told
        state.apply(action)


def test_the_whole_game_log_ends_with_the_final_position_and_result():
    result = finished_game("mountain-goats", 2, seed=3)
    log = describe_match(result)
    assert "you see" not in log
    assert len([line for line in log.splitlines() if line.startswith("  [")]) == len(
        result.decisions
    )
    assert "scores:" in log and "rank" in log


def test_replay_command_finds_games_by_key_or_number(tmp_path):
    db = tmp_path / "r.sqlite"
    store = open_store(db)
    store.add_game("g/one", 1, finished_game("goat-lords", 2, seed=5))
    store.add_game("g/two", 2, finished_game("goat-n-goat", 2, seed=6))
    store.close()
    runner = CliRunner()
    by_number = runner.invoke(main, ["replay", "2", "--db", str(db)])
    by_key = runner.invoke(main, ["replay", "g/two", "--db", str(db)])
    assert by_number.exit_code == 0 and by_number.output == by_key.output
    assert "Goat 'n' Goat" in by_number.output
    as_json = json.loads(runner.invoke(main, ["replay", "g/one", "--db", str(db), "--json"]).output)
    assert as_json["key"] == "g/one" and as_json["result"]["game"] == "goat-lords"
    missing = runner.invoke(main, ["replay", "g/three", "--db", str(db)])
    assert missing.exit_code != 0 and "no game 'g/three'" in missing.output
    bad_seat = runner.invoke(main, ["replay", "1", "--db", str(db), "--seat", "5"])
    assert bad_seat.exit_code != 0 and "seat 5 does not exist" in bad_seat.output


@pytest.mark.parametrize("name", list(GAMES))
def test_replay_draws_a_board_before_every_decision_and_at_the_end(tmp_path, name):
    db = tmp_path / "r.sqlite"
    store = open_store(db)
    result = finished_game(name, 3, seed=8)
    store.add_game("g/one", 1, result)
    store.close()
    runner = CliRunner()
    whole = runner.invoke(main, ["replay", "g/one", "--db", str(db)])
    assert whole.exit_code == 0 and "\x1b" not in whole.output  # no colour in a pipe
    count = len(result.decisions)
    assert whole.output.count("-- decision ") == count
    assert "-- final" in whole.output and "game over" in whole.output
    as_seat = runner.invoke(main, ["replay", "g/one", "--db", str(db), "--seat", "2"]).output
    state = find_game(name).new_state(3, 8)
    own = 0
    for action in result.decisions:
        own += state.to_act == 2
        state.apply(action)
    assert as_seat.count("-- decision ") == own and as_seat.count("(you)") == own + 1
    at = runner.invoke(main, ["replay", "g/one", "--db", str(db), "--at", "1"]).output
    assert at.count("-- decision ") == 1 and "-- decision 1 " in at and "-- final" not in at
    end = runner.invoke(main, ["replay", "g/one", "--db", str(db), "--at", str(count)]).output
    assert "-- decision" not in end and "-- final" in end
    beyond = runner.invoke(main, ["replay", "g/one", "--db", str(db), "--at", str(count + 1)])
    assert beyond.exit_code != 0 and f"decision {count + 1} does not exist" in beyond.output
    assert "Traceback" not in beyond.output


def test_replay_shows_moves_in_words_and_no_round_zero(tmp_path):
    db = tmp_path / "r.sqlite"
    store = open_store(db)
    store.add_game("mg/one", 0, finished_game("mountain-goats", 2, seed=5))
    store.add_game("sw/s2/a+b/d0", 2, finished_game("goat-lords", 2, seed=5))
    store.close()
    runner = CliRunner()
    plain = runner.invoke(main, ["replay", "mg/one", "--db", str(db)])
    assert plain.exit_code == 0, plain.output
    first = plain.output.splitlines()[0]
    assert first == "mg/one" and "round 0" not in plain.output
    moves = [line for line in plain.output.splitlines() if line.startswith("> [")]
    assert moves and all(": moves " in line for line in moves)
    assert '{"move"' not in plain.output
    swiss = runner.invoke(main, ["replay", "sw/s2/a+b/d0", "--db", str(db)])
    assert swiss.output.splitlines()[0] == "sw/s2/a+b/d0 (Swiss round 2)"
