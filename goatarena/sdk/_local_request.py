"""The requests :func:`goatarena.sdk.play_local` gives a bot: built from the engine's state
only when read, so that local play costs what the bot reads (a random bot: nothing but
the number of actions), as a bot reading the referee's lines pays only for what it
decodes (:class:`goatarena.sdk._wire.WireRequest`).

Every part still reaches the bot as it would through JSON (new plain values, never the
engine's objects). A part is read from the state as it is while the bot decides; a
request the bot keeps past its answer is completed (:meth:`LocalRequest.seal`) before
the game moves on.
"""

from __future__ import annotations

import sys
from typing import Any

import msgspec

from goatarena.games.base import State
from goatarena.protocol import Event
from goatarena.sdk._bot import Request

_encode = msgspec.json.encode
_decode_any = msgspec.json.Decoder()
_decode_events = msgspec.json.Decoder(list[Event])


def as_sent(value: Any) -> Any:
    """``value`` as a bot would decode it from the wire (and never the engine's object)."""
    return _decode_any.decode(_encode(value))


class _CountOfActions:
    """``len(request.actions)``, for a request whose count play_local did not set (one
    made by ``dataclasses.replace``); a value in the request's own fields comes first, as
    this descriptor defines no ``__set__``."""

    def __get__(self, request: Request | None, owner: type | None = None) -> Any:
        if request is None:
            return self
        return len(request.actions)


class LocalRequest(Request):
    """A :class:`Request` whose observation, actions, events and history are made from
    the game when first read. :func:`goatarena.sdk.play_local` builds them (setting
    ``__dict__`` whole: the fields and the underscored attributes below)."""

    # Parts not made yet are None: class attributes, so a new request needs no entries.
    _observation: dict[str, Any] | None = None
    _actions: list[Any] | None = None
    _events: list[Event] | None = None
    _history: list[Event] | None = None
    _state: State
    """The game the request is about (dropped once sealed: every part is made then)."""
    _public: list[tuple[int, Any]]
    """The game's public decisions so far, as (seat, public action): the engine's values."""
    _since: int
    _until: int

    def seal(self) -> None:
        """Read every part now, while the state is still the one the request is about."""
        _ = self.observation, self.actions, self.events, self.history
        self.__dict__["_state"] = None

    @property
    def observation(self) -> dict[str, Any]:
        """The seat's observation as plain dicts and lists (made once, when first read)."""
        if self._observation is None:
            self._observation = as_sent(self._state.observation(self.seat))
        return self._observation

    @observation.setter
    def observation(self, value: dict[str, Any]) -> None:
        self._observation = value

    @property
    def actions(self) -> list[Any]:
        """The legal actions as plain values (made once, when first read)."""
        if self._actions is None:
            self._actions = as_sent(self._state.legal_actions())
        return self._actions

    @actions.setter
    def actions(self, value: list[Any]) -> None:
        self._actions = value

    action_count = _CountOfActions()
    """The number of legal actions: set by play_local for each decision (a plain field,
    the cheapest read), else the length of :attr:`actions`."""

    @property
    def events(self) -> list[Event]:
        """The public events since this seat's previous request."""
        if self._events is None:
            self._events = _events_of(self._public[self._since : self._until])
        return self._events

    @events.setter
    def events(self, value: list[Event]) -> None:
        self._events = value

    @property
    def history(self) -> list[Event]:
        """Every public event of the game before this request."""
        if self._history is None:
            self._history = _events_of(self._public[: self._until])
        return self._history

    @history.setter
    def history(self, value: list[Event]) -> None:
        self._history = value


def _events_of(public: list[tuple[int, Any]]) -> list[Event]:
    """Events as a bot decodes them from (seat, public action) pairs."""
    return _decode_events.decode(
        _encode([Event(seat=seat, action=action) for seat, action in public])
    )


def unshared_count() -> int:
    """What ``sys.getrefcount`` says of an object only a function's own variable holds
    (2 on CPython 3.11: the variable and the call's argument); more means someone kept it."""
    probe = object()
    return sys.getrefcount(probe)
