"""Shared helpers for the referee tests: commands for real bot processes, a fake bot."""

from __future__ import annotations

import os
import resource
import shlex
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import msgspec
import trio

from goatarena import protocol
from goatarena.referee import BotViolation, Cause

ROOT = Path(__file__).resolve().parent.parent
RANDOM_BOT = f"{shlex.quote(sys.executable)} {ROOT / 'bots' / 'python' / 'random_bot.py'}"


def goatarena(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``goatarena ARGS`` run as a user runs it, in ``cwd``, its output kept as text."""
    return subprocess.run(
        [sys.executable, "-m", "goatarena", *args],
        cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False,
    )  # fmt: skip


def misbehaving(mode: str, after: int = 0, arg: int | None = None) -> str:
    """The command of a test bot that misbehaves in ``mode`` after ``after`` decisions.

    ``arg`` is the mode's size in bytes or time in milliseconds (see the bot's docstring).
    """
    script = ROOT / "tests" / "bots" / "misbehaving.py"
    command = f"{shlex.quote(sys.executable)} {script} {mode} {after}"
    return command if arg is None else f"{command} {arg}"


def python_bot(code: str) -> str:
    """The command of a bot whose whole program is ``code``."""
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"


def live_group_members(pgid: int) -> list[int]:
    """The processes of group ``pgid`` that are still alive (zombies do not count)."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # Fields after the parenthesised command: state, ppid, pgrp, ...
        state, _ppid, pgrp = stat.rsplit(")", 1)[1].split()[:3]
        if int(pgrp) == pgid and state not in ("Z", "X"):
            members.append(int(entry.name))
    return members


def live_processes_mentioning(text: str) -> dict[int, str]:
    """Live processes (zombies do not count) whose command line contains ``text``, other
    than this one: pid -> command line."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if text in command and state not in ("Z", "X"):
            found[int(entry.name)] = command
    return found


def group_is_gone(pgid: int, *, wait_s: float = 2.0) -> bool:
    """True once no live process of the group ``pgid`` is left (SIGKILL lands quickly)."""
    deadline = time.monotonic() + wait_s
    while live_group_members(pgid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


class FakeBot:
    """A bot connection without a process that behaves like a pipe to a sequential bot.

    ``answer(decide)`` gives, for each request, how long the bot thinks (seconds) and the
    line it then writes, or None to stay silent. Like a real bot it works through its
    requests one at a time, so an answer that comes after the deadline is still in the
    pipe for the referee's next read, as after a real timeout.
    """

    def __init__(self, name: str, answer: Callable[[protocol.Decide], tuple[float, bytes | None]]):
        self.name = name
        self.answer = answer
        self.requests: list[protocol.Decide] = []
        self.messages: list[object] = []
        self._pipe: list[tuple[float, bytes]] = []
        self._busy_until = 0.0
        self._broken: BotViolation | None = None

    @property
    def broken(self) -> BotViolation | None:
        return self._broken

    def mark_broken(self, violation: BotViolation) -> None:
        self._broken = self._broken or violation

    async def send_bytes(self, line: bytes) -> None:
        await trio.lowlevel.checkpoint()
        message = protocol.parse_referee_message(line)
        self.messages.append(message)
        if isinstance(message, protocol.Decide):
            self.requests.append(message)
            think_s, reply = self.answer(message)
            self._busy_until = max(trio.current_time(), self._busy_until) + think_s
            if reply is not None:
                self._pipe.append((self._busy_until, reply))

    async def receive(self) -> protocol.BotHello | protocol.Action:
        if not self._pipe:
            await trio.sleep_forever()
        written_at, line = self._pipe[0]
        await trio.sleep_until(written_at)
        self._pipe.pop(0)
        try:
            return protocol.parse_bot_message(line)
        except msgspec.DecodeError as error:
            raise BotViolation(Cause.MALFORMED, str(error)) from None


def action_line(index: int, decision: int | None = None) -> bytes:
    """An encoded action reply, with the decision echo when given."""
    return protocol.encode(protocol.Action(index=index, decision=decision))


STANDINGS_ROW_KEYS = {
    "bot",
    "elo",
    "lo",
    "hi",
    "games",
    "wins",
    "avg_rank",
    "avg_score",
    "violations",
}
"""The fields every row of ``standings --format json`` must have."""


def trickled_head_is_cut_off(
    host: str, port: int, path: str, others_served: Callable[[], None]
) -> bool:
    """Whether a server closes a connection whose request head arrives a byte every half
    second (slowloris) within a minute, calling ``others_served`` (which asserts that
    another client is answered meanwhile) at every pause."""
    with socket.create_connection((host, port), timeout=30) as slow:
        slow.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nX-Slow: ".encode())
        for _ in range(120):
            try:
                slow.sendall(b"a")
                slow.settimeout(0.5)
                if slow.recv(1024) == b"":
                    return True
            except TimeoutError:
                others_served()
            except (BrokenPipeError, ConnectionResetError):
                return True
    return False


def may_be_real_time() -> bool:
    """Whether this machine lets this user run a real-time thread, asked of util-linux's
    ``chrt`` (root without it, say in a cgroup given no real-time time, is refused)."""
    chrt = shutil.which("chrt")
    if chrt is None:
        return os.geteuid() == 0 or resource.getrlimit(resource.RLIMIT_RTPRIO)[0] > 0
    return subprocess.run([chrt, "-f", "1", "true"], capture_output=True).returncode == 0
