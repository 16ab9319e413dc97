"""A tournament file's settings as values: :class:`TournamentConfig` and its parts.

Reading and checking a file is :mod:`goatarena.formats.tournament_file`.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import msgspec

from goatarena import protocol
from goatarena.formats.competition import CompetitionSettings
from goatarena.referee.bot import BotLimits
from goatarena.referee.bot_folders import bot_folders
from goatarena.referee.clock import TimeControl
from goatarena.referee.policy import ViolationPolicy
from goatarena.referee.sandbox import SandboxPolicy

DEFAULT_LINE_KB = protocol.MAX_LINE_BYTES >> 10


class GameEntry(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One game of the tournament: its name, the table size and rule options."""

    name: str
    players: int = 2
    options: dict[str, Any] = {}


class BotPaths(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Paths one bot may use beyond its own folder: ``read`` (read-only) and ``write``."""

    read: list[str] = []
    write: list[str] = []


class SprtSettings(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A sequential probability ratio test of a gauntlet's one challenger against one
    baseline: H0 "the challenger is ``elo0`` stronger", H1 "it is ``elo1`` stronger",
    with the error rates ``alpha`` (accepting H1 when H0 holds) and ``beta``."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05


class LadderSettings(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A ladder's settings (``[ladder]``): who has left, how tables are chosen, when to stop.

        ``retired`` names the versions that no longer play (their games stay). The ladder
        runs until stopped, or until every active bot has ``stop_games`` games, ``stop_minutes``
        have passed in this run, or the top ``stop_separated`` are each ahead of the next at
        95 % (0: no such rule). A version whose last ``suspend_games`` games hold more than
        ``suspend_share`` games with a violation is suspended. ``min_games``, ``floor``,
        ``explore`` and ``top_k`` tune the matchmaking (docs/tournaments.md; unset: the
    defaults for the game's table size); the file is
        read again every ``poll_s`` seconds while the ladder runs; the live board's trend
        covers each bot's last ``trend_games`` games.
    """

    retired: list[str] = []
    stop_games: int = 0
    stop_minutes: float = 0.0
    stop_separated: int = 0
    suspend_games: int = 50
    suspend_share: float = 0.10
    min_games: int | None = None
    floor: float | None = None
    explore: float | None = None
    top_k: int = 3
    poll_s: float = 3.0
    trend_games: int = 20


GAMES_PER_LOG = 16
"""A competition's bot log (``log_kb``) always holds about this many recent games' logs
whole: each game's is capped at the log's cap over this."""


class TournamentConfig(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A whole tournament: bots, games, format, clock, concurrency and master seed.

    ``deals`` is, for round-robin, the number of deals each table-set plays (each deal
    once per seat rotation, all rotations on the same seed); for Swiss, the games each
    table plays per round. ``rounds`` (Swiss only) defaults to 2·ceil(log_k N) + 2.
    ``memory_mb`` limits each bot process's memory, ``line_kb`` the longest line a bot
    may write and ``log_kb`` each bot's stderr log over the whole tournament (see
    docs/referee.md; a competition's rotates there instead, each game's capped);
    ``policy`` says what each kind of violation costs. A gauntlet plays only the
    round-robin tables that seat one of the ``challengers``; ``sprt`` (a
    gauntlet of one challenger against one baseline) stops it as soon as the test decides.
    A ``ladder`` (format ``"ladder"``) plays tables chosen as it goes until stopped, while
    bots come and go; its settings are ``ladder`` (:class:`LadderSettings`). A ladder
    with a ``competition`` section (:class:`CompetitionSettings`) takes bots submitted by
    entrants (``goatarena.competition``).

    ``sandbox`` is ``"bwrap"`` (every bot isolated; the run refuses where that cannot be
    done) or ``"none"`` (unprotected: for bots you trust). ``ponder`` lets sandboxed bots
    compute between their turns (trusted setups only). ``tmp_mb`` caps each bot's private
    ``/tmp``; ``paths`` gives named bots extra ``read`` / ``write`` paths. A bot that
    crashes in ``crash_limit`` games in a row is suspended for the rest of the run (0:
    never), so that a bot that dies in every game costs no more start-ups. With
    ``secret_deals`` (the default) every deal also depends on a random secret kept in the
    results database; ``secret_deals = false`` makes deals reproducible from this file
    alone, which is unsafe for competitions: anyone who has it can rebuild every deal.
    With ``fresh_deals`` every seat rotation of a table plays a deal of its own instead
    of the same deal rotated: no bot process can learn a deal it will meet again (in
    another seat) through what the machine keeps between processes (docs/referee.md),
    at the cost of the luck that rotations cancel.
    """

    name: str
    bots: dict[str, str]
    games: list[GameEntry]
    format: Literal["round-robin", "swiss", "gauntlet", "ladder"] = "round-robin"
    deals: int = 1
    rounds: int = 0
    seed: int = 0
    concurrency: int = 0
    memory_mb: int = 1024
    line_kb: int = DEFAULT_LINE_KB
    log_kb: int = 1024
    time: TimeControl = TimeControl()
    policy: ViolationPolicy = ViolationPolicy()
    sandbox: Literal["bwrap", "none"] = "bwrap"
    ponder: bool = False
    tmp_mb: int = 64
    crash_limit: int = 5
    paths: dict[str, BotPaths] = {}
    secret_deals: bool = True
    fresh_deals: bool = False
    challengers: list[str] = []
    sprt: SprtSettings | None = None
    ladder: LadderSettings = LadderSettings()
    competition: CompetitionSettings | None = None

    @property
    def limits(self) -> BotLimits:
        """The resource limits of every bot process."""
        return BotLimits(
            memory_bytes=self.memory_mb << 20,
            max_line_bytes=self.line_kb << 10,
            stderr_log_bytes=self.log_kb << 10,
            # An entrant reads each game's log: a competition's rotates, capped per game.
            stderr_game_bytes=(self.log_kb << 10) // GAMES_PER_LOG if self.competition else 0,
        )

    def sandboxes(
        self, hidden: Sequence[str | Path] = (), hidden_where_possible: Sequence[str | Path] = ()
    ) -> dict[str, SandboxPolicy]:
        """Each bot's sandbox; ``hidden`` are the runner's own files, never shown to bots,
        ``hidden_where_possible`` its folders. No bot sees another's folders either."""
        # Absolute: a referee process of its own may start elsewhere.
        apart = [os.path.abspath(path) for path in hidden_where_possible]
        apart += bot_folders(self.bots)
        policies = {}
        for name in self.bots:
            extra = self.paths.get(name, BotPaths())
            policies[name] = SandboxPolicy(
                mode=self.sandbox,
                tmp_bytes=self.tmp_mb << 20,
                read_paths=tuple(extra.read),
                write_paths=tuple(extra.write),
                hidden=tuple(os.path.abspath(path) for path in hidden),
                hidden_where_possible=tuple(apart),
                ponder=self.ponder,
            )
        return policies

    @property
    def workers(self) -> int:
        """Games played at once: ``concurrency``, or the number of CPUs when it is 0."""
        return self.concurrency or os.cpu_count() or 1

    def fingerprint(self) -> str:
        """A hash of everything that decides which games are played and how.

        Concurrency, the log cap, the crash limit and the sandbox settings are left out:
        running the same tournament with more or fewer games at once, a longer log, or on
        a machine that isolates bots differently, is still the same tournament. A line
        cap at its default is left out too, so files written before it existed still
        match. ``secret_deals`` and ``fresh_deals`` count: they change the deals.
        """
        fields = msgspec.to_builtins(msgspec.structs.replace(self, concurrency=0))
        # A competition's settings say who may submit, not how games are played.
        for how in ("log_kb", "sandbox", "ponder", "tmp_mb", "paths", "crash_limit", "competition"):
            del fields[how]
        if self.line_kb == DEFAULT_LINE_KB:
            del fields["line_kb"]
        if not self.fresh_deals:  # files written before it existed still match
            del fields["fresh_deals"]
        return hashlib.sha256(msgspec.json.encode(fields)).hexdigest()[:16]
