"""A bot pays for its own bytes: however it writes them, the referee's CPU per decision
stays near what the same bytes cost written whole, and its line cap holds across pieces."""

from __future__ import annotations

import shlex
import sys
import time

import pytest
import trio

from goatarena import protocol
from goatarena.games import find_game
from goatarena.referee import (
    BotViolation,
    Cause,
    MatchResult,
    TimeControl,
    open_bot,
    play_match,
)
from goatarena.referee.lineup import open_lineup
from tests.helpers import RANDOM_BOT, ROOT, python_bot

DRIBBLE = ROOT / "tests" / "bots" / "hostile_dribble.py"
CONTROL = TimeControl(move_ms=300, startup_ms=5000)
FIELD_BYTES = 24 << 10
"""Bytes per answer: a byte per write() every ~6 us over 150 ms (the bot spins)."""
MOST_EXTRA_CPU = 15.0
"""How many times the CPU of the same bytes written whole the referee may spend on a
dribbling bot's game. Measured: 3-6 times; 80-110 times when it woke for every byte."""


def dribbling(pattern: str) -> str:
    """The command of the dribbling test bot writing its bytes in ``pattern``."""
    return f"{shlex.quote(sys.executable)} {DRIBBLE} {pattern} {FIELD_BYTES} 0.5"


def referee_cpu(commands: list[str]) -> tuple[MatchResult, float]:
    """Play one Mountain Goats game; the referee process's CPU seconds during it."""

    async def main() -> tuple[MatchResult, float]:
        async with open_lineup(commands, startup_s=CONTROL.startup_ms / 1000) as bots:
            started = time.process_time()
            result = await play_match(
                find_game("mountain-goats"), bots, seed=1, time_control=CONTROL
            )
            return result, time.process_time() - started

    return trio.run(main)


@pytest.mark.slow
def test_a_bot_that_dribbles_its_bytes_costs_the_referee_about_what_they_cost_whole():
    """The same game three times: the bot's answer (or its stderr) a byte per write()
    over most of each move, against the same bytes in one write() after that time. Each
    game is the same (the bot always plays index 0), so CPU totals compare as is."""
    # Imports and first-game set-up, paid once before any game is measured: two random
    # movers play the same code paths in a fraction of a second, not a paced game.
    referee_cpu([RANDOM_BOT, RANDOM_BOT])
    whole, whole_cpu = referee_cpu([dribbling("whole"), RANDOM_BOT])
    assert whole.violations == [None, None]
    for pattern in ("stdout", "stderr"):
        result, cpu = referee_cpu([dribbling(pattern), RANDOM_BOT])
        assert result.all_violations[1] == [], pattern  # the honest seat loses nothing
        assert cpu < MOST_EXTRA_CPU * whole_cpu, (pattern, cpu, whole_cpu)


OVER_THE_CAP = """\
import os, sys
sys.stdin.buffer.readline()
os.write(1, b'{"type":"hello","name":"')
while True:
    os.write(1, b"a")
"""
"""Writes a line without end, a byte per write()."""


def test_a_line_over_the_cap_is_refused_in_pieces_before_its_end():
    async def main() -> BotViolation:
        async with open_bot(python_bot(OVER_THE_CAP)) as bot:
            await bot.send(protocol.Hello())
            with trio.fail_after(30), pytest.raises(BotViolation) as raised:
                await bot.receive()
            return raised.value

    violation = trio.run(main)
    assert violation.cause == Cause.MALFORMED
    assert violation.detail == f"a line longer than {protocol.MAX_LINE_BYTES} bytes"
