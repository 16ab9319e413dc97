"""The conformance check every game must pass: :func:`check_game`.

After OpenSpiel's ``random_sim_test`` and PettingZoo's ``api_test``: play many random
games and assert the invariants of the game interface, including that no observation
carries another seat's hidden information.
"""

from __future__ import annotations

import random

import msgspec

from goatarena.errors import IllegalAction
from goatarena.games import find_game
from goatarena.games.base import GameInfo, State

_encode = msgspec.json.encode
_decode = msgspec.json.decode

MAX_DECISIONS = 200_000
"""A game still running after this many decisions is taken not to terminate."""


class ConformanceError(AssertionError):
    """Raised by :func:`check_game` with the game, seed and decision that broke a rule."""


def check_game(
    name: str,
    *,
    players: int | None = None,
    games: int = 100,
    seed: int = 0,
    hidden_checks: int = 3,
) -> int:
    """Play ``games`` random games per player count and assert every invariant.

    With ``players`` None every allowed count is checked. Returns the number of decisions
    checked, so a caller can see the check did real work.
    """
    info = find_game(name)
    counts = [players] if players is not None else list(info.player_counts)
    checked = 0
    for count in counts:
        for game_index in range(games):
            game_seed = seed * 1_000_003 + count * 10_007 + game_index
            checked += _check_one_game(info, count, game_seed, hidden_checks)
    return checked


def _check_one_game(info: GameInfo, players: int, seed: int, hidden_checks: int) -> int:
    chooser = random.Random(seed ^ 0x5EED)
    state = info.new_state(players, seed)
    twin = info.new_state(players, seed)
    decisions = 0
    while not state.is_over:
        where = f"{info.name}, {players} players, seed {seed}, decision {decisions}"
        _check_decision_point(state, where, chooser, hidden_checks)
        action = chooser.choice(state.legal_actions())
        state.apply(action)
        twin.apply(_decode(_encode(action)))
        _expect(
            state.observation(0) == twin.observation(0),
            f"{where}: the same seed and decisions gave different states",
        )
        decisions += 1
        _expect(decisions < MAX_DECISIONS, f"{where}: the game did not end")
    _check_finished(info, state, f"{info.name}, {players} players, seed {seed}")
    return decisions


def _check_decision_point(
    state: State, where: str, chooser: random.Random, hidden_checks: int
) -> None:
    seat = state.to_act
    _expect(seat is not None and 0 <= seat < state.players, f"{where}: bad to_act {seat}")
    legal = state.legal_actions()
    _expect(len(legal) > 0, f"{where}: no legal action while the game is not over")
    _expect(_decode(_encode(legal)) == legal, f"{where}: legal actions are not plain JSON")
    _expect(len({_encode(a) for a in legal}) == len(legal), f"{where}: duplicate actions")
    _expect(legal == state.legal_actions(), f"{where}: legal actions are not stable")
    _check_rejects_illegal(state, where)
    for viewer in range(state.players):
        observation = state.observation(viewer)
        _expect(
            _decode(_encode(observation)) == observation,
            f"{where}: observation of seat {viewer} is not plain JSON",
        )
    if state.info.hidden_information:
        _check_hidden(state, where, chooser, hidden_checks)


def _check_rejects_illegal(state: State, where: str) -> None:
    probe = state.clone()
    for bogus in ({"not": "an action"}, "nonsense", -1, [None]):
        if bogus in probe.legal_actions():
            continue
        try:
            probe.apply(bogus)
        except IllegalAction:
            continue
        raise ConformanceError(f"{where}: the illegal action {bogus!r} was accepted")
    try:
        probe.apply_index(len(probe.legal_actions()))
    except IllegalAction:
        return
    raise ConformanceError(f"{where}: an out-of-range index was accepted")


def _check_hidden(state: State, where: str, chooser: random.Random, hidden_checks: int) -> None:
    """Redealing what a seat cannot see must leave that seat's observation unchanged."""
    for _ in range(hidden_checks):
        viewer = chooser.randrange(state.players)
        twin = state.determinize(viewer, chooser)
        _expect(
            twin.observation(viewer) == state.observation(viewer),
            f"{where}: seat {viewer}'s observation depends on cards it cannot see",
        )
        if twin.to_act == viewer:
            _expect(
                twin.legal_actions() == state.legal_actions(),
                f"{where}: seat {viewer}'s legal actions depend on cards it cannot see",
            )


def _check_finished(info: GameInfo, state: State, where: str) -> None:
    _expect(state.to_act is None, f"{where}: to_act is set after the end")
    _expect(state.legal_actions() == [], f"{where}: legal actions after the end")
    result = state.result()
    _expect(len(result.scores) == state.players, f"{where}: wrong number of scores")
    _expect(len(result.ranks) == state.players, f"{where}: wrong number of ranks")
    _expect(min(result.ranks) == 1, f"{where}: nobody is ranked first")
    for seat, rank in enumerate(result.ranks):
        better = sum(1 for other in result.ranks if other < rank)
        _expect(rank == better + 1, f"{where}: rank {rank} of seat {seat} is not competition")
    record = _decode(_encode(state.to_record()), type=type(state.to_record()))
    replayed = info.replay(record)
    _expect(replayed.result() == result, f"{where}: the record replays to another result")
    for viewer in range(state.players):
        _expect(
            replayed.observation(viewer) == state.observation(viewer),
            f"{where}: the record replays to another final state",
        )


def _expect(condition: bool, message: str) -> None:
    if not condition:
        raise ConformanceError(message)


def random_playout(state: State, rng: random.Random) -> State:
    """Play ``state`` to its end with uniform random choices (in place) and return it."""
    while not state.is_over:
        legal = state.legal_actions()
        state.apply_index(rng.randrange(len(legal)))
    return state
