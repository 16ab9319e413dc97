"""A game as a unit of work: a msgspec :class:`GameJob` out, a :class:`JobOutcome` back.

The driver turns each scheduled game into a job; whoever plays it — the driver's own
event loop, a local referee process or a Dask worker — plays it with :func:`play_job`
through a bot pool and sends back the record. Jobs travel as msgspec JSON, never as
pickled goatarena objects, and every job names the goatarena version that made it: a
referee of another version refuses it rather than play by other rules.
"""

from __future__ import annotations

import re
import shutil
import socket
from collections.abc import Mapping, Sequence
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import msgspec

from goatarena.errors import BotError, ClusterError
from goatarena.formats.config import TournamentConfig
from goatarena.formats.schedule import ScheduledGame
from goatarena.games import find_game
from goatarena.referee.bot import BotLimits, BotProcess, parse_command
from goatarena.referee.clock import TimeControl
from goatarena.referee.match import play_match
from goatarena.referee.policy import ViolationPolicy
from goatarena.referee.records import MatchResult
from goatarena.referee.sandbox import SandboxPolicy, require_sandbox
from goatarena.running.pool import BotPool, Connection

JOB_FORMAT = 1
"""The layout of :class:`GameJob`; bumped whenever a field changes meaning."""


@cache
def goatarena_version() -> str:
    """The installed goatarena's version, which every job carries and every referee checks."""
    try:
        return version("goatarena")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "unknown"


class Seat(msgspec.Struct, frozen=True):
    """One seat of a job: the bot's name in the tournament and the command that starts it."""

    name: str
    command: str


class GameJob(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Everything a referee anywhere needs to play one game, and nothing of the driver's.

    ``tournament`` tells a referee which bot pool the game belongs to (processes are
    reused within a tournament only); ``deal`` names the deal independently of the seat
    rotation, so that every rotation of a deal can be played on one machine;
    ``disqualified`` lists bots the driver has put out (their seats forfeit at once).
    ``sandboxes`` gives each bot's sandbox (none listed: unsandboxed); ``match`` is the
    opaque id the bots are told (it names the game without revealing its key or deal).
    """

    format: int = JOB_FORMAT
    goatarena: str
    tournament: str
    key: str
    round: int = 0
    game: str
    seats: tuple[Seat, ...]
    seed: int
    options: dict[str, Any] = {}
    time: TimeControl = TimeControl()
    policy: ViolationPolicy = ViolationPolicy()
    limits: BotLimits = BotLimits()
    deal: str
    disqualified: dict[str, str] = {}
    sandboxes: dict[str, SandboxPolicy] = {}
    match: str = ""


class JobOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """What came of a job: the record, why the referee refused to play it, or why it
    could not be played at all (``failed``: it kept killing the workers that took it).

    ``disqualified`` is every bot the referee's pool has put out so far (after repeated
    failures to start); the driver records the ones it did not know.
    """

    key: str
    result: MatchResult | None = None
    refused: str | None = None
    failed: str | None = None
    disqualified: dict[str, str] = {}
    start_failures: dict[str, str] = {}
    """Bots of this job whose process failed to start or greet, with the reason: the
    driver counts them across all referees and disqualifies a bot that keeps failing."""


class _Envelope(msgspec.Struct):
    """The fields of a job every version can read, to refuse a job of another version."""

    format: int = 0
    goatarena: str = ""


_ROTATION = re.compile(r"/r\d+$")


def deal_of(key: str) -> str:
    """The deal a game key belongs to: the key without its seat rotation."""
    return _ROTATION.sub("", key)


def job_for(
    config: TournamentConfig,
    scheduled: ScheduledGame,
    *,
    tournament: str,
    disqualified: Mapping[str, str] | None = None,
    sandboxes: Mapping[str, SandboxPolicy] | None = None,
    match: str = "",
) -> GameJob:
    """The job that plays ``scheduled`` under the rules of ``config``, its bots in
    ``sandboxes`` (by name), telling them the match id ``match``."""
    boxes = sandboxes or {}
    return GameJob(
        goatarena=goatarena_version(),
        tournament=tournament,
        key=scheduled.key,
        round=scheduled.round,
        game=scheduled.game,
        seats=tuple(Seat(name, config.bots[name]) for name in scheduled.seating),
        seed=scheduled.seed,
        options=dict(scheduled.options),
        time=config.time,
        policy=config.policy,
        limits=config.limits,
        deal=deal_of(scheduled.key),
        disqualified=dict(disqualified or {}),
        sandboxes={name: boxes[name] for name in scheduled.seating if name in boxes},
        match=match,
    )


def encode_jobs(jobs: Sequence[GameJob]) -> bytes:
    """Jobs as they travel: one msgspec JSON array."""
    return msgspec.json.encode(list(jobs))


def decode_jobs(payload: bytes) -> list[GameJob]:
    """Jobs from :func:`encode_jobs`; :class:`ClusterError` for another version's jobs."""
    for envelope in msgspec.json.decode(payload, type=list[_Envelope]):
        if envelope.format != JOB_FORMAT or envelope.goatarena != goatarena_version():
            raise ClusterError(
                f"the referee on {socket.gethostname()} runs goatarena {goatarena_version()}"
                f" (job format {JOB_FORMAT}), the driver {envelope.goatarena or '?'}"
                f" (job format {envelope.format}): install the same version on both"
            )
    return msgspec.json.decode(payload, type=list[GameJob])


encode_outcomes = msgspec.json.encode
_outcomes_decoder = msgspec.json.Decoder(list[JobOutcome])


def decode_outcomes(payload: bytes) -> list[JobOutcome]:
    """Outcomes as a referee sent them."""
    return _outcomes_decoder.decode(payload)


def check_runtimes(job: GameJob) -> None:
    """Refuse a job whose bots this machine cannot start (their program is not here).

    A bot that fails to start in a game forfeits it; a whole machine without, say,
    ``node`` would make every bot of that language forfeit every game it plays there,
    so the job is refused instead and the driver says why.
    """
    for seat in job.seats:
        try:
            program = parse_command(seat.command)[0]
        except BotError:
            continue  # an unparsable command forfeits its games, wherever they are played
        if shutil.which(program) is None:
            raise ClusterError(
                f"the referee on {socket.gethostname()} cannot run bot {seat.name!r}:"
                f" {program!r} is not found there"
            )
    for policy in job.sandboxes.values():
        try:
            require_sandbox(policy)
        except BotError as error:
            raise ClusterError(f"the referee on {socket.gethostname()}: {error}") from None


async def play_job(
    job: GameJob,
    pool: BotPool,
    *,
    start_failures: dict[str, str] | None = None,
    cpu: int | None = None,
) -> MatchResult:
    """Play one job with processes from ``pool`` and return its record, host included.

    No process plays a deal twice: the pool gives a process that has never played the
    job's deal. Bots whose process could not be started or greeted for this game are
    added to ``start_failures`` with the reason. With ``cpu``, the game's (sandboxed)
    bots run on that CPU only.
    """
    pool.disqualified.update(job.disqualified)
    seats: list[Connection] = []
    done = False
    try:
        for number, seat in enumerate(job.seats):
            was_out = seat.name in pool.disqualified
            connection = await pool.acquire(seat.name, job.deal)
            seats.append(connection)
            if connection.broken is not None and not was_out and start_failures is not None:
                start_failures[seat.name] = connection.broken.detail
            if isinstance(connection, BotProcess):
                connection.mark_game(f"game {job.key}, seat {number}")
                if cpu is not None:
                    connection.pin(cpu)
        result = await play_match(
            find_game(job.game),
            seats,
            seed=job.seed,
            options=job.options,
            time_control=job.time,
            match_id=job.match or job.key,
            policy=job.policy,
        )
        done = True
    finally:
        # A process interrupted mid-game is in an unknown state: never reuse it.
        for connection in seats:
            pool.release(connection, reusable=done)
    return msgspec.structs.replace(result, host=socket.gethostname())
