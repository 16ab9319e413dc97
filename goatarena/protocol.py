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
import unicodedata
from typing import Any

import msgspec

PROTOCOL_VERSION = 1
MAX_LINE_BYTES = 64 << 10
"""The default cap on one line a bot may write (64 KiB; replies are well under 1 KiB)."""
MAX_DEPTH = 64
"""The default cap on how deeply a bot's line may nest arrays and objects."""
MAX_BRACKETS = 1024
"""The most opening brackets a bot's line may hold, nested or not (see :func:`decode_reply`)."""


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


class Decide(msgspec.Struct, tag="decide", tag_field="type", frozen=True, kw_only=True):
    """A request to choose one of ``actions``; answer with :class:`Action`.

    ``time_ms`` is how long the bot has for this decision (its bank included);
    ``events`` lists the public decisions made since this seat's previous request. The
    observation, usually the largest part, is written last: a reader that does not need
    it can stop before it (as :mod:`goatarena.sdk` does).
    """

    decision: int
    actions: list[Any]
    time_ms: int
    events: list[Event] = []
    observation: dict[str, Any]


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
    to an earlier request instead of taking it for the current one. A decoded ``action``
    is kept as its raw JSON: it is decoded only to be compared with the legal actions,
    and only when it is small enough to be one of them (some numbers, such as ``1e300``,
    cost msgspec tens of microseconds each); empty when absent.
    """

    index: int | None = None
    action: msgspec.Raw = msgspec.Raw()
    decision: int | None = None

    @property
    def has_value(self) -> bool:
        """Whether the reply names its choice by value (an ``action`` other than null)."""
        return len(self.action) > 0 and bytes(self.action) != b"null"


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


class MalformedLine(ValueError):
    """Raised by :func:`decode_reply` for a line that is not a valid bot message."""


_ONLY_BRACKETS = bytes(range(256)).translate(None, b"[]{}")
_SAME_BRACKETS = bytes.maketrans(b"{}", b"[]")


def decode_reply(line: bytes, *, max_depth: int = MAX_DEPTH) -> BotHello | Action:
    """Decode a line from a bot at a cost bounded by its length, whatever it holds.

    The one boundary where untrusted bytes become messages: every failure of any kind is
    a :class:`MalformedLine` with a short detail. Nesting is refused before decoding,
    counting brackets inside strings too: a line with at most ``max_depth`` opening
    brackets cannot nest deeper (the common case, found from its length or from two
    counts in C); one with more than :data:`MAX_BRACKETS` is refused outright, and one
    in between is measured.
    """
    # A line shorter than the cap cannot hold too many brackets: a typical reply is.
    if len(line) > max_depth and (opening := line.count(b"[") + line.count(b"{")) > max_depth:
        if opening > MAX_BRACKETS:
            raise MalformedLine(f"more than {MAX_BRACKETS} brackets in one line")
        if nests_deeper(line, max_depth):
            raise MalformedLine(f"nested more than {max_depth} deep")
    if not line.isascii():
        # The decoder checks only the strings it keeps: invalid UTF-8 in an unknown field
        # or in an action value would pass. A line must be UTF-8 throughout.
        try:
            line.decode()
        except UnicodeDecodeError as error:
            raise MalformedLine(f"invalid UTF-8 at byte {error.start}: {line[:60]!r}") from None
    try:
        return _bot_decoder.decode(line)
    except Exception as error:  # any failure of a decoder fed hostile bytes
        # The decoder's message may quote the line (an unknown type, say): keep it printable.
        raise MalformedLine(f"{_short(printable(str(error), limit=200))}: {line[:60]!r}") from None


def nests_deeper(line: bytes, max_depth: int) -> bool:
    """Whether the brackets of ``line`` nest more than ``max_depth`` deep (brackets inside
    strings count too; unbalanced ones count as nested, as such a line is malformed).

    Innermost pairs are removed a level at a time, at most ``max_depth`` times: the cost
    is bounded by ``max_depth`` times the number of brackets.
    """
    brackets = line.translate(_SAME_BRACKETS, _ONLY_BRACKETS)
    for _ in range(max_depth):
        shorter = brackets.replace(b"[]", b"")
        if not shorter:
            return False
        if len(shorter) == len(brackets):
            return True  # unbalanced
        brackets = shorter
    return True


def decode_action_value(raw: msgspec.Raw, *, max_bytes: int) -> Any:
    """The value of a raw ``action``, or :class:`MalformedLine` if it is longer than
    ``max_bytes`` or not valid JSON: the caller bounds the cost of decoding it."""
    if len(raw) > max_bytes:
        raise MalformedLine(f"an action value of {len(raw)} bytes")
    try:
        return msgspec.json.decode(raw)
    except Exception as error:  # any failure of a decoder fed hostile bytes
        raise MalformedLine(_short(printable(str(error), limit=200))) from None


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def printable(text: str, *, limit: int = 64) -> str:
    """``text`` without control or format characters (newlines, escapes, bidirectional
    overrides) or line and paragraph separators, cut to ``limit`` characters: safe to
    print on one line of a terminal, such as a bot's name, which the bot chooses itself."""
    kept = (char for char in text[: limit * 4] if unicodedata.category(char) not in _UNPRINTABLE)
    return "".join(kept)[:limit]


_UNPRINTABLE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Unicode categories never printed: controls, format characters (bidirectional overrides),
surrogates, private use, unassigned, and the line and paragraph separators (U+2028,
U+2029), which some terminals, editors and JSON readers take for a new line."""


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

    def take(self, data: bytes) -> bytes | None:
        """:meth:`feed` ``data``, then :meth:`next_line`: the same, but quicker for what a
        read of an answering bot nearly always brings, one whole line and nothing more."""
        if not self._buffer and data.find(b"\n") == len(data) - 1 > -1:
            if len(data) > self.max_bytes + 1:
                raise LineTooLong(f"a line longer than {self.max_bytes} bytes")
            return data[:-1]
        self._buffer += data
        return self.next_line()

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
