"""Write a goatarena bot in Python: subclass :class:`Bot`, then call :func:`run`.

The SDK speaks protocol v1 on stdin/stdout so a bot only chooses actions::

    from goatarena.sdk import Bot, Request, run

    class FirstChoice(Bot):
        name = "first"

        def choose(self, request: Request) -> int:
            return 0                      # an index into request.actions

    run(FirstChoice())

What a bot gets:

- :class:`GameStart` when a game begins (game, seat, players, options, clock, seed);
- a :class:`Request` per decision: the observation as plain dicts
  (``request.observation``) or with attribute access (``request.view``, a read-only
  :class:`View`), the legal ``actions``, the public ``events`` since its last decision
  and the whole ``history`` of the game, and ``time_left``;
- :class:`GameEnd` with the scores and ranks.

Everything a bot prints must go to stderr (use :func:`log`): stdout belongs to the
protocol. :func:`play_local` plays bots against each other in this process, with the real
game engines and no referee, which is the quick way to test one. No trio is needed.
``docs/sdk.md`` is the guide.
"""

from __future__ import annotations

import contextlib
import operator
import random
import sys
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

import msgspec

from goatarena import protocol
from goatarena.protocol import Event, TimeInfo, bot_seed, unique_names

__all__ = [
    "Bot",
    "Event",
    "GameEnd",
    "GameStart",
    "LocalPlayError",
    "LocalResult",
    "Request",
    "SeededBot",
    "TimeInfo",
    "View",
    "bot_seed",
    "log",
    "play_local",
    "run",
    "serve",
    "view",
]


# -- what a bot is given ---------------------------------------------------------------------


@dataclass
class GameStart:
    """A game begins: the game's name, the bot's seat, all players' names, options, clock.

    ``seed`` seeds the bot's own random choices so that games replay exactly; ``match``
    names the game in a tournament ("" outside one).
    """

    game: str
    seat: int
    players: list[str]
    options: dict[str, Any]
    time: TimeInfo
    seed: int = 0
    match: str = ""


@dataclass
class Request:
    """One decision: the seat's observation and the legal actions to choose from.

    ``events`` are the public decisions made since this seat's previous request, and
    ``history`` every public event of the game so far (the SDK accumulates them); an
    event is a :class:`~goatarena.protocol.Event` with ``seat`` and ``action``, where a
    part of an action hidden from this seat is ``None``. ``deadline`` is the
    :func:`time.monotonic` time by which the answer must be written.
    """

    game: str
    seat: int
    decision: int
    observation: dict[str, Any]
    actions: list[Any]
    time_ms: int
    deadline: float
    history: list[Event] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    players: list[str] = field(default_factory=list)

    @property
    def view(self) -> View:
        """The observation with attribute access: ``request.view.hand``."""
        return View(self.observation)

    @property
    def action_count(self) -> int:
        """The number of legal actions: ``len(request.actions)``, but without decoding
        them in a request read from the referee (what a bot that picks at random needs)."""
        return len(self.actions)

    @property
    def time_left(self) -> float:
        """Seconds left before the deadline (negative once it has passed)."""
        return self.deadline - time.monotonic()

    def index_of(self, action: Any) -> int:
        """The index of an action value in :attr:`actions`; ValueError if it is not legal."""
        try:
            return self.actions.index(action)
        except ValueError:
            raise ValueError(f"{action!r} is not among the legal actions") from None


class _EventLog:
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


class _WireRequest(Request):
    """A :class:`Request` read from the referee: its parts are decoded on first use.

    Most of a decide line is its observation and its actions, and many bots never read
    the one or need only the number of the other (a random bot): the observation stays
    raw until it is read, each action a raw slice of the line until ``actions`` is read,
    and the events raw in the game's :class:`_EventLog` until ``events`` or ``history``
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
        self._raw_actions: list[msgspec.Raw] = []
        self._log = _EventLog()
        self._decides = 0
        super().__init__(observation=observation, **fields)  # type: ignore[arg-type]

    @classmethod
    def wire(
        cls,
        decide: _WireDecide,
        current: GameStart | None,
        log: _EventLog,
        decides: int,
        deadline: float,
    ) -> _WireRequest:
        """The request for ``decide`` in game ``current``, the ``decides``-th decide of
        ``log``, which holds the game's events (it only grows: the request keeps its place)."""
        request = cls.__new__(cls)
        # Attributes set directly, without the dataclass's __init__: this runs for every
        # decision of every bot, and the properties' setters only mark "not decoded".
        fields = request.__dict__
        fields["_raw_observation"] = decide.observation
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
            self._observation = _observation_decoder.decode(self._raw_observation or b"{}")
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


_observation_decoder = msgspec.json.Decoder(dict[str, Any])
_actions_decoder = msgspec.json.Decoder(list[Any])


@dataclass
class GameEnd:
    """A game is over: scores and ranks by seat (rank 1 is best), and the bot's own seat."""

    scores: list[float]
    ranks: list[int]
    seat: int


class Bot:
    """Base class of a bot; override :meth:`choose`, and optionally the other hooks.

    One bot object plays many games in a row: reset per-game state in :meth:`start`.
    """

    name = "bot"
    """The name the bot gives in its hello."""

    def start(self, game: GameStart) -> None:
        """Called when a game starts."""

    def choose(self, request: Request) -> int:
        """Return the index of the chosen action in ``request.actions``."""
        raise NotImplementedError

    def end(self, result: GameEnd) -> None:
        """Called when a game is over."""


class SeededBot(Bot):
    """A bot with its own random generator, reseeded for every game so games replay.

    Each game's generator is seeded from the seed the referee gives that seat, unless a
    fixed ``seed`` was passed. ``game`` and ``options`` hold the current game's name and
    rule options. Subclasses that override :meth:`start` call ``super().start(game)``.
    """

    def __init__(self, seed: int | None = None) -> None:
        self.fixed_seed = seed
        self.rng = random.Random(seed)
        self.game = ""
        self.options: dict[str, Any] = {}

    def start(self, game: GameStart) -> None:
        """Remember the game and reseed the generator for it."""
        self.game = game.game
        self.options = game.options
        if self.fixed_seed is None:
            self.rng.seed(game.seed)


# -- observations with attribute access ------------------------------------------------------


class View(Mapping[str, Any]):
    """A read-only view of a JSON object: ``v.hand`` and ``v["hand"]`` alike.

    Nested objects come back as views and lists as tuples, so nothing reached through a
    view can change the observation (compare a list field with a tuple: ``v.dice ==
    (2, 5, 5, 2)``). Fields whose names are not identifiers, or that clash with a
    mapping method (``keys``, ``items``, ``values``, ``get``), are read with ``v["name"]``;
    :meth:`to_dict` gives a plain copy.
    """

    __slots__ = ("_data",)
    _data: Mapping[str, Any]

    def __init__(self, data: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_data", data)

    def __getattr__(self, name: str) -> Any:
        try:
            return view(self._data[name])
        except KeyError:
            known = ", ".join(self._data)
            raise AttributeError(f"no field {name!r} (fields: {known})") from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a View is read-only")

    def __getitem__(self, key: str) -> Any:
        return view(self._data[key])

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __eq__(self, other: object) -> bool:
        return self._data == (other._data if isinstance(other, View) else other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"View({self._data!r})"

    def __dir__(self) -> list[str]:
        return [*super().__dir__(), *(key for key in self._data if key.isidentifier())]

    def to_dict(self) -> dict[str, Any]:
        """A deep, mutable copy of the underlying object as plain dicts and lists."""
        copied: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(self._data))
        return copied


def view(value: Any) -> Any:
    """``value`` made read-only for reading: dicts as :class:`View`, lists as tuples."""
    if isinstance(value, View):
        return value
    if isinstance(value, Mapping):
        return View(value)
    if isinstance(value, list | tuple):
        return tuple(view(item) for item in value)
    return value


# -- logging and seeds -----------------------------------------------------------------------


def log(*parts: object) -> None:
    """Print to stderr, the bot's own log (stdout is reserved for the protocol)."""
    print(*parts, file=sys.stderr, flush=True)


# -- the protocol loop -----------------------------------------------------------------------


class _WireDecide(msgspec.Struct, tag="decide", tag_field="type", frozen=True):
    """:class:`~goatarena.protocol.Decide` with the observation, each action and the events
    left undecoded (a list of raw actions is cheap to decode, and its length is their
    number)."""

    decision: int
    observation: msgspec.Raw
    actions: list[msgspec.Raw]
    time_ms: int
    events: msgspec.Raw = msgspec.Raw()


_WireMessage = protocol.Hello | protocol.Start | _WireDecide | protocol.End | protocol.Quit
_wire_decoder = msgspec.json.Decoder(_WireMessage)


def _parse(line: bytes) -> _WireMessage | None:
    """A referee line as :func:`~goatarena.protocol.parse_referee_message` reads it, but
    with a decide's observation left undecoded."""
    try:
        return _wire_decoder.decode(line)
    except msgspec.ValidationError:
        if protocol.parse_referee_message(line) is None:  # a type this SDK does not know
            return None
        raise


def serve(bot: Bot, lines: Iterable[bytes], output: IO[bytes]) -> None:
    """Answer referee messages read from ``lines`` on ``output`` until quit or end of input.

    Message types this SDK does not know are skipped, as the protocol asks.
    """
    current: GameStart | None = None
    log = _EventLog()
    write, flush = output.write, output.flush
    for line in lines:
        received = time.monotonic()
        message = _parse(line)
        # Decisions first: they are nearly every line.
        if isinstance(message, _WireDecide):
            decides = log.add(message.events)
            deadline = received + message.time_ms / 1000
            index = bot.choose(_WireRequest.wire(message, current, log, decides, deadline))
            if type(index) is int:  # the usual answer, without building a message for it
                write(b'{"type":"action","index":%d,"decision":%d}\n' % (index, message.decision))
            else:  # encoded as it is, for the referee to judge
                write(protocol.encode(protocol.Action(index=index, decision=message.decision)))
            flush()
        elif isinstance(message, protocol.Hello):
            _write(output, protocol.BotHello(name=bot.name))
        elif isinstance(message, protocol.Start):
            current = GameStart(
                message.game,
                message.seat,
                message.players,
                message.options,
                message.time,
                message.seed,
                message.match,
            )
            log = _EventLog()  # a new one: requests of the last game keep theirs
            bot.start(current)
        elif isinstance(message, protocol.End):
            bot.end(GameEnd(message.scores, message.ranks, message.seat))
        elif isinstance(message, protocol.Quit):
            return


def _write(output: IO[bytes], message: protocol.BotHello | protocol.Action) -> None:
    output.write(protocol.encode(message))
    output.flush()


def run(bot: Bot) -> None:
    """Run ``bot`` on this process's stdin and stdout until the referee says quit."""
    stdin = sys.stdin.buffer
    # A referee that goes away (broken pipe) or an interrupt ends the bot quietly.
    with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):
        serve(bot, iter(stdin.readline, b""), sys.stdout.buffer)


# -- playing in process ----------------------------------------------------------------------


class LocalPlayError(ValueError):
    """Raised by :func:`play_local` when a bot chooses something that is not a legal index."""


@dataclass
class LocalResult:
    """The outcome of :func:`play_local`: scores and ranks by seat, and how to replay it.

    ``decisions`` are the actions taken in order (with ``game``, ``seed`` and ``options``
    they replay the game); ``slowest_ms`` is each seat's longest :meth:`Bot.choose`.
    """

    game: str
    seed: int
    players: list[str]
    scores: list[float]
    ranks: list[int]
    decisions: list[Any]
    options: dict[str, Any]
    slowest_ms: list[float]


_events_type = list[Event]


def _as_sent(value: Any, kind: Any = Any) -> Any:
    """``value`` as the bot would decode it from the wire (and never the engine's object)."""
    return msgspec.json.decode(msgspec.json.encode(value), type=kind)


def play_local(
    bots: Sequence[Bot],
    game: str,
    *,
    seed: int,
    options: Mapping[str, Any] | None = None,
    move_ms: int = 1000,
) -> LocalResult:
    """Play one game of ``game`` between ``bots`` (one per seat) in this process.

    Each bot is driven as the referee drives it (start, choose, end) with the real
    observations, legal actions and public events, passed through JSON exactly as a bot
    process would receive them; only the clock is not enforced (see
    :attr:`LocalResult.slowest_ms`). Raises :class:`LocalPlayError` when a bot answers
    with anything but a legal index, and ValueError for a wrong player count or the same
    bot object in two seats (give each seat its own).
    """
    from goatarena.games import find_game  # the engines, only when playing locally

    if len({id(bot) for bot in bots}) != len(bots):
        raise ValueError("each seat needs its own bot object")
    info = find_game(game)
    state = info.new_state(len(bots), seed, options)
    names = unique_names([bot.name for bot in bots])
    clock = TimeInfo(move_ms=move_ms)
    for number, bot in enumerate(bots):
        bot.start(
            GameStart(game, number, list(names), dict(state.options), clock, bot_seed(seed, number))
        )
    events: list[Event] = []
    seen = [0] * len(bots)
    histories: list[list[Event]] = [[] for _ in bots]
    slowest = [0.0] * len(bots)
    while (seat := state.to_act) is not None:
        actions = state.legal_actions()
        new_events = _as_sent(events[seen[seat] :], _events_type)
        seen[seat] = len(events)
        histories[seat].extend(new_events)
        request = Request(
            game=game,
            seat=seat,
            decision=len(state.history),
            observation=_as_sent(state.observation(seat)),
            actions=_as_sent(actions),
            time_ms=move_ms,
            deadline=time.monotonic() + move_ms / 1000,
            history=list(histories[seat]),
            events=new_events,
            players=list(names),
        )
        started = time.perf_counter()
        answer = bots[seat].choose(request)
        slowest[seat] = max(slowest[seat], (time.perf_counter() - started) * 1000)
        index = _legal_index(answer, len(actions), names[seat], request.decision)
        action = actions[index]
        events.append(Event(seat=seat, action=state.public_action(seat, action)))
        state.apply_index(index)
    result = state.result()
    for number, bot in enumerate(bots):
        bot.end(GameEnd(list(result.scores), list(result.ranks), number))
    return LocalResult(
        game=game,
        seed=seed,
        players=names,
        scores=list(result.scores),
        ranks=list(result.ranks),
        decisions=list(state.history),
        options=dict(state.options),
        slowest_ms=[round(ms, 3) for ms in slowest],
    )


def _legal_index(answer: Any, count: int, name: str, decision: int) -> int:
    try:
        if isinstance(answer, bool):
            raise TypeError
        index = operator.index(answer)
    except TypeError:
        raise LocalPlayError(
            f"{name} answered decision {decision} with {answer!r}, not an index"
        ) from None
    if not 0 <= index < count:
        raise LocalPlayError(
            f"{name} answered decision {decision} with index {index}, outside 0..{count - 1}"
        )
    return index
