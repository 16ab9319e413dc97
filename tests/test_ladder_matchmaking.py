"""The ladder's matchmaking: determinism, newcomers first, the floor, informative pairs."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from goatarena.bench import ladder_sim as sim
from goatarena.formats.ladder.estimate import QuickRatings
from goatarena.formats.ladder.matchmaking import (
    Contender,
    ContenderList,
    choose_table,
    default_rules,
    plan_pairs,
)
from goatarena.formats.ladder.state import Matchmaker


def settled(count: int = 16, *, games: int = 40, spread: float = 200.0) -> list[Contender]:
    rng = random.Random(1)
    return [Contender(f"b{i:02d}", games, rng.gauss(0.0, spread), 40.0) for i in range(count)]


def test_the_same_state_seed_and_index_give_the_same_table_and_reason():
    field = settled()
    plan = plan_pairs(field)
    first = [choose_table(field, plan, players=3, seed=7, index=i) for i in range(30)]
    again = [
        choose_table(list(reversed(field)), plan, players=3, seed=7, index=i) for i in range(30)
    ]
    assert first == again
    other_seed = [choose_table(field, plan, players=3, seed=8, index=i) for i in range(30)]
    assert first != other_seed
    assert all(choice is not None and len(set(choice.bots)) == 3 for choice in first)


def test_a_matchmaker_rebuilt_from_the_same_games_chooses_the_same_tables():
    """What resuming relies on: the same games recorded in the same order, the same
    choices afterwards."""
    truth = sim.truths(20, 3)
    rng = random.Random(3)
    original = Matchmaker(players=2, seed=5)
    for name in truth:
        original.add(name)
    played = []
    for _ in range(120):
        choice = original.next_table()
        assert choice is not None
        ranks = dict(zip(choice.bots, sim.plackett_luce(rng, [truth[n] for n in choice.bots])))
        original.record(ranks)
        original.record(ranks)  # the second rotation, same order for the test's sake
        played += [ranks, ranks]
    rebuilt = Matchmaker(players=2, seed=5)
    for name in truth:
        rebuilt.add(name)
    for ranks in played:
        rebuilt.record(ranks, chosen_here=False)
    rebuilt.index = original.index
    assert [original.next_table() for _ in range(20)] == [rebuilt.next_table() for _ in range(20)]


def test_a_newcomer_is_seated_first_against_bots_rated_near_it():
    field = settled(40)
    newcomer = Contender("new", 2, field[3].elo + 1.0, 60.0)
    plan = plan_pairs([*field, newcomer])
    tables = [choose_table([*field, newcomer], plan, players=2, seed=1, index=i) for i in range(40)]
    assert all(t is not None and "new" in t.bots and t.rule == "newcomer" for t in tables)
    opponents = Counter(name for t in tables if t for name in t.bots if name != "new")
    ranked = sorted(field, key=lambda bot: abs(bot.elo - newcomer.elo))
    near = {bot.name for bot in ranked[: default_rules(2).near]}
    assert set(opponents) <= near
    assert "new" in tables[0].reason and "newcomer" in tables[0].reason


def test_a_bot_below_the_floor_seats_the_next_table():
    field = settled(10)
    starved = Contender("b03", 20, field[3].elo, 40.0)  # mean ~38: under 0.7 × mean
    field[3] = starved
    choice = choose_table(field, plan_pairs(field), players=2, seed=2, index=0)
    assert choice is not None and choice.rule == "floor" and "b03" in choice.bots
    assert "b03 has 20 games" in choice.reason


def test_informative_tables_go_to_open_pairs_near_the_top():
    """Two bots level at the top and the rest far apart: the information rule plays the
    pair whose order is open, and no table is between bots whose order is settled."""
    field = [Contender("top1", 40, 400.0, 30.0), Contender("top2", 40, 401.0, 30.0)]
    field += [Contender(f"b{i}", 40, -300.0 * i, 30.0) for i in range(1, 8)]
    plan = plan_pairs(field)
    tables = [choose_table(field, plan, players=2, seed=4, index=i) for i in range(200)]
    informative = [t for t in tables if t is not None and t.rule == "information"]
    assert len(informative) > 120
    assert all(set(t.bots) == {"top1", "top2"} for t in informative)


def test_the_further_seats_of_an_informative_table_go_to_the_bots_whose_order_is_open():
    """Four bots level at the top, one rated just below them but settled (its order with
    them is surer than theirs among themselves, though it is nearer than any other), the
    rest far apart: the further seats of an informative four-seat table go to the bots
    whose order is open, and its reason names them."""
    field = [Contender(f"top{i}", 40, 400.0 + i, 30.0) for i in range(4)]
    field.append(Contender("settled", 40, 380.0, 1.0))
    field += [Contender(f"b{i}", 40, -300.0 * i, 30.0) for i in range(1, 6)]
    plan = plan_pairs(field)
    tables = [choose_table(field, plan, players=4, seed=4, index=i) for i in range(100)]
    informative = [t for t in tables if t is not None and t.rule == "information"]
    assert len(informative) > 60
    tops = {f"top{i}" for i in range(4)}
    # "settled" sits at a table only when it is one of the pair drawn (rarely: its
    # pairs are worth little), never in a further seat.
    assert all(len(set(t.bots) & tops) >= 3 for t in informative)
    assert sum(set(t.bots) == tops for t in informative) >= 0.9 * len(informative)
    assert all("; with top" in t.reason and "open pairs of weight" in t.reason for t in informative)


def test_a_table_of_four_seats_four_different_bots_and_none_when_too_few():
    field = settled(6)
    plan = plan_pairs(field)
    for index in range(50):
        choice = choose_table(field, plan, players=4, seed=3, index=index)
        assert choice is not None and len(set(choice.bots)) == 4
    assert choose_table(field[:3], plan_pairs(field[:3]), players=4, seed=3, index=0) is None


def test_the_contender_list_and_the_matchmaker_are_the_same_field():
    matchmaker = Matchmaker(players=2, seed=0)
    for name in ("a", "b", "c"):
        matchmaker.add(name)
    matchmaker.record({"a": 1, "b": 2}, chosen_here=False)
    listed = ContenderList(matchmaker.contenders())
    assert listed.fewest() == matchmaker.fewest() == matchmaker.contender("c")
    assert listed.mean_games() == pytest.approx(matchmaker.mean_games()) == pytest.approx(2 / 3)
    matchmaker.retire("c")
    assert matchmaker.fewest().name == "a" and matchmaker.mean_games() == 1.0


@pytest.mark.parametrize("players", [2, 4])
def test_no_active_bot_falls_below_half_the_mean_games(players):
    for seed in range(3):
        trial = sim.run_trial("ladder", bots=32, players=players, budget=30, seed=seed)
        assert trial.min_share >= 0.5


def test_the_quick_estimate_converges_to_the_ordering_of_the_truth():
    rng = random.Random(0)
    truth = {"a": 300.0, "b": 0.0, "c": -300.0}
    ratings = QuickRatings()
    for _ in range(300):
        table = rng.sample(list(truth), 2)
        ratings.add_game(dict(zip(table, sim.plackett_luce(rng, [truth[n] for n in table]))))
    fitted = sim.converged(ratings)
    assert fitted["a"] > fitted["b"] > fitted["c"]
    assert 400 < fitted["a"] - fitted["c"] < 800
    assert all(ratings.stderr(name) < 60 for name in truth)


def test_the_ladder_finds_the_top_more_often_than_uniform_tables():
    """A small version of the benchmark's goal, paired on the same truths."""
    ladder = sim.accuracy("ladder", bots=24, players=2, budget=20, trials=12, seed=100)
    uniform = sim.accuracy("uniform", bots=24, players=2, budget=20, trials=12, seed=100)
    assert ladder.top_right > uniform.top_right


def test_the_top_is_separated_once_each_of_the_top_k_is_surely_ahead_of_the_next():
    from goatarena.formats.ladder.stop import top_separated

    matchmaker = Matchmaker(players=2, seed=0)
    for name in ("a", "b", "c", "d"):
        matchmaker.add(name)
    assert not top_separated(matchmaker, 2)  # no games: nothing is known
    order = ["a", "b", "c", "d"]
    for _ in range(60):
        for upper, lower in zip(order, order[1:]):
            matchmaker.record({upper: 1, lower: 2}, chosen_here=False)
            matchmaker.record({upper: 1, lower: 2}, chosen_here=False)
    for _ in range(50):
        matchmaker.ratings.refresh(sweeps=1)
    assert top_separated(matchmaker, 2)
    level = Matchmaker(players=2, seed=0)
    for name in ("a", "b", "c"):
        level.add(name)
    for _ in range(40):
        level.record({"a": 1, "b": 2}, chosen_here=False)
        level.record({"b": 1, "a": 2}, chosen_here=False)
        level.record({"a": 1, "c": 2}, chosen_here=False)
    assert not top_separated(level, 1)  # a and b are level


def test_the_live_board_lists_the_active_bots_best_first_and_who_is_out():
    import io
    from types import SimpleNamespace

    from goatarena.formats.config import LadderSettings
    from goatarena.formats.ladder.deal_spread import DealSpread
    from goatarena.formats.ladder.state import Matchmaker
    from goatarena.running.ladder_board import LadderBoard, board_lines

    matchmaker = Matchmaker(players=2, seed=0)
    for name in ("strong", "weak", "new"):
        matchmaker.add(name)
    for _ in range(30):
        matchmaker.record({"strong": 1, "weak": 2}, chosen_here=False)
    for _ in range(30):
        matchmaker.ratings.refresh(sweeps=1)
    spread = DealSpread()
    for deal in range(5):  # deals of two rotations: the raw and the deal-adjusted interval
        for ranks in ({"strong": 1, "weak": 2}, {"weak": 2, "strong": 1}):
            spread.add(f"d{deal}", ranks, matchmaker.ratings)
    config = SimpleNamespace(
        name="lad",
        games=[SimpleNamespace(name="mountain-goats", players=2)],
        bots={"strong": "", "weak": "", "new": "", "old": "", "flaky": ""},
        ladder=LadderSettings(retired=["old"]),
    )
    ladder = SimpleNamespace(
        runner=SimpleNamespace(config=config),
        matchmakers=[matchmaker],
        spreads=[spread],
        validated={"strong", "weak", "new"},
        put_out={"flaky": "suspended: 9 of its last 50 games had a violation"},
        history={(0, "strong"): [10.0, 40.0]},
        last_game={},
    )
    lines = board_lines(ladder)  # type: ignore[arg-type]
    assert lines[0] == "mountain-goats (2 seats): 3 active"
    assert "±raw" in lines[1] and "±deal" in lines[1]
    new = next(line for line in lines[2:5] if line.split()[1] == "new")
    assert new.split()[4] == "-"  # no complete deal yet: no deal-adjusted interval
    strong = next(line for line in lines[2:5] if line.split()[1] == "strong")
    assert int(strong.split()[4]) > 0 and int(strong.split()[3]) > 0
    ranked = [line.split()[1] for line in lines[2:5]]
    assert ranked[0] == "strong" and ranked[-1] == "weak"
    assert "+30" in lines[2]  # the trend over its recent games
    assert "retired: old" in lines and any(
        line.startswith("out: flaky (suspended") for line in lines
    )
    stream = io.StringIO()
    board = LadderBoard(SimpleNamespace(config=config, ladder=ladder), stream=stream)  # type: ignore[arg-type]
    board.advance()
    assert "ladder lad: 1 games" in stream.getvalue() and "strong" in stream.getvalue()
