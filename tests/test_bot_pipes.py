"""A bot process's pipes at their edges: replies in pieces, a full pipe, exits mid-wait."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest
import trio

from goatarena import protocol
from goatarena.games import find_game
from goatarena.referee import BotProcess, BotViolation, Cause, open_bot, play_match
from goatarena.referee.lineup import open_lineup
from goatarena.referee.sandbox import SandboxPolicy, probe
from tests.helpers import RANDOM_BOT, group_is_gone, misbehaving, python_bot

SPLIT_WRITER = """\
import os, sys, time
sys.stdin.buffer.readline()
for byte in b'{"type": "hello", "name": "split"}\\n':
    os.write(1, bytes([byte]))
    time.sleep(0.002)
os.write(1, b'{"type": "action", "index": 1}\\n{"type": "action", "index": 2}\\n{"type"')
time.sleep(0.05)
os.write(1, b': "action", "index": 3}\\n')
sys.stdin.buffer.readline()
"""
"""Writes its hello one byte at a time, then two lines and a half at once, then the rest."""


def test_a_reply_split_across_many_small_writes_is_read_whole():
    async def main() -> list[object]:
        async with open_bot(python_bot(SPLIT_WRITER)) as bot:
            await bot.send(protocol.Hello())
            with trio.fail_after(5):
                return [await bot.receive() for _ in range(4)]

    hello, *actions = trio.run(main)
    assert isinstance(hello, protocol.BotHello) and hello.name == "split"
    assert [action.index for action in actions] == [1, 2, 3]  # type: ignore[union-attr]


SLOW_READER = """\
import fcntl, hashlib, os, sys, time
fcntl.fcntl(0, fcntl.F_SETPIPE_SZ, 4096)
print('{"type": "hello", "name": "ready"}', flush=True)
for _ in range(2):
    data = b""
    while not data.endswith(b"\\n"):
        time.sleep(0.001)
        data += os.read(0, 1024)
    name = f"{len(data)}-{hashlib.sha256(data).hexdigest()}"
    print('{"type": "hello", "name": "%s"}' % name, flush=True)
"""
"""Shrinks its input pipe to one page, then reads 1 KiB a millisecond; tells what it got."""


def test_a_line_longer_than_the_pipe_reaches_a_slow_reader_intact():
    # 48 KiB through a 4 KiB pipe: the write fills the pipe and has to wait for the rest.
    big = b'{"type": "quit", "padding": "' + b"0123456789abcdef" * 3072 + b'"}\n'
    small = protocol.encode(protocol.Hello())

    async def reply_name(bot: BotProcess) -> str:
        reply = await bot.receive()
        assert isinstance(reply, protocol.BotHello)
        return reply.name

    async def main() -> tuple[list[str], float]:
        async with open_bot(python_bot(SLOW_READER)) as bot:
            with trio.fail_after(10):
                assert await reply_name(bot) == "ready"
                started = trio.current_time()
                await bot.send_bytes(big)
                took = trio.current_time() - started
                names = [await reply_name(bot)]
                await bot.send_bytes(small)
                names.append(await reply_name(bot))
        return names, took

    names, took = trio.run(main)
    assert names == [f"{len(line)}-{hashlib.sha256(line).hexdigest()}" for line in (big, small)]
    assert took > 0.02  # it did wait for the reader: some 44 reads of 1 KiB a millisecond


ORPHANING_EXIT = """\
import subprocess, sys, time
sys.stdin.buffer.readline()
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
if sys.argv[1] == "last-line":
    print('{"type": "hello", "name": "last"}', flush=True)
time.sleep(0.2)
print("bye", file=sys.stderr, flush=True)
sys.exit(5)
"""
"""Starts a child that keeps stdout and stderr open, waits, says bye on stderr, exits 5."""


@pytest.mark.parametrize("last_line", [False, True])
def test_an_exit_while_the_referee_waits_ends_the_wait_although_a_child_holds_the_pipe(
    last_line,
):
    command = f"{python_bot(ORPHANING_EXIT)} {'last-line' if last_line else 'silent'}"

    async def main() -> tuple[list[object], BotViolation, float, int]:
        async with open_bot(command) as bot:
            await bot.send(protocol.Hello())
            started = time.monotonic()
            received = []
            with trio.fail_after(5), pytest.raises(BotViolation) as caught:
                while True:
                    received.append(await bot.receive())
            return received, caught.value, time.monotonic() - started, bot.pid

    received, violation, elapsed, pid = trio.run(main)
    assert len(received) == int(last_line)
    assert violation.cause == Cause.CRASH
    assert violation.detail == "exited with code 5: bye"
    assert 0.2 <= elapsed < 1.0  # not the 5 s limit: an EOF never comes while the child lives
    assert group_is_gone(pid)


CLOSING_INPUT = """\
import os, sys, time
sys.stdin.buffer.readline()
os.close(0)
print('{"type": "hello", "name": "closed"}', flush=True)
time.sleep(float(sys.argv[1]))
print("bye", file=sys.stderr, flush=True)
sys.exit(2)
"""
"""Closes its input after one line, says so, and exits 2 after ARGV[1] seconds."""


@pytest.mark.parametrize(
    ("exit_after_s", "detail"),
    [(0.02, "exited with code 2: bye"), (3.0, "stopped reading its input")],
)
def test_a_send_that_finds_the_input_closed_is_a_crash_explained_by_the_exit(exit_after_s, detail):
    async def main() -> BotViolation:
        async with open_bot(f"{python_bot(CLOSING_INPUT)} {exit_after_s}") as bot:
            await bot.send(protocol.Hello())
            with trio.fail_after(5):
                await bot.receive()  # its input is closed now, and it is still running
                with pytest.raises(BotViolation) as caught:
                    await bot.send(protocol.Hello())
            return caught.value

    violation = trio.run(main)
    assert (violation.cause, violation.detail) == (Cause.CRASH, detail)


@pytest.mark.parametrize("sandboxed", [False, True])
def test_a_crashed_bot_keeps_its_pid_until_it_is_closed(sandboxed):
    """A bot that crashes early is closed only when its game ends. Until then its pid must
    stay taken: the referee signals its process group by that number as it closes it, and
    with 32768 pids a long game's worth of bot start-ups may hand the number to another
    game's bot meanwhile."""
    if sandboxed and probe() is not None:
        pytest.skip(f"no sandbox here: {probe()}")
    policy = SandboxPolicy() if sandboxed else None

    async def main() -> int:
        commands = [misbehaving("exit", 1), RANDOM_BOT]
        async with open_lineup(commands, startup_s=10, sandbox=policy) as bots:
            result = await play_match(find_game("mountain-goats"), bots, seed=1)
            violation = result.violations[0]
            assert violation is not None and violation.detail.startswith("exited with code 3")
            assert await bots[0].wait() == 3
            stat = Path(f"/proc/{bots[0].pid}/stat").read_text()
            assert stat.rsplit(")", 1)[1].split()[0] == "Z"  # exited, its number still taken
            return bots[0].pid

    pid = trio.run(main)
    with pytest.raises(ChildProcessError):  # reaped once closed
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG)
