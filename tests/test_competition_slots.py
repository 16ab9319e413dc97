"""A competition's ladder and its site's validations share the ladder's slots for timed
games: never more games at once than the ladder is set to, a validation waiting while the
ladder plays (and let in, not starved), a slot let go however its holder ends."""

from __future__ import annotations

import fcntl
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import trio

from goatarena.competition.entrants import add_entrant, sign_in
from goatarena.competition.pipeline import Competition
from goatarena.competition.uploads import pack_folder
from goatarena.referee.sandbox import probe
from goatarena.running.game_slots import GameSlots

ROOT = Path(__file__).resolve().parent.parent
KIT = ROOT / "goatarena" / "kits" / "python"
FILE = """\
name = "class"
format = "ladder"
concurrency = 1
[time]
move_ms = 300
[bots]
random = "builtin:random"
other = "builtin:random"
[competition]
languages = ["python"]
validation_games = 1
compare_games = 0
[[games]]
name = "mountain-goats"
players = 2
"""
HOLD = """\
import sys, time, trio
from pathlib import Path
from goatarena.running.game_slots import GameSlots

async def main():
    async with GameSlots(Path(sys.argv[1]), 1).held():
        print("held", flush=True)
        await trio.sleep_forever()

trio.run(main)
"""
"""Hold the one slot of a folder until killed."""


def holder(folder: Path) -> subprocess.Popen[str]:
    """A process holding the one slot of ``folder`` (once it printed so)."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(folder)], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert process.stdout is not None and process.stdout.readline() == "held\n"
    return process


def line_taken(folder: Path) -> bool:
    """Whether someone waits in the slots' line now (holds ``line.lock``)."""
    handle = os.open(folder / "line.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(handle)
    return False


def test_a_killed_holder_lets_its_slot_go(tmp_path):
    folder = tmp_path / "slots"
    process = holder(folder)
    slots = GameSlots(folder, 1)
    assert slots.taken() == 1
    got: list[float] = []

    async def take() -> None:
        async with slots.held():
            got.append(time.monotonic())

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(take)
            await trio.sleep(0.3)
            assert not got  # waiting behind the holder
            killed = time.monotonic()
            process.send_signal(signal.SIGKILL)
            got.append(killed)

    trio.run(main)
    process.wait()
    assert len(got) == 2 and got[1] >= got[0]
    assert slots.taken() == 0


def test_a_waiter_goes_before_a_holder_that_asks_again():
    """A ladder that lets its slot go and asks again at once goes behind the validation
    that was waiting; two holders are never in at once."""

    async def main(folder: Path) -> tuple[list[str], int]:
        ladder, site = GameSlots(folder, 1), GameSlots(folder, 1)
        order: list[str] = []
        inside = most = 0

        async def play(slots: GameSlots, who: str, seconds: float) -> None:
            nonlocal inside, most
            async with slots.held():
                inside += 1
                most = max(most, inside)
                order.append(who)
                await trio.sleep(seconds)
                inside -= 1

        async def ladder_games() -> None:
            for _ in range(6):
                await play(ladder, "ladder", 0.05)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(ladder_games)
            await trio.sleep(0.02)  # the ladder's first game has begun
            await play(site, "validation", 0.05)
        return order, most

    with tempfile.TemporaryDirectory() as made:
        order, most = trio.run(main, Path(made))
    assert most == 1
    assert order.index("validation") <= 2, order  # let in after at most two ladder games


@pytest.mark.skipif(probe() is not None, reason="no sandbox on this machine")
def test_a_validation_waits_for_the_ladders_slot_and_the_ladder_for_the_validations(
    tmp_path,
):
    file = tmp_path / "class.toml"
    file.write_text(FILE)
    db = tmp_path / "results" / "class.sqlite"
    competition = Competition(file, db)
    try:
        slots_folder = competition.place.folder / "slots"
        scratch = competition.place.folder / "scratch"
        alice = sign_in(competition.store, add_entrant(competition.store, "alice"))
        assert alice is not None
        number = competition.submit(alice, "python", [pack_folder(KIT)])
        ladder = holder(slots_folder)  # the ladder's one game slot, taken
        seen: list[str] = []

        async def main() -> None:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(competition.process, number)
                with trio.fail_after(120):  # built, it waits for the slot
                    while not line_taken(slots_folder):
                        await trio.sleep(0.05)
                await trio.sleep(0.5)
                state = competition.store.submission(number)
                assert state is not None
                seen.append(state.state)
                seen.extend(path.name for path in scratch.glob("goatarena-validation-*"))
                ladder.send_signal(signal.SIGKILL)

        trio.run(main)
        ladder.wait()
        done = competition.store.submission(number)
        assert done is not None and done.state == "active", done
        assert seen == ["validating"]  # no game of the validation while the slot was held

        # The ladder's run, in turn, waits for a slot a validation holds.
        site = holder(slots_folder)
        run = subprocess.Popen(
            [sys.executable, "-m", "goatarena", "run", str(file), "--db", str(db)],
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + 120
            while not line_taken(slots_folder) and time.monotonic() < deadline:
                assert run.poll() is None, run.stderr.read() if run.stderr else ""
                time.sleep(0.05)
            assert line_taken(slots_folder)
            assert stored_games(db) == 0
            site.send_signal(signal.SIGKILL)
            site.wait()
            while stored_games(db) == 0 and time.monotonic() < deadline:
                assert run.poll() is None, run.stderr.read() if run.stderr else ""
                time.sleep(0.1)
            assert stored_games(db) > 0
        finally:
            run.send_signal(signal.SIGINT)
            run.wait(timeout=60)
            site.kill()
            site.wait()
    finally:
        competition.close()


def stored_games(db: Path) -> int:
    """How many games the run stored so far."""
    if not db.exists():
        return 0
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
        try:
            return int(connection.execute("SELECT COUNT(*) FROM games").fetchone()[0])
        except sqlite3.OperationalError:
            return 0
