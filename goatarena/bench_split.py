"""Where a referee's decision goes: the pieces the benchmark splits it into.

A decision between the referee and a subprocess bot costs

- *engine*: what the referee asks of the game for it — the seat to act, the legal
  actions, the seat's observation, what the others learn of the action, applying it;
- *encoding*: the decide line written and the bot's reply decoded;
- *pipe*: the round trip of a line to a process that answers at once (the floor);
- *bot*: the CPU time the bot process spends on it, its share of the pipe excepted;
- *other*: the rest, the referee's own loop (trio, clocks, bookkeeping).

Engine and encoding are timed here, in process, over the same seeded random games the
benchmark plays; the bot's share is read from the kernel's account of its CPU time
(``/proc/PID/schedstat``, in nanoseconds) while it plays.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

from goatarena import protocol
from goatarena.games.base import GameInfo

REPLY = b'{"type":"action","index":0,"decision":7}'
"""A typical reply line, decoded once per decision in the encoding measurement."""


def cpu_ns(pid: int) -> int | None:
    """The CPU time process ``pid`` has used so far in nanoseconds; None where unknown."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def total_cpu_ns(pids: list[int]) -> int | None:
    """The summed CPU time of ``pids`` (None if any of them cannot be read)."""
    total = 0
    for pid in pids:
        used = cpu_ns(pid)
        if used is None:
            return None
        total += used
    return total


def engine_and_encoding_s(
    info: GameInfo, players: int, decisions: int, *, time_ms: int
) -> tuple[float, float]:
    """CPU seconds per decision of (engine, encoding) as the referee spends them.

    The same seeded random games are played twice, without and with the encoding; CPU
    time (not wall time) over each whole pass keeps other load on the machine out.
    """
    engine = _referee_work(info, players, decisions, time_ms=time_ms, encoding=False)
    both = _referee_work(info, players, decisions, time_ms=time_ms, encoding=True)
    return engine, max(0.0, both - engine)


def _referee_work(
    info: GameInfo, players: int, decisions: int, *, time_ms: int, encoding: bool
) -> float:
    """CPU seconds per decision of random games played as the referee plays them.

    Games seeded 0, 1, 2... are played until ``decisions`` are made; each decision does
    what :mod:`goatarena.referee.match` does for it, the encoding only if asked.
    """
    encode, decode = protocol.encode, protocol.parse_bot_message
    made = seed = 0
    chooser = random.Random(0)
    started = time.process_time()
    while made < decisions:
        state = info.new_state(players, seed)
        seed += 1
        events: list[protocol.Event] = []
        while (number := state.to_act) is not None:
            actions = state.legal_actions()
            observation = state.observation(number)
            if encoding:
                request = protocol.Decide(
                    decision=made,
                    observation=observation,
                    actions=actions,
                    time_ms=time_ms,
                    events=events[-players:],
                )
                encode(request)
                decode(REPLY)
            index = chooser.randrange(len(actions))
            action = state.public_action(number, actions[index])
            state.apply_index(index)
            events.append(protocol.Event(seat=number, action=action))
            made += 1
    return (time.process_time() - started) / made


class CpuWatch:
    """The CPU time this process and processes ``pids`` use from its creation on."""

    def __init__(self, pids: list[int]) -> None:
        self.pids = pids
        self._own = time.process_time()
        self._others = total_cpu_ns(pids)

    def per(self, count: int) -> tuple[float, float] | None:
        """Seconds per unit of ``count`` so far: (this process, the others); None where
        the others' time is unknown."""
        own = time.process_time() - self._own
        others = total_cpu_ns(self.pids)
        if self._others is None or others is None:
            return None
        return own / count, (others - self._others) / 1e9 / count
