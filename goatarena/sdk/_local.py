"""Play Python bots against each other in this process: :func:`play_local` (re-exported by
:mod:`goatarena.sdk`)."""

from __future__ import annotations

import operator
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from goatarena.protocol import Event, TimeInfo, bot_seed, unique_names
from goatarena.sdk._bot import Bot, GameEnd, GameStart, Request


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


_events_type = list[Event]


def _as_sent(value: Any, kind: Any = Any) -> Any:
    """``value`` as the bot would decode it from the wire (and never the engine's object)."""
    return msgspec.json.decode(msgspec.json.encode(value), type=kind)


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
    from goatarena.games import find_game  # the engines, only when playing locally

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
    events: list[Event] = []
    seen = [0] * len(bots)
    histories: list[list[Event]] = [[] for _ in bots]
    slowest = [0.0] * len(bots)
    while (seat := state.to_act) is not None:
        actions = state.legal_actions()
        new_events = _as_sent(events[seen[seat] :], _events_type)
        seen[seat] = len(events)
        histories[seat].extend(new_events)
        request = Request(
            game=game,
            seat=seat,
            decision=len(state.history),
            observation=_as_sent(state.observation(seat)),
            actions=_as_sent(actions),
            time_ms=move_ms,
            deadline=time.monotonic() + move_ms / 1000,
            history=list(histories[seat]),
            events=new_events,
            players=list(names),
        )
        started = time.perf_counter()
        answer = bots[seat].choose(request)
        slowest[seat] = max(slowest[seat], (time.perf_counter() - started) * 1000)
        index = _legal_index(answer, len(actions), names[seat], request.decision)
        action = actions[index]
        events.append(Event(seat=seat, action=state.public_action(seat, action)))
        state.apply_index(index)
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
        slowest_ms=[round(ms, 3) for ms in slowest],
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
