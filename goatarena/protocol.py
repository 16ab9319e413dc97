"""Protocol v1: the JSON-lines conversation between the referee and a bot.

One JSON object per line, UTF-8, on the bot's stdin (referee to bot) and stdout (bot to
referee); stderr is the bot's own log. Every message has a ``type`` field. Receivers
ignore fields they do not know; bots also ignore message types they do not know, so the
protocol can grow without breaking old bots. ``docs/protocol.md`` is the full reference.

The conversation::

    referee: hello    -> bot: hello (its name)        once, within the start-up limit
    referee: start                                     once per game
    referee: decide   -> bot: action (an index)        once per decision of its seat
    referee: end                                       once per game
    referee: quit                                      when the referee is done
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

PROTOCOL_VERSION = 1
MAX_LINE_BYTES = 1 << 20
"""The default cap on one line a bot may write (1 MiB)."""


class TimeInfo(msgspec.Struct, frozen=True):
    """The time control of a game, in milliseconds, as the bot is told it."""

    move_ms: int
    bank_ms: int = 0
    increment_ms: int = 0


# -- referee to bot ------------------------------------------------------------------------


class Hello(msgspec.Struct, tag="hello", tag_field="type", frozen=True):
    """The referee's greeting; the bot answers with its own :class:`BotHello`."""

    protocol: int = PROTOCOL_VERSION
    referee: str = "goatarena"


class Start(msgspec.Struct, tag="start", tag_field="type", frozen=True):
    """A game begins; ``seat`` is the bot's own seat, ``players`` the names by seat.

    ``seed`` is for the bot's own random choices, so that a game between seeded bots
    replays exactly; it is derived from the game's seed and reveals nothing of the deal.
    """

    game: str
    seat: int
    players: list[str]
    time: TimeInfo
    options: dict[str, Any] = {}
    match: str = ""
    seed: int = 0


class Event(msgspec.Struct, frozen=True):
    """A decision another seat (or this one) made, as far as it is public."""

    seat: int
    action: Any


class Decide(msgspec.Struct, tag="decide", tag_field="type", frozen=True):
    """A request to choose one of ``actions``; answer with :class:`Action`.

    ``time_ms`` is how long the bot has for this decision (its bank included);
    ``events`` lists the public decisions made since this seat's previous request.
    """

    decision: int
    observation: dict[str, Any]
    actions: list[Any]
    time_ms: int
    events: list[Event] = []


class End(msgspec.Struct, tag="end", tag_field="type", frozen=True):
    """A game is over: scores and ranks by seat (rank 1 is best)."""

    scores: list[float]
    ranks: list[int]
    seat: int = 0


class Quit(msgspec.Struct, tag="quit", tag_field="type", frozen=True):
    """The referee is done with this bot; the bot should exit."""


RefereeMessage = Hello | Start | Decide | End | Quit


# -- bot to referee ------------------------------------------------------------------------


class BotHello(msgspec.Struct, tag="hello", tag_field="type", frozen=True, omit_defaults=True):
    """A bot's answer to :class:`Hello`."""

    name: str
    protocol: int = PROTOCOL_VERSION
    author: str = ""


class Action(msgspec.Struct, tag="action", tag_field="type", frozen=True, omit_defaults=True):
    """A bot's choice: ``index`` into the offered actions, or the ``action`` value itself.

    ``decision`` may echo the request's number; the referee then discards a stale reply
    to an earlier request instead of taking it for the current one.
    """

    index: int | None = None
    action: Any = None
    decision: int | None = None


BotMessage = BotHello | Action


# -- seats -----------------------------------------------------------------------------------


def bot_seed(game_seed: int, seat: int) -> int:
    """The seed a seat's bot is told in :class:`Start`: derived from the game's seed, so a
    game between seeded bots replays exactly, but revealing nothing of the deal."""
    digest = hashlib.blake2b(f"{game_seed}:{seat}".encode(), digest_size=4).digest()
    return int.from_bytes(digest, "big")


def unique_names(names: list[str]) -> list[str]:
    """Player names by seat, a repeated name numbered: ``random``, ``random#2``, ..."""
    unique: list[str] = []
    for name in names:
        candidate, number = name or "bot", 1
        while candidate in unique:
            number += 1
            candidate = f"{name or 'bot'}#{number}"
        unique.append(candidate)
    return unique


# -- encoding and framing ------------------------------------------------------------------

_encoder = msgspec.json.Encoder()
_bot_decoder = msgspec.json.Decoder(BotMessage)
_referee_decoder = msgspec.json.Decoder(RefereeMessage)


def encode(message: msgspec.Struct) -> bytes:
    """One message as a line of JSON, newline included."""
    return _encoder.encode(message) + b"\n"


def parse_bot_message(line: bytes) -> BotHello | Action:
    """Decode a line from a bot; raises :class:`msgspec.DecodeError` when it is not valid."""
    return _bot_decoder.decode(line)


def parse_referee_message(line: bytes) -> Hello | Start | Decide | End | Quit | None:
    """Decode a line from the referee; None for a message type this version does not know."""
    try:
        return _referee_decoder.decode(line)
    except msgspec.ValidationError:
        message = msgspec.json.decode(line)
        if isinstance(message, dict) and message.get("type") not in _REFEREE_TYPES:
            return None
        raise


_REFEREE_TYPES = {"hello", "start", "decide", "end", "quit"}


class LineTooLong(ValueError):
    """Raised by :class:`LineBuffer` when a line grows past its cap."""


class LineBuffer:
    """Splits a byte stream into lines, refusing any line longer than ``max_bytes``."""

    def __init__(self, max_bytes: int = MAX_LINE_BYTES) -> None:
        self.max_bytes = max_bytes
        self._buffer = bytearray()
        self._scanned = 0

    def feed(self, data: bytes | bytearray) -> None:
        """Add bytes read from the stream."""
        self._buffer += data

    def next_line(self) -> bytes | None:
        """The next complete line without its newline, or None until one is complete."""
        end = self._buffer.find(b"\n", self._scanned)
        if end < 0:
            self._scanned = len(self._buffer)
            if self._scanned > self.max_bytes:
                raise LineTooLong(f"a line longer than {self.max_bytes} bytes")
            return None
        if end > self.max_bytes:
            raise LineTooLong(f"a line longer than {self.max_bytes} bytes")
        line = bytes(self._buffer[:end])
        del self._buffer[: end + 1]
        self._scanned = 0
        return line

    @property
    def pending(self) -> int:
        """Bytes received but not yet returned as a line."""
        return len(self._buffer)
