"""The game interface every goatarena game implements, and the bookkeeping they share.

A game is a :class:`GameInfo` (name, player counts, default options and a factory) and a
:class:`State` subclass holding the pure rules. A state is mutable: :meth:`State.apply`
moves it on, :meth:`State.clone` copies it (searches clone, the referee does not).

The base class owns what is common to every game: the decision history, the legality
check, the cached legal actions and replay. A game fills in the hooks whose names start
with an underscore plus :meth:`State.observation`.

Actions are plain JSON values (ints, strings, lists and dicts, never tuples) so that an
action decoded from a bot's reply compares equal to the one the engine offered.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

import msgspec

from goatarena.errors import ConfigError, IllegalAction

Action = Any
"""A JSON-able value naming one choice: int, str, list or dict."""

Observation = dict[str, Any]
"""What one seat may see of a state, as a JSON-able dict."""


class Result(msgspec.Struct, frozen=True):
    """The outcome of a finished game: a score and a rank per seat (rank 1 is best)."""

    scores: list[float]
    ranks: list[int]


class GameRecord(msgspec.Struct, frozen=True):
    """Everything needed to replay a game: seed plus the decisions in order."""

    game: str
    players: int
    seed: int
    decisions: list[Any]
    options: dict[str, Any] = {}


def ranks_from_keys(keys: Sequence[Any]) -> list[int]:
    """Competition ranks (1, 2, 2, 4) from per-seat sort keys; a larger key ranks better."""
    return [1 + sum(1 for other in keys if other > key) for key in keys]


def generator_copies(rng: random.Random) -> Callable[[], random.Random]:
    """A maker of independent generators that each continue ``rng``'s sequence from where
    it is now, however ``rng`` moves on later.

    ``rng``'s state is read once: for callers that copy one generator many times, the
    reading (a tuple of 625 ints) costs three times as much as restoring it.
    """
    state = rng.getstate()

    def make() -> random.Random:
        # Random.__new__ skips the costly seeding from the OS that setstate overwrites.
        other = random.Random.__new__(random.Random)
        other.setstate(state)
        return other

    return make


class State:
    """The rules of one game in progress. Subclasses implement the underscore hooks."""

    info: ClassVar[GameInfo]

    def __init__(self, players: int, seed: int, options: Mapping[str, Any]) -> None:
        self.players = players
        self.seed = seed
        self.options = dict(options)
        self.rng = random.Random(seed)
        self.history: list[Action] = []
        self._legal: list[Action] | None = None

    # -- hooks a game implements ---------------------------------------------------

    def _to_act(self) -> int | None:
        """The seat that must decide now, or None when the game is over."""
        raise NotImplementedError

    def _legal_actions(self) -> list[Action]:
        """The legal actions of the seat to act, in a deterministic order."""
        raise NotImplementedError

    def _apply(self, action: Action) -> None:
        """Carry out a legal action (legality is already checked)."""
        raise NotImplementedError

    def _result(self) -> Result:
        """Scores and ranks of a finished game."""
        raise NotImplementedError

    def observation(self, seat: int) -> Observation:
        """Everything ``seat`` may see now, and nothing it may not."""
        raise NotImplementedError

    def _resample_hidden(self, seat: int, rng: random.Random) -> None:
        """Redeal, in place, everything ``seat`` cannot see, consistently with what it saw.

        Games with hidden cards override this; the default (perfect information apart
        from future chance) only reseeds the random generator.
        """

    def render(self) -> str:
        """A human-readable picture of the state for logs."""
        return repr(self.observation(0))

    def public_action(self, seat: int, action: Action) -> Action:
        """What the other seats learn when ``seat`` takes ``action`` (default: all of it)."""
        return action

    # -- the shared interface ------------------------------------------------------

    @property
    def to_act(self) -> int | None:
        """The one seat that must decide next, or None when the game is over."""
        return self._to_act()

    @property
    def is_over(self) -> bool:
        """True once no seat has anything left to decide."""
        return self._to_act() is None

    def legal_actions(self) -> list[Action]:
        """The choices of the seat to act, computed once per state."""
        if self._legal is None:
            self._legal = [] if self.is_over else self._legal_actions()
        return self._legal

    def apply(self, action: Action) -> None:
        """Apply a legal action; raise :class:`IllegalAction` for any other value."""
        legal = self.legal_actions()
        if action not in legal:
            raise IllegalAction(f"{action!r} is not a legal action now")
        self._commit(action)

    def apply_index(self, index: int) -> Action:
        """Apply the ``index``-th legal action and return it."""
        # The hot path of every playout: the cached list read directly and the commit
        # inlined, a call less per decision than going through _commit.
        legal = self._legal
        if legal is None:
            legal = self.legal_actions()
        if not 0 <= index < len(legal):
            raise IllegalAction(f"action index {index} is outside 0..{len(legal) - 1}")
        action = legal[index]
        self._legal = None
        self._apply(action)
        self.history.append(action)
        return action

    def _commit(self, action: Action) -> None:
        self._legal = None
        self._apply(action)
        self.history.append(action)

    def result(self) -> Result:
        """Scores and ranks; only defined once the game is over."""
        if not self.is_over:
            raise IllegalAction("the game is not over yet")
        return self._result()

    def clone(self, rng: random.Random | None = None) -> State:
        """An independent copy.

        Its generator is a copy of this state's, so that both continue the same random
        sequence; or, given ``rng``, it is ``rng`` itself, for callers that would replace
        it anyway: copying a generator (a round trip of 625 ints) costs more than the rest
        of a clone. The default deep-copies; games override it with
        :meth:`_copy_bookkeeping` plus a copy of their own mutable fields, since searches
        clone thousands of times.
        """
        other = copy.deepcopy(self)
        if rng is not None:
            other.rng = rng
        return other

    def _copy_bookkeeping(self, rng: random.Random | None = None) -> Self:
        """A shallow copy whose shared bookkeeping (options, generator, history) is its own:
        the generator a copy of this state's, or ``rng`` when given.

        The cached legal actions stay shared: action lists are never changed in place.
        """
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.options = dict(self.options)
        other.rng = generator_copies(self.rng)() if rng is None else rng
        other.history = list(self.history)
        return other

    def determinize(self, seat: int, rng: random.Random) -> State:
        """A copy in which all that ``seat`` cannot see is redealt at random.

        The copy gives ``seat`` the same observation; searches use it to sample the
        hidden cards, and the conformance check uses it to prove observations leak
        nothing. Its future chance is drawn from a generator seeded from ``rng``.
        """
        other = self.clone(random.Random(rng.getrandbits(64)))
        other._legal = None
        other._resample_hidden(seat, rng)
        return other

    def to_record(self) -> GameRecord:
        """The record (seed plus decisions) that replays this game."""
        return GameRecord(
            game=self.info.name,
            players=self.players,
            seed=self.seed,
            decisions=list(self.history),
            options=self.options,
        )


@dataclass(frozen=True)
class GameInfo:
    """A registered game: its name, player counts, option defaults and state class."""

    name: str
    title: str
    min_players: int
    max_players: int
    state_class: type[State]
    default_options: Mapping[str, Any] = field(default_factory=dict)
    option_ranges: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    """The least and the most each numeric option may be, where it is bounded."""
    hidden_information: bool = True
    summary: str = ""

    def __post_init__(self) -> None:
        self.state_class.info = self

    @property
    def player_counts(self) -> range:
        """The allowed numbers of players."""
        return range(self.min_players, self.max_players + 1)

    def check_options(self, players: int, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Validate a player count and options; return the options with defaults filled."""
        if players not in self.player_counts:
            raise ConfigError(
                f"{self.name} is played by {self.min_players} to {self.max_players} players,"
                f" not {players}"
            )
        merged = dict(self.default_options)
        for key, value in (options or {}).items():
            if key not in merged:
                known = ", ".join(sorted(merged)) or "none"
                raise ConfigError(f"{self.name} has no option {key!r} (options: {known})")
            if type(value) is not type(merged[key]):
                raise ConfigError(
                    f"{self.name} option {key!r} must be {type(merged[key]).__name__},"
                    f" not {value!r}"
                )
            bounds = self.option_ranges.get(key)
            if bounds is not None and not bounds[0] <= value <= bounds[1]:
                raise ConfigError(
                    f"{self.name} option {key!r} must be {bounds[0]} to {bounds[1]}, not {value!r}"
                )
            merged[key] = value
        return merged

    def new_state(self, players: int, seed: int, options: Mapping[str, Any] | None = None) -> State:
        """A new game at its start, after any opening chance (shuffles, first roll)."""
        return self.state_class(players, seed, self.check_options(players, options))

    def replay(self, record: GameRecord) -> State:
        """Rebuild the state a record ends in; raise :class:`IllegalAction` if it is not legal."""
        state = self.new_state(record.players, record.seed, record.options)
        for action in record.decisions:
            state.apply(action)
        return state
