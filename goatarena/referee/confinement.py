"""Control over one launched bot: pause and resume it, pin it, kill all of it.

A :class:`Confinement` is what :func:`goatarena.referee.launcher.launch` gives for each
bot it starts: every process the bot starts is in its cgroup (if any) or its process
tree, and pausing uses the freezer, or else signals that it goes on checking.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable

import trio

from goatarena.referee.bot_uids import BotUid
from goatarena.referee.cgroups import BotCgroup
from goatarena.referee.process_tree import process_tree, settled, tasks
from goatarena.referee.sandbox import SandboxPolicy

SWEEP_FIRST_WAIT_S = 0.0005
SWEEP_LONGEST_WAIT_S = 0.01
"""How often a pause stopped by signals is checked until all of the bot has stopped."""
SWEEPS_PER_SETTLING = 12
"""Sweeps (about 0.1 s) after which a bot that is still not all stopped is taken to be
waking itself (a fork in flight settles in one or two)."""
WAKE_CHECK_S = 0.01
"""How often a bot paused by signals is checked for having woken itself."""
WAKE_TOLERANCE_NS = 3_000_000
"""CPU time a bot may use in one pause before it counts as awake: a process sent SIGSTOP
stops before it runs any more of its own code, but a child forked as it answers runs
until a sweep finds it (a millisecond or two)."""
WAKES_FORGIVEN = 2
"""Times a bot may be found awake in its pauses (stopped again each time) before it
forfeits: a bot that keeps waking itself steals its opponents' CPU."""
WAKE_ON_LOOP_TASKS = 32
"""A bot of more tasks (processes, or threads where they are counted) is resumed, and
stopped by signals, in a worker thread rather than on the event loop every game shares:
thawing 240 processes at once, whose wakes take the CPU from the thread that wakes them,
held the loop for up to 100 ms on a loaded machine."""
FREEZE_SETTLE_S = 1.0
"""How long the kernel may take to freeze every task of a bot (a loaded machine took up to
60 ms for 240 busy ones) before a pause that is still only "freezing" counts as one that
did not take."""
CGROUP_REMOVE_TRIES = 50
CGROUP_REMOVE_WAIT_S = 0.01


class Confinement:
    """Control over one launched bot: its cgroup (if any) and its process tree.

    Unsandboxed, pausing and pinning do nothing and killing signals the process group, as
    before. Sandboxed, pausing freezes the bot's cgroup (the v2 or v1 freezer), or else
    stops every process in its cgroup with SIGSTOP; without a cgroup it stops the process
    tree found in /proc, which is slower. The launched process itself, bubblewrap's
    monitor, is not sent SIGSTOP: it only waits, and it ends the sandbox if the referee
    dies.

    A process sent SIGSTOP in the middle of a fork finishes the fork before it stops, and
    its new child was in no list yet: so where pausing is done by signals, a pause stops
    what it finds at once, and :meth:`keep_stopped` (run beside the bot) goes on stopping
    newcomers until every process of the bot is seen stopped, which no fork can outrun.
    A stopped process can still be woken by its own SIGCONT (a POSIX timer's, say), which
    no freezer allows: so it goes on checking, by the CPU time the bot's cgroup has used
    or by the states of its processes, stops a bot found awake again, and a bot found
    awake more than :data:`WAKES_FORGIVEN` times is killed and reported through
    ``on_escape``. The sweeps run in a worker thread, never on the event loop that every
    game of the referee shares, and each is bounded by the bot's process limit; so do
    the waking, and the stopping by signals, of a bot of more than
    :data:`WAKE_ON_LOOP_TASKS` tasks (see :meth:`resume_async`).
    """

    def __init__(
        self, policy: SandboxPolicy, cgroup: BotCgroup | None, uid: BotUid | None = None
    ) -> None:
        self.policy = policy
        self.cgroup = cgroup
        self.uid = uid
        """The uid of its own a root runner's bot runs as (None: the runner's, mapped)."""
        self.pid = 0
        self.paused = False
        self.wakes = 0
        """Times the bot was found awake in a pause (by signals only)."""
        self.on_escape: Callable[[str], None] | None = None
        """Told why, when the bot is killed for waking itself from its pauses."""
        self._stopped: set[int] = set()
        self._seen_stopped: set[int] = set()
        self._paused_cpu: int | None = None
        """The bot's CPU time when this pause began (or when it was last found awake)."""
        self._freezing_since: float | None = None
        """When the freezer was asked to freeze the bot, while the kernel had not said it
        had (read again at its next turn)."""
        self._paused_lot = trio.lowlevel.ParkingLot()
        self._pause_number = 0
        # Held by a sweep (in its worker thread) and by resume: a sweep that overlapped a
        # resume would stop the bot in its own turn.
        self._signalling = threading.Lock()

    @property
    def sandboxed(self) -> bool:
        """Whether the bot runs in a sandbox."""
        return self.policy.enabled

    @property
    def pauses(self) -> bool:
        """Whether :meth:`pause` stops the bot (False: unsandboxed, or allowed to ponder)."""
        return self.policy.enabled and not self.policy.ponder

    @property
    def stops_by_signal(self) -> bool:
        """Whether pausing sends SIGSTOP (so :meth:`keep_stopped` must run beside the bot)."""
        frozen = self.cgroup is not None and self.cgroup.can_freeze
        return self.pauses and not frozen

    def pause(self) -> None:
        """Give the bot no CPU until :meth:`resume` (no-op unsandboxed or pondering)."""
        if not self.pauses or self.paused or not self.pid:
            return
        self.paused = True
        if self.cgroup is not None and self.cgroup.can_freeze:
            try:
                self.cgroup.freeze()
            except OSError as error:
                self._pause_not_taken(f"writing the freezer failed ({error.strerror or error})")
                return
            state = self.cgroup.freeze_state()
            if state == "freezing":
                self._freezing_since = time.monotonic()
            elif state != "frozen":
                self._pause_not_taken(state)
            return
        self._pause_number += 1
        self._paused_cpu = self._cpu_ns()
        # What was forked meanwhile, or is being forked now, keep_stopped stops: it looks
        # again until all is stopped, which this pause need not wait for. So does it all
        # of a bot of many processes, in its worker thread.
        members = self._members()
        if len(members) <= WAKE_ON_LOOP_TASKS:
            with self._signalling:
                self._stop_newcomers(members)
        self._paused_lot.unpark_all()

    def _stop_newcomers(self, members: list[int] | None = None) -> list[int]:
        """Send SIGSTOP to every process of the bot (``members``, else read now) not
        sent one in this pause."""
        members = self._members() if members is None else members
        fresh = [pid for pid in members if pid != self.pid and pid not in self._stopped]
        for pid in fresh:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGSTOP)
            self._stopped.add(pid)
        return fresh

    def _sweep(self, pause_number: int) -> tuple[bool, bool]:
        """Stop again what runs of the bot, and what is new: whether all of it was seen
        stopped or dead with none new, and whether a process seen stopped in this pause
        was found running (it woke itself). Nothing to do once that pause is over. Run in
        a worker thread."""
        with self._signalling:
            if not self.paused or pause_number != self._pause_number:
                return True, False
            # States first: a process seen stopped forks no more, so a child of one that
            # was forking shows in the list read after.
            running = []
            for pid in self._stopped:
                if settled(pid):
                    self._seen_stopped.add(pid)
                else:
                    running.append(pid)
            for pid in running:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGSTOP)
            woke = not self._seen_stopped.isdisjoint(running)
            return not self._stop_newcomers() and not running, woke

    async def keep_stopped(self) -> None:
        """Run for the bot's life (only where pausing is by signal): in each pause, stop
        what a fork in flight let slip until all of the bot is stopped, then watch that it
        stays so; a bot found awake is stopped again, and killed if it keeps waking."""
        while True:
            if not self.paused:
                await self._paused_lot.park()
                continue
            number = self._pause_number
            woke = await self._settle(number)
            while not woke and self.paused and number == self._pause_number:
                woke = await self._woke(number)
            if woke and self.paused and number == self._pause_number:
                # In the thread: the last wake kills all of the bot.
                await trio.to_thread.run_sync(self._count_wake)
                if self.wakes > WAKES_FORGIVEN:
                    return

    def _count_wake(self) -> None:
        """The bot was found awake in a pause: one more, and the last one forgiven?"""
        self.wakes += 1
        self._paused_cpu = self._cpu_ns()
        if self.wakes == WAKES_FORGIVEN + 1:
            self._escaped()

    async def _settle(self, number: int) -> bool:
        """Sweep until all of the bot is stopped; True if it woke itself meanwhile (a
        process seen stopped ran again, or it would not stop in all the sweeps)."""
        wait = SWEEP_FIRST_WAIT_S
        for _ in range(SWEEPS_PER_SETTLING):
            settled, woke = await trio.to_thread.run_sync(self._sweep, number)
            if woke or settled:
                return woke
            await trio.sleep(wait)
            wait = min(2 * wait, SWEEP_LONGEST_WAIT_S)
        return True

    async def _woke(self, number: int) -> bool:
        """After a pause has settled: wait a moment, and say whether the bot ran meanwhile
        (by its cgroup's CPU time, else by its processes' states)."""
        await trio.sleep(WAKE_CHECK_S)
        if not self.paused or number != self._pause_number:
            return False
        if self._paused_cpu is not None:
            return self._ran_in_pause()
        settled, woke = await trio.to_thread.run_sync(self._sweep, number)
        return woke or not settled

    def _cpu_ns(self) -> int | None:
        return self.cgroup.cpu_ns() if self.cgroup is not None else None

    def cpu_ms(self) -> float | None:
        """The CPU time all of the bot has used so far, where its cgroup counts it."""
        used = self._cpu_ns()
        return None if used is None else used / 1e6

    def _ran_in_pause(self) -> bool:
        """Whether the bot has used more CPU in this pause than stopping takes (by its
        cgroup's count: one read)."""
        now, then = self._cpu_ns(), self._paused_cpu
        return now is not None and then is not None and now - then > WAKE_TOLERANCE_NS

    def _escaped(self) -> None:
        """The bot keeps waking itself: kill it, and say so."""
        detail = (
            f"woke itself {self.wakes} times while paused between its turns"
            " (a timer or signal that sends SIGCONT, say)"
        )
        self.kill_all()
        if self.on_escape is not None:
            self.on_escape(detail)

    def _check_frozen(self, cgroup: BotCgroup, paused_s: float) -> None:
        """At the end of a pause the kernel had not finished freezing when it began: did
        it take? A bot of many busy tasks may still be freezing after a short pause."""
        self._freezing_since = None
        state = cgroup.freeze_state()
        if state == "frozen" or (state == "freezing" and paused_s < FREEZE_SETTLE_S):
            return
        if state == "freezing":
            state = f"still freezing after {paused_s:.1f} s"
        self._pause_not_taken(state)

    def _pause_not_taken(self, state: str) -> None:
        """The freezer did not pause the bot: the referee's failure, not the bot's, but the
        bot may have run in its opponents' turns; it is killed and the failure recorded as
        an ``escape`` (never left silent)."""
        detail = (
            f"the referee's pause did not take (the cgroup freezer: {state});"
            " a failure of the referee's machine, not of the bot (goatarena doctor)"
        )
        self.kill_all()
        if self.on_escape is not None:
            self.on_escape(detail)

    def _members(self) -> list[int]:
        if self.cgroup is not None:
            return self.cgroup.pids()
        return process_tree(self.pid)

    def members(self) -> list[int]:
        """Every process of the bot now, bubblewrap's monitor (``pid``) included."""
        return self._members() if self.pid else []

    async def resume_async(self) -> None:
        """:meth:`resume`, in a worker thread for a bot of many tasks, so that waking
        them holds up no other game of the event loop."""
        if self.paused and self._many_tasks():
            await trio.to_thread.run_sync(self.resume)
        else:
            self.resume()

    def _many_tasks(self) -> bool:
        """Whether the paused bot is too many tasks to wake on the event loop."""
        if self.cgroup is not None and self.cgroup.can_freeze:
            return self.cgroup.tasks() > WAKE_ON_LOOP_TASKS
        return len(self._stopped) > WAKE_ON_LOOP_TASKS

    def resume(self) -> None:
        """Let the bot run again."""
        if not self.paused:
            return
        self.paused = False
        if self.cgroup is not None and self.cgroup.can_freeze:
            if self._freezing_since is not None:
                self._check_frozen(self.cgroup, time.monotonic() - self._freezing_since)
            with contextlib.suppress(OSError):
                self.cgroup.thaw()
            return
        # A wake in a pause too short for keep_stopped to look twice shows here.
        if self._ran_in_pause() and self.wakes <= WAKES_FORGIVEN:
            self._count_wake()
        self._paused_cpu = None
        with self._signalling:
            for pid in self._stopped:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGCONT)
            self._stopped = set()
            self._seen_stopped = set()

    def pin(self, cpu: int | None) -> None:
        """Run the bot only on ``cpu`` (None: on every CPU the referee may use)."""
        if not self.sandboxed or not self.pid:
            return
        cpus = sorted(os.sched_getaffinity(0)) if cpu is None else [cpu]
        if self.cgroup is not None and "cpuset" in self.cgroup.folders:
            self.cgroup.pin(",".join(str(number) for number in cpus))
            return
        for pid in process_tree(self.pid):
            for task in tasks(pid):
                with contextlib.suppress(OSError):
                    os.sched_setaffinity(task, cpus)

    def kill_all(self) -> None:
        """Kill every process of the bot at once."""
        self.resume()
        if self.cgroup is not None:
            self.cgroup.kill_all()
        if self.pid:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)

    def exit_status(self, code: int) -> int:
        """The bot's own exit status: bubblewrap reports a death by signal N as 128+N."""
        if self.sandboxed and code > 128:
            return -(code - 128)
        return code

    def exceeded_memory(self) -> bool:
        """Whether the bot's cgroup ran out of memory (so a SIGKILL was the OOM killer's)."""
        return self.cgroup is not None and self.cgroup.memory_exceeded()

    async def release(self) -> None:
        """Remove the cgroup once the last process in it has gone, and give the bot's uid
        back (kept taken while a process of it may be left: it would share its counts)."""
        gone = self.cgroup is None
        for _ in range(0 if gone else CGROUP_REMOVE_TRIES):
            assert self.cgroup is not None
            if gone := self.cgroup.remove():
                break
            self.cgroup.kill_all()
            await trio.sleep(CGROUP_REMOVE_WAIT_S)
        if gone and self.uid is not None:
            self.uid.release()
