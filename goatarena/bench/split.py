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

    Random games seeded 0, 1, 2... are played until ``decisions`` are made, each decision
    doing what :mod:`goatarena.referee.match` asks of the game; then the requests those
    decisions make are encoded (and a reply decoded per decision). CPU time over each
    whole pass, not wall time, keeps other load on the machine out.
    """
    made = seed = 0
    chooser = random.Random(0)
    requests: list[protocol.Decide] = []
    started = time.process_time()
    while made < decisions:
        state = info.new_state(players, seed)
        seed += 1
        events: list[protocol.Event] = []
        while (number := state.to_act) is not None:
            actions = state.legal_actions()
            requests.append(
                protocol.Decide(
                    decision=made,
                    observation=state.observation(number),
                    actions=actions,
                    time_ms=time_ms,
                    events=events[-players:],
                )
            )
            index = chooser.randrange(len(actions))
            action = state.public_action(number, actions[index])
            state.apply_index(index)
            events.append(protocol.Event(seat=number, action=action))
            made += 1
    engine = (time.process_time() - started) / made
    encode, decode = protocol.encode, protocol.parse_bot_message
    started = time.process_time()
    for request in requests:
        encode(request)
        decode(REPLY)
    return engine, (time.process_time() - started) / made


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
