"""Readable logs of finished games, whole or from one seat's point of view.

A game is replayed from its record (seed plus decisions) through the engine. Seen from
one seat, the log holds only what that seat saw while playing: its own observation at
each of its decisions, and the other seats' decisions as far as they were public.
"""

from __future__ import annotations

import msgspec
from tabulate import tabulate

from goatarena.games import find_game
from goatarena.referee.match import MatchResult
from goatarena.referee.policy import Penalty


def _json(value: object) -> str:
    return msgspec.json.encode(value).decode()


def describe_match(result: MatchResult, *, seat: int | None = None) -> str:
    """The decisions, the final position and the result; ``seat`` hides the rest."""
    info = find_game(result.game)
    state = info.new_state(len(result.players), result.seed, result.options)
    names = ", ".join(f"seat {number} {name}" for number, name in enumerate(result.players))
    viewer = "" if seat is None else f", as seen by seat {seat}"
    lines = [f"{info.title}, seed {result.seed}{viewer}: {names}"]
    for number, action in enumerate(result.decisions):
        actor = state.to_act
        assert actor is not None, "a stored game has more decisions than its engine allows"
        if seat is not None and actor == seat:
            lines.append(f"  [{number}] you see: {_json(state.observation(seat))}")
        shown = action if seat in (None, actor) else state.public_action(actor, action)
        lines.append(f"  [{number}] {actor} {result.players[actor]}: {_json(shown)}")
        state.apply(action)
    lines.append(state.render() if seat is None else _json(state.observation(seat)))
    lines.append(_result_table(result))
    lines.extend(_strike_notes(result))
    return "\n".join(lines)


def _result_table(result: MatchResult) -> str:
    rows = []
    for number, name in enumerate(result.players):
        violation = result.violations[number]
        note = (
            f"{violation.cause} at decision {violation.decision}: {violation.detail}"
            if violation
            else ""
        )
        rows.append((number, name, result.scores[number], result.ranks[number], note))
    return tabulate(rows, headers=["seat", "bot", "score", "rank", "violation"])


def _strike_notes(result: MatchResult) -> list[str]:
    return [
        f"seat {number} {violation.cause} at decision {violation.decision}: "
        f"{violation.detail}, a random move was played"
        for number, violations in enumerate(result.all_violations)
        for violation in violations
        if violation.penalty != Penalty.FORFEIT
    ]
