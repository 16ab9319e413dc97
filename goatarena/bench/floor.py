"""The pipe floor: round trips of a real decide line to the smallest Python reader."""

from __future__ import annotations

import os
import random
import statistics
import time

import trio

from goatarena import protocol
from goatarena.bench.bots import BENCH_TIME
from goatarena.games import GameInfo
from goatarena.referee.spawn import ChildProcess


def sample_decide(info: GameInfo, players: int, *, seed: int = 1, turns: int = 10) -> bytes:
    """A decide line as the referee sends it, from a random game a few turns in."""
    state = info.new_state(players, seed)
    rng = random.Random(seed)
    for _ in range(turns):
        if state.is_over:
            break
        state.apply_index(rng.randrange(len(state.legal_actions())))
    if state.is_over:
        state = info.new_state(players, seed)
    seat = state.to_act
    assert seat is not None
    last = state.history[-1:]
    request = protocol.Decide(
        decision=len(state.history),
        observation=state.observation(seat),
        actions=state.legal_actions(),
        time_ms=BENCH_TIME.move_ms,
        events=[protocol.Event(seat=(seat - 1) % players, action=action) for action in last],
    )
    return protocol.encode(request)


def mean_decide_bytes(info: GameInfo, players: int, *, seed: int = 1) -> int:
    """The mean size of the decide lines of one random game, as the referee sends them."""
    state = info.new_state(players, seed)
    rng = random.Random(seed)
    sizes = []
    while (seat := state.to_act) is not None:
        request = protocol.Decide(
            decision=len(state.history),
            observation=state.observation(seat),
            actions=state.legal_actions(),
            time_ms=BENCH_TIME.move_ms,
        )
        sizes.append(len(protocol.encode(request)))
        state.apply_index(rng.randrange(len(state.legal_actions())))
    return round(statistics.mean(sizes))


async def raw_round_trips(process: ChildProcess, line: bytes, trips: int) -> float:
    """Seconds per round trip: write, wait until readable, read — nothing else."""
    out, into = _fd(process.stdin), _fd(process.stdout)
    started = time.perf_counter()
    for _ in range(trips):
        await _write_all(out, line)
        reply = b""
        while not reply.endswith(b"\n"):
            await trio.lowlevel.wait_readable(into)
            reply += os.read(into, 1 << 16)
    return (time.perf_counter() - started) / trips


def _fd(stream: object) -> int:
    assert isinstance(stream, trio.lowlevel.FdStream)
    return stream.fileno()


async def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            await trio.lowlevel.wait_writable(fd)


async def stream_round_trips(process: ChildProcess, line: bytes, trips: int) -> float:
    """Seconds per round trip through trio's streams (``send_all``/``receive_some``)."""
    assert process.stdin is not None and process.stdout is not None
    started = time.perf_counter()
    for _ in range(trips):
        await process.stdin.send_all(line)
        reply = b""
        while not reply.endswith(b"\n"):
            reply += await process.stdout.receive_some(1 << 16)
    return (time.perf_counter() - started) / trips
