"""Play Python bots against each other in this process: :func:`play_local` (re-exported by
:mod:`goatarena.sdk`)."""

from __future__ import annotations

import operator
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from goatarena.protocol import TimeInfo, bot_seed, unique_names
from goatarena.sdk._bot import Bot, GameEnd, GameStart
from goatarena.sdk._local_request import LocalRequest, unshared_count


class LocalPlayError(ValueError):
    """Raised by :func:`play_local` when a bot chooses something that is not a legal index."""


@dataclass
class LocalResult:
    """The outcome of :func:`play_local`: scores and ranks by seat, and how to replay it.

    ``decisions`` are the actions taken in order (with ``game``, ``seed`` and ``options``
    they replay the game); ``slowest_ms`` is each seat's longest :meth:`Bot.choose`.
    """

    game: str
    seed: int
    players: list[str]
    scores: list[float]
    ranks: list[int]
    decisions: list[Any]
    options: dict[str, Any]
    slowest_ms: list[float]


def play_local(
    bots: Sequence[Bot],
    game: str,
    *,
    seed: int,
    options: Mapping[str, Any] | None = None,
    move_ms: int = 1000,
) -> LocalResult:
    """Play one game of ``game`` between ``bots`` (one per seat) in this process.

    Each bot is driven as the referee drives it (start, choose, end) with the real
    observations, legal actions and public events, passed through JSON exactly as a bot
    process would receive them; only the clock is not enforced (see
    :attr:`LocalResult.slowest_ms`). Raises :class:`LocalPlayError` when a bot answers
    with anything but a legal index, and ValueError for a wrong player count or the same
    bot object in two seats (give each seat its own).
    """
    from goatarena.errors import IllegalAction
    from goatarena.games import find_game  # the engines, only when playing locally
    from goatarena.games.base import State

    if len({id(bot) for bot in bots}) != len(bots):
        raise ValueError("each seat needs its own bot object")
    info = find_game(game)
    state = info.new_state(len(bots), seed, options)
    names = unique_names([bot.name for bot in bots])
    clock = TimeInfo(move_ms=move_ms)
    for number, bot in enumerate(bots):
        bot.start(
            GameStart(game, number, list(names), dict(state.options), clock, bot_seed(seed, number))
        )
    public: list[tuple[int, Any]] = []
    seen = [0] * len(bots)
    slowest = [0.0] * len(bots)
    unshared = unshared_count()
    names_sent = list(names)
    seconds = move_ms / 1000
    # The hot loop of local self-play: names bound locally, one clock reading before and
    # one after each choice, and a request whose parts are made only when read.
    clock_now, refcount, make = time.monotonic, sys.getrefcount, LocalRequest.__new__
    to_act, apply_index, legal_actions = state._to_act, state.apply_index, state.legal_actions
    # A game that hides nothing of an action (the State default) needs no public copy of
    # it: the action apply_index returns is what every seat learns.
    hides = type(state).public_action is not State.public_action
    public_action = state.public_action
    # The fields every request of this game shares; each seat's request object is used
    # again while the bot keeps none (the refcount says so), with a fresh copy of these
    # once any of its parts was made.
    shared = {"game": game, "time_ms": move_ms, "players": names_sent, "_state": state}
    shared["_public"] = public
    fresh_size = len(shared) + 6  # and seat, decision, _since, _until, deadline, action_count
    kept = unshared + 1  # (+1: the reference in requests)
    requests: list[LocalRequest | None] = [None] * len(bots)
    choosers = [bot.choose for bot in bots]
    while (seat := to_act()) is not None:
        request = requests[seat]
        if request is None or len(fields := request.__dict__) != fresh_size:
            if request is None:
                request = requests[seat] = make(LocalRequest)
            request.__dict__ = fields = shared.copy()
        fields["seat"] = seat
        fields["decision"] = decision = len(public)  # one public action per decision
        fields["_since"] = seen[seat]
        fields["_until"] = seen[seat] = decision
        fields["action_count"] = len(legal_actions())  # (a field: a random bot reads it)
        started = clock_now()
        fields["deadline"] = started + seconds
        answer = choosers[seat](request)
        elapsed = clock_now() - started
        if elapsed > slowest[seat]:
            slowest[seat] = elapsed
        if refcount(request) > kept:
            request.seal()  # the bot kept it: complete it before the state moves on
            requests[seat] = None
        if type(answer) is not int:
            answer = _legal_index(answer, len(legal_actions()), names[seat], decision)
        if hides:
            actions = legal_actions()
            if not 0 <= answer < len(actions):
                _legal_index(answer, len(actions), names[seat], decision)
            public.append((seat, public_action(seat, actions[answer])))
            apply_index(answer)
            continue
        try:
            public.append((seat, apply_index(answer)))
        except IllegalAction:  # (an index out of range: the state is unchanged)
            _legal_index(answer, len(legal_actions()), names[seat], decision)
            raise
    result = state.result()
    for number, bot in enumerate(bots):
        bot.end(GameEnd(list(result.scores), list(result.ranks), number))
    return LocalResult(
        game=game,
        seed=seed,
        players=names,
        scores=list(result.scores),
        ranks=list(result.ranks),
        decisions=list(state.history),
        options=dict(state.options),
        slowest_ms=[round(seconds * 1000, 3) for seconds in slowest],
    )


def _legal_index(answer: Any, count: int, name: str, decision: int) -> int:
    try:
        if isinstance(answer, bool):
            raise TypeError
        index = operator.index(answer)
    except TypeError:
        raise LocalPlayError(
            f"{name} answered decision {decision} with {answer!r}, not an index"
        ) from None
    if not 0 <= index < count:
        raise LocalPlayError(
            f"{name} answered decision {decision} with index {index}, outside 0..{count - 1}"
        )
    return index
