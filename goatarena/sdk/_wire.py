"""The referee's lines as the Python SDK reads them: a decide's parts stay raw JSON until
a bot reads them, so that a bot pays only for what it uses (a random bot decodes nothing
but the number of actions). Used by :func:`goatarena.sdk.serve`.
"""

from __future__ import annotations

from typing import Any

import msgspec

from goatarena import protocol
from goatarena.protocol import Event
from goatarena.sdk._bot import GameStart, Request


class EventLog:
    """A game's public events as its decides bring them, each decide's decoded when
    first read (through any request's ``events`` or ``history``)."""

    __slots__ = ("_ends", "_events", "_raw")

    def __init__(self) -> None:
        self._raw: list[msgspec.Raw] = []
        """Each decide's events, as raw JSON."""
        self._events: list[Event] = []
        """The events of the first ``len(_ends)`` decides, decoded."""
        self._ends: list[int] = []
        """How many events the decides up to each one brought."""

    def add(self, raw: msgspec.Raw) -> int:
        """Keep a decide's raw events; return how many decides the log holds now."""
        self._raw.append(raw)
        return len(self._raw)

    def _decode(self, decides: int) -> None:
        for raw in self._raw[len(self._ends) : decides]:
            if raw:  # (absent: none)
                self._events += _events_decoder.decode(raw)
            self._ends.append(len(self._events))

    def history(self, decides: int) -> list[Event]:
        """A new list of the events of the first ``decides`` decides."""
        self._decode(decides)
        return self._events[: self._ends[decides - 1]]

    def events(self, decides: int) -> list[Event]:
        """A new list of the events of the ``decides``-th decide alone."""
        self._decode(decides)
        start = self._ends[decides - 2] if decides > 1 else 0
        return self._events[start : self._ends[decides - 1]]


_events_decoder = msgspec.json.Decoder(list[Event])


class WireRequest(Request):
    """A :class:`Request` read from the referee: its parts are decoded on first use.

    Most of a decide line is its observation and its actions, and many bots never read
    the one or need only the number of the other (a random bot): the observation stays
    raw until it is read (not even scanned, where the referee wrote it last: see
    :func:`parse_line`), each action a raw slice of the line until ``actions`` is read,
    and the events raw in the game's :class:`EventLog` until ``events`` or ``history``
    is. Build one with :meth:`wire`.
    """

    _observation: dict[str, Any] | None
    _actions: list[Any] | None
    _events: list[Event] | None
    _history: list[Event] | None

    def __init__(
        self,
        raw_observation: msgspec.Raw | None = None,
        observation: dict[str, Any] | None = None,
        **fields: Any,
    ) -> None:
        # (Keyword ``observation`` too, so that dataclasses.replace works on a copy.)
        self._raw_observation = raw_observation
        self._observation_tail = b""
        self._raw_actions: list[msgspec.Raw] = []
        self._log = EventLog()
        self._decides = 0
        super().__init__(observation=observation, **fields)  # type: ignore[arg-type]

    @classmethod
    def wire(
        cls,
        decide: WireDecide,
        tail: bytes,
        current: GameStart | None,
        log: EventLog,
        decides: int,
        deadline: float,
    ) -> WireRequest:
        """The request for ``decide`` (whose observation is ``tail``, if not in it: see
        :func:`parse_line`) in game ``current``, the ``decides``-th decide of ``log``,
        which holds the game's events (it only grows: the request keeps its place)."""
        request = cls.__new__(cls)
        # Attributes set directly, without the dataclass's __init__: this runs for every
        # decision of every bot, and the properties' setters only mark "not decoded".
        fields = request.__dict__
        fields["_raw_observation"] = decide.observation
        fields["_observation_tail"] = tail
        fields["_observation"] = None
        fields["_raw_actions"] = decide.actions
        fields["_actions"] = None
        fields["_log"] = log
        fields["_decides"] = decides
        fields["_events"] = fields["_history"] = None
        fields["decision"] = decide.decision
        fields["time_ms"] = decide.time_ms
        fields["deadline"] = deadline
        if current is None:
            fields["game"], fields["seat"], fields["players"] = "", 0, []
        else:
            fields["game"], fields["seat"] = current.game, current.seat
            fields["players"] = current.players
        return request

    @property
    def observation(self) -> dict[str, Any]:
        """The seat's observation as plain dicts and lists (decoded once, when first read)."""
        if self._observation is None:
            self._observation = _decode_observation(self._raw_observation, self._observation_tail)
        return self._observation

    @observation.setter
    def observation(self, value: dict[str, Any] | None) -> None:
        self._observation = value  # None: decode the raw observation when read

    @property
    def actions(self) -> list[Any]:
        """The legal actions as plain values (decoded once, when first read)."""
        if self._actions is None:
            self._actions = _actions_decoder.decode(b"[%b]" % b",".join(self._raw_actions))
        return self._actions

    @actions.setter
    def actions(self, value: list[Any]) -> None:
        self._actions = value

    @property
    def action_count(self) -> int:
        """The number of legal actions, without decoding them."""
        if self._actions is None:
            return len(self._raw_actions)
        return len(self._actions)

    @property
    def events(self) -> list[Event]:
        """The public events since this seat's previous request (decoded when first read)."""
        if self._events is None:
            self._events = self._log.events(self._decides)
        return self._events

    @events.setter
    def events(self, value: list[Event]) -> None:
        self._events = value

    @property
    def history(self) -> list[Event]:
        """Every public event of the game so far (decoded when first read)."""
        if self._history is None:
            self._history = self._log.history(self._decides)
        return self._history

    @history.setter
    def history(self, value: list[Event]) -> None:
        self._history = value


class _ObservationTail(msgspec.Struct):
    """The rest of a decide line from its observation on, read as an object of its own."""

    observation: dict[str, Any] = {}


_observation_decoder = msgspec.json.Decoder(dict[str, Any])
_tail_decoder = msgspec.json.Decoder(_ObservationTail)
_actions_decoder = msgspec.json.Decoder(list[Any])


def _decode_observation(raw: msgspec.Raw | None, tail: bytes) -> dict[str, Any]:
    """A decide's observation from its raw JSON, or from ``tail``, the rest of the line
    from the comma before its key on (``,"observation":{...}}``)."""
    if tail:
        return _tail_decoder.decode(b"{" + tail[1:]).observation
    return _observation_decoder.decode(raw or b"{}")


class WireDecide(msgspec.Struct, tag="decide", tag_field="type", frozen=True):
    """:class:`~goatarena.protocol.Decide` with the observation, each action and the events
    left undecoded (a list of raw actions is cheap to decode, and its length is their
    number); read without its observation when the referee wrote that last."""

    decision: int
    actions: list[msgspec.Raw]
    time_ms: int
    events: msgspec.Raw = msgspec.Raw()
    observation: msgspec.Raw = msgspec.Raw()


WireMessage = protocol.Hello | protocol.Start | WireDecide | protocol.End | protocol.Quit
_wire_decoder = msgspec.json.Decoder(WireMessage)
_decide_decoder = msgspec.json.Decoder(WireDecide)

_DECIDE = b'{"type":"decide"'
_OBSERVATION = b',"observation":'


def parse_line(line: bytes) -> tuple[WireMessage | None, bytes]:
    """A referee line as :func:`~goatarena.protocol.parse_referee_message` reads it, but
    with a decide's parts left undecoded; None for a type this SDK does not know.

    The referee writes a decide's observation, its largest part, last. Then the line is
    read only up to it, and the rest of the line from there on is returned too (else
    ``b""``), for the observation to be decoded from it if the bot reads it. Up to the
    *last* ``,"observation":`` of the line: a string cannot hold one (its quotes would be
    escaped), so if that is not the decide's own key it is nested in an open array or
    object, the part before it is no valid message, and the line is read whole instead.
    """
    if line.startswith(_DECIDE) and (cut := line.rfind(_OBSERVATION)) > 0:
        try:
            return _decide_decoder.decode(line[:cut] + b"}"), line[cut:]
        except msgspec.DecodeError:
            pass  # not the referee's layout: read the line whole
    try:
        return _wire_decoder.decode(line), b""
    except msgspec.ValidationError:
        if protocol.parse_referee_message(line) is None:  # a type this SDK does not know
            return None, b""
        raise
