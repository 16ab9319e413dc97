"""The compact summary of a stored game: what every reader but ``replay`` needs.

A full record holds the whole move history (tens of kilobytes for some games); standings,
``list``, ``export --format csv``, the report's tables and Swiss pairing need only the
seats, ranks, scores, violations and latencies. :class:`GameSummary` holds exactly that,
a few hundred bytes packed as MessagePack, and the store writes it beside the full record
in the same transaction (:mod:`goatarena.store.schema`), so that a reader of a million
games never decodes a move.

:func:`summary_of` derives it from a :class:`~goatarena.referee.match.MatchResult`: the
one definition, used when a game is stored, when an old database is migrated and when an
old database is read without migrating.
"""

from __future__ import annotations

from typing import Any

import msgspec

from goatarena.referee.records import Latency, MatchResult


class SeatLatency(msgspec.Struct, frozen=True, array_like=True):
    """One seat's decision times: decisions answered, median and maximum in ms."""

    decisions: int
    median_ms: float
    max_ms: float


class GameSummary(msgspec.Struct, frozen=True, array_like=True):
    """One stored game without its moves.

    ``key`` is the schedule key (``<event>/<table>/d<deal>/r<rotation>`` for a
    round-robin game), ``round`` the Swiss round (0 otherwise). Per seat, in seat order:
    ``players``, ``ranks``, ``scores``, ``violations`` (the cause of every violation of
    the seat, in order), ``forfeits`` (the cause of the violation that ended the seat's
    game, or None) and ``latency`` (None where nothing was measured). ``decisions`` is the
    length of the move history, ``duration_s`` the game's playing time and
    ``finished_at`` when it was stored (Unix time).
    """

    key: str
    round: int
    game: str
    seed: int
    players: list[str]
    ranks: list[int]
    scores: list[float]
    violations: list[list[str]]
    forfeits: list[str | None]
    latency: list[SeatLatency | None]
    decisions: int
    duration_s: float
    finished_at: float
    options: dict[str, Any] = {}
    host: str = ""

    @property
    def event(self) -> str:
        """The game entry of the tournament file the game belongs to (the key's first part)."""
        return self.key.split("/", 1)[0]

    @property
    def deal_key(self) -> str:
        """The key without its last part: the games that share one deal share it."""
        return self.key.rsplit("/", 1)[0]

    def violation_count(self, seat: int) -> int:
        """How many violations the seat committed."""
        return len(self.violations[seat])


def summary_of(key: str, round_number: int, result: MatchResult, finished_at: float) -> GameSummary:
    """The summary of a finished game (records from before strikes were kept list at most
    the one forfeiting violation per seat)."""
    seats = range(len(result.players))
    return GameSummary(
        key=key,
        round=round_number,
        game=result.game,
        seed=result.seed,
        players=list(result.players),
        ranks=list(result.ranks),
        scores=[float(score) for score in result.scores],
        violations=[_causes(result, seat) for seat in seats],
        forfeits=[None if v is None else str(v.cause) for v in result.violations],
        latency=[_latency(result, seat) for seat in seats],
        decisions=len(result.decisions),
        duration_s=result.duration_s,
        finished_at=finished_at,
        options=dict(result.options),
        host=result.host,
    )


def _causes(result: MatchResult, seat: int) -> list[str]:
    if seat < len(result.all_violations):
        return [str(violation.cause) for violation in result.all_violations[seat]]
    violation = result.violations[seat]
    return [] if violation is None else [str(violation.cause)]


def _latency(result: MatchResult, seat: int) -> SeatLatency | None:
    latency: Latency | None = result.latency[seat] if seat < len(result.latency) else None
    if latency is None:
        return None
    return SeatLatency(latency.decisions, latency.median_ms, latency.max_ms)


encode_summary = msgspec.msgpack.Encoder().encode
"""A summary as the bytes the ``summaries`` table holds."""

decode_summary = msgspec.msgpack.Decoder(GameSummary).decode
"""The summary of those bytes (raises ``msgspec.DecodeError`` for damaged ones)."""
