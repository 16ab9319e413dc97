"""Readable logs and pictures of finished games, whole or from one seat's point of view.

A game is replayed from its record (seed plus decisions) through the engine. Seen from
one seat, the log holds only what that seat saw while playing: its own observation at
each of its decisions, and the other seats' decisions as far as they were public.
:func:`picture_match` draws the board before each decision with the game's text renderer.
"""

from __future__ import annotations

import msgspec
from tabulate import tabulate

from goatarena.errors import ConfigError
from goatarena.games import GameRecord, find_game
from goatarena.referee.policy import Penalty
from goatarena.referee.records import MatchResult
from goatarena.render import Style, render_board, replay_steps, seat_view
from goatarena.render.view import final_view
from goatarena.render.words import describe_action, describe_move


def _json(value: object) -> str:
    return msgspec.json.encode(value).decode()


def describe_match(result: MatchResult, *, seat: int | None = None) -> str:
    """The decisions, the final position and the result; ``seat`` hides the rest."""
    info = find_game(result.game)
    state = info.new_state(len(result.players), result.seed, result.options)
    names = ", ".join(f"seat {number} {name}" for number, name in enumerate(result.players))
    viewer = "" if seat is None else f", as seen by seat {seat}"
    lines = [f"{info.title}, seed {result.seed}{viewer}: {names}"]
    notes = played_for(result)
    for number, action in enumerate(result.decisions):
        actor = state.to_act
        assert actor is not None, "a stored game has more decisions than its engine allows"
        if seat is not None and actor == seat:
            lines.append(f"  [{number}] you see: {_json(state.observation(seat))}")
        words = describe_move(state, action, viewer=seat)
        note = notes.get(number, "")
        lines.append(f"  [{number}] {actor} {result.players[actor]}: {words}{note}")
        state.apply(action)
    lines.append(state.render() if seat is None else _json(state.observation(seat)))
    lines.append(_result_table(result))
    lines.extend(_strike_notes(result))
    return "\n".join(lines)


def record_of(result: MatchResult) -> GameRecord:
    """The record (seed plus decisions) that replays a finished game."""
    return GameRecord(
        game=result.game,
        players=len(result.players),
        seed=result.seed,
        decisions=list(result.decisions),
        options=result.options,
    )


def picture_match(
    result: MatchResult,
    *,
    seat: int | None = None,
    at: int | None = None,
    style: Style | None = None,
) -> str:
    """Boards of a game: the table before each decision and the choice made, then the end.

    With ``seat``, boards only before that seat's own decisions, drawn as it saw them,
    and the other seats' choices as far as they were public. With ``at``, only the
    board before decision ``at`` (the number of decisions means the final board).
    """
    style = style or Style()
    info = find_game(result.game)
    names = result.players
    count = len(result.decisions)
    check_decision(result, at)
    viewer = "" if seat is None else f", as seen by seat {seat}"
    players = ", ".join(f"{style.seat(n, f'seat {n}')} {name}" for n, name in enumerate(names))
    lines = [f"{info.title}, seed {result.seed}, {count} decisions{viewer}: {players}"]
    record = record_of(result)
    notes = played_for(result)
    for step in replay_steps(record):
        if at is not None and step.number != at:
            continue
        mine = seat is None or step.actor == seat
        if mine or at is not None:
            view = step.view if seat is None else seat_view(step.view, seat)
            lines.append(_rule(style, f"decision {step.number}"))
            lines.append(render_board(info.name, view, style, names))
        action = step.action if seat in (None, step.actor) else step.shown
        label = style.seat(step.actor, f"seat {step.actor} {names[step.actor]}")
        words = describe_action(info.name, step.view, step.actor, action)
        note = style.paint(notes[step.number], "grey") if step.number in notes else ""
        lines.append(f"{style.paint('>', 'bold')} [{step.number}] {label}: {words}{note}")
        if step.number == at:
            break
    if at is None or at == count:
        view = final_view(record)
        lines.append(_rule(style, "final"))
        lines.append(
            render_board(info.name, view if seat is None else seat_view(view, seat), style, names)
        )
        lines.append(_result_table(result))
        lines.extend(_strike_notes(result))
    return "\n".join(lines)


def check_decision(result: MatchResult, at: int | None) -> None:
    """Raise a :class:`ConfigError` unless ``at`` is None or a decision of the game (or its end)."""
    count = len(result.decisions)
    if at is not None and not 0 <= at <= count:
        raise ConfigError(
            f"decision {at} does not exist: the game had {count} decisions"
            f" (0 to {count - 1}; {count} is the end)"
        )


FORFEITED_NOTE = " (played for the forfeited seat)"
RANDOM_MOVE_NOTE = " (a random move, the penalty for: {cause})"


def played_for(result: MatchResult) -> dict[int, str]:
    """The decisions a bot did not choose, by number, with a note to show after each:
    every decision of a seat from the one it forfeited at (the referee plays them so the
    game goes on), and each random move a lesser violation got."""
    notes: dict[int, str] = {}
    for violations in result.all_violations:
        for violation in violations:
            if violation.penalty != Penalty.FORFEIT:
                notes[violation.decision] = RANDOM_MOVE_NOTE.format(cause=violation.cause)
    forfeited = {
        seat: violation.decision
        for seat, violation in enumerate(result.violations)
        if violation is not None and violation.penalty == Penalty.FORFEIT
    }
    if forfeited:
        state = find_game(result.game).new_state(len(result.players), result.seed, result.options)
        for number, action in enumerate(result.decisions):
            actor = state.to_act
            if actor in forfeited and number >= forfeited[actor]:
                notes[number] = FORFEITED_NOTE
            state.apply(action)
    return notes


def replay_header(key: str, schedule_round: int) -> str:
    """The line above a replayed game: its key, and its Swiss round when it has one.

    A stored round of 0 means the schedule has no rounds (round-robin, gauntlet); it is
    not the game's own round, which the board shows ("round 1" of Goat Lords, say).
    """
    return f"{key} (Swiss round {schedule_round})" if schedule_round else key


def result_summary(result: MatchResult) -> str:
    """The result table and the notes on strikes of a finished game."""
    return "\n".join([_result_table(result), *_strike_notes(result)])


def _rule(style: Style, title: str) -> str:
    return style.paint(f"-- {title} " + "-" * max(60 - len(title), 4), "grey")


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
