"""The Python SDK's loop, driven in process through byte streams."""

from __future__ import annotations

import dataclasses
import importlib.util
import io
import json
import random
import time
from types import ModuleType

import pytest
from click.testing import CliRunner

from goatarena import protocol
from goatarena.cli import main
from goatarena.errors import ConfigError
from goatarena.games import GAMES
from goatarena.sdk import (
    Bot,
    GameEnd,
    GameStart,
    LocalPlayError,
    Request,
    View,
    bot_seed,
    log,
    play_local,
    serve,
    view,
)
from goatarena.sdk import _wire as sdk_wire
from tests.helpers import RANDOM_BOT, ROOT


def load_random_bot() -> ModuleType:
    """bots/python/random_bot.py as a module (bots/ is not a package)."""
    spec = importlib.util.spec_from_file_location(
        "random_bot", ROOT / "bots" / "python" / "random_bot.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Recorder(Bot):
    name = "recorder"

    def __init__(self) -> None:
        self.starts: list[GameStart] = []
        self.requests: list[Request] = []
        self.ends: list[GameEnd] = []

    def start(self, game: GameStart) -> None:
        self.starts.append(game)

    def choose(self, request: Request) -> int:
        self.requests.append(request)
        return len(request.actions) - 1

    def end(self, result: GameEnd) -> None:
        self.ends.append(result)


def lines(*messages: object) -> list[bytes]:
    return [
        m if isinstance(m, bytes) else protocol.encode(m)  # type: ignore[arg-type]
        for m in messages
    ]


def test_serve_answers_hello_and_decisions_and_stops_at_quit():
    bot = Recorder()
    output = io.BytesIO()
    event = protocol.Event(seat=1, action="x")
    script = lines(
        protocol.Hello(),
        protocol.Start(
            game="mountain-goats", seat=0, players=["a", "b"], time=protocol.TimeInfo(100)
        ),
        b'{"type":"surprise","extra":true}\n',
        protocol.Decide(decision=0, observation={}, actions=[1, 2, 3], time_ms=100),
        protocol.Decide(decision=2, observation={}, actions=[1, 2], time_ms=100, events=[event]),
        protocol.End(scores=[1.0, 0.0], ranks=[1, 2]),
        protocol.Quit(),
        protocol.Decide(decision=9, observation={}, actions=[1], time_ms=100),
    )
    serve(bot, script, output)
    replies = [protocol.parse_bot_message(line) for line in output.getvalue().splitlines()]
    assert replies == [
        protocol.BotHello(name="recorder"),
        protocol.Action(index=2, decision=0),
        protocol.Action(index=1, decision=2),
    ]
    assert bot.starts[0].players == ["a", "b"]
    assert bot.requests[1].history == [event]
    assert bot.requests[1].time_left <= 0.1
    assert bot.ends[0].ranks == [1, 2]


# -- serve: what a request carries ----------------------------------------------------------


def test_a_request_carries_new_events_the_whole_history_and_the_players():
    bot = Recorder()
    first, second = protocol.Event(seat=1, action="a"), protocol.Event(seat=1, action=None)
    script = lines(
        protocol.Hello(),
        protocol.Start(
            game="goat-lords", seat=0, players=["me", "you"], time=protocol.TimeInfo(50)
        ),
        protocol.Decide(decision=1, observation={}, actions=[0], time_ms=50, events=[first]),
        protocol.Decide(decision=3, observation={}, actions=[0], time_ms=50, events=[second]),
    )
    serve(bot, script, io.BytesIO())
    assert [r.events for r in bot.requests] == [[first], [second]]
    assert [r.history for r in bot.requests] == [[first], [first, second]]
    assert bot.requests[0].players == ["me", "you"]
    assert bot.requests[1].game == "goat-lords"


class ObservationReader(Recorder):
    def choose(self, request: Request) -> int:
        self.seen = (request.observation, request.view.dice, request.observation)
        return super().choose(request)


def _count_observation_decodes(monkeypatch) -> list[object]:
    decoded: list[object] = []
    real = sdk_wire._decode_observation

    def counting(raw, tail):
        decoded.append(real(raw, tail))
        return decoded[-1]

    monkeypatch.setattr(sdk_wire, "_decode_observation", counting)
    return decoded


def test_the_observation_is_decoded_only_for_a_bot_that_reads_it_and_then_once(monkeypatch):
    observation = {"seat": 0, "dice": [1, 6, 2, 2], "steps": [[0, 1], [2, 3]], "ending": False}
    script = lines(
        protocol.Hello(),
        protocol.Start(
            game="mountain-goats", seat=0, players=["a", "b"], time=protocol.TimeInfo(9)
        ),
        protocol.Decide(decision=0, observation=observation, actions=[1, 2], time_ms=9),
    )
    # As the referee writes a decide, the line is read only up to its observation.
    message, tail = sdk_wire.parse_line(script[2])
    assert isinstance(message, sdk_wire.WireDecide) and not message.observation
    assert tail.startswith(b',"observation":{"seat":0,')
    decoded = _count_observation_decodes(monkeypatch)
    skipper = Recorder()
    serve(skipper, script, io.BytesIO())
    assert decoded == [] and skipper.requests[0].actions == [1, 2]

    reader = ObservationReader()
    serve(reader, script, io.BytesIO())
    assert reader.seen == (observation, (1, 6, 2, 2), observation)
    assert decoded == [observation]
    # A request read later (a bot that keeps them) still has its observation, as does a
    # copy with a field replaced.
    assert skipper.requests[0].observation == observation
    copy = dataclasses.replace(skipper.requests[0], decision=5)
    assert copy.observation == observation and copy.decision == 5


class Counter(Recorder):
    """Reads only the number of actions, as a random bot does."""

    def choose(self, request: Request) -> int:
        self.requests.append(request)
        return request.action_count - 1


def test_the_actions_are_decoded_only_for_a_bot_that_reads_them_and_then_once(monkeypatch):
    actions = [{"move": [5], "groups": [[1], [3, 4]]}, {"move": [], "groups": []}, "yield"]
    script = lines(
        protocol.Hello(),
        protocol.Start(
            game="mountain-goats", seat=0, players=["a", "b"], time=protocol.TimeInfo(9)
        ),
        protocol.Decide(decision=0, observation={"seat": 0}, actions=actions, time_ms=9),
    )
    decoded: list[bytes] = []
    real = sdk_wire._actions_decoder

    class Counting:
        def decode(self, raw):
            decoded.append(bytes(raw))
            return real.decode(raw)

    monkeypatch.setattr(sdk_wire, "_actions_decoder", Counting())
    counter = Counter()
    output = io.BytesIO()
    serve(counter, script, output)
    assert decoded == [] and protocol.parse_bot_message(output.getvalue().splitlines()[1]) == (
        protocol.Action(index=2, decision=0)
    )
    request = counter.requests[0]
    assert request.actions == actions and request.actions is request.actions
    assert len(decoded) == 1 and request.action_count == 3
    assert request.index_of("yield") == 2
    copy = dataclasses.replace(request, decision=5)
    assert copy.actions == actions and copy.action_count == 3 and len(decoded) == 1
    # A request made in process counts its actions too.
    assert dataclasses.replace(request, actions=[1, 2]).action_count == 2


def test_a_request_keeps_its_own_history_while_the_game_goes_on():
    first, second = protocol.Event(seat=1, action="a"), protocol.Event(seat=1, action="b")
    start = protocol.Start(
        game="goat-lords", seat=0, players=["me", "you"], time=protocol.TimeInfo(5)
    )
    script = lines(
        protocol.Hello(),
        start,
        protocol.Decide(decision=1, observation={}, actions=[0], time_ms=5, events=[first]),
        protocol.Decide(decision=3, observation={}, actions=[0], time_ms=5, events=[second]),
        b'{"type":"decide","decision":5,"observation":{},"actions":[0],"time_ms":5}\n',
        protocol.End(scores=[1.0, 0.0], ranks=[1, 2]),
        start,
        protocol.Decide(decision=1, observation={}, actions=[0], time_ms=5, events=[second]),
    )
    bot = Recorder()
    serve(bot, script, io.BytesIO())
    # Read only now, after later decisions and a new game: each still has its own.
    assert [r.events for r in bot.requests] == [[first], [second], [], [second]]
    histories = [[first], [first, second], [first, second], [second]]
    assert [r.history for r in bot.requests] == histories
    bot.requests[0].history.append(second)  # a bot may change its copy...
    assert bot.requests[0].history == [first, second]
    assert bot.requests[1].history == [first, second]  # ...and only its copy
    assert bot.requests[3].history == [second] and bot.requests[3].events == [second]


NESTED = {"seat": 0, "observation": {"x": [1]}}
ACTIONS = [{"observation": 2}, "b"]
EVENT = protocol.Event(seat=1, action={"observation": 3})
_FIELDS = {
    "observation": b'"observation":{"seat":0,"observation":{"x":[1]}}',
    "decision": b'"decision":4',
    "actions": b'"actions":[{"observation":2},"b"]',
    "time_ms": b'"time_ms":9',
    "events": b'"events":[{"seat":1,"action":{"observation":3}}]',
    "extra": b'"extra":{"observation":5}',
}


def _decide_line(*order: str) -> bytes:
    return b'{"type":"decide",' + b",".join(_FIELDS[name] for name in order) + b"}\n"


class Keeper(Recorder):
    def choose(self, request: Request) -> int:
        self.seen = (request.observation, request.actions, request.events, request.time_ms)
        return super().choose(request)


@pytest.mark.parametrize(
    "line",
    [
        # As the referee writes it: the observation last (and a key of that name nested).
        protocol.encode(
            protocol.Decide(
                decision=4, observation=NESTED, actions=ACTIONS, time_ms=9, events=[EVENT]
            )
        ),
        _decide_line("decision", "actions", "time_ms", "events", "observation", "extra"),
        _decide_line("decision", "observation", "actions", "time_ms", "events"),
        _decide_line("decision", "actions", "observation", "time_ms", "events", "extra"),
        _decide_line("extra", "events", "time_ms", "actions", "decision", "observation"),
    ],
)
def test_a_decide_reads_the_same_whatever_the_order_of_its_fields(line):
    bot = Keeper()
    output = io.BytesIO()
    serve(bot, [protocol.encode(protocol.Hello()), line], output)
    assert bot.seen == (NESTED, ACTIONS, [EVENT], 9)
    assert protocol.parse_bot_message(output.getvalue().splitlines()[1]) == protocol.Action(
        index=1, decision=4
    )


def test_log_writes_to_stderr_only(capsys):
    log("thinking", 3)
    captured = capsys.readouterr()
    assert captured.err == "thinking 3\n" and captured.out == ""


# -- View ------------------------------------------------------------------------------------

OBSERVATION = {
    "seat": 1,
    "hand": ["g1", "r5"],
    "duel": {"attacker": 0, "played": [{"seat": 0, "card": "ninja"}]},
    "A3": 7,
    "odd key": True,
}


def test_a_view_reads_fields_as_attributes_and_items_nested_all_the_way():
    obs = View(OBSERVATION)
    assert obs.seat == 1 and obs["seat"] == 1
    assert obs.hand == ("g1", "r5")
    assert obs.duel.attacker == 0
    assert obs.duel.played[0].card == "ninja"
    assert obs.A3 == 7 and obs["odd key"] is True
    assert set(obs) == set(OBSERVATION) and len(obs) == len(OBSERVATION)
    assert obs == OBSERVATION and obs.duel == OBSERVATION["duel"] and obs == View(OBSERVATION)
    assert "hand" in dir(obs) and "odd key" not in dir(obs)


def test_a_view_is_read_only_and_to_dict_is_an_independent_copy():
    data = {"hand": ["g1"], "duel": {"attacker": 0}}
    obs = View(data)
    with pytest.raises(AttributeError, match="read-only"):
        obs.hand = []  # type: ignore[misc]
    with pytest.raises(TypeError):
        obs.duel["attacker"] = 2  # type: ignore[index]
    with pytest.raises(AttributeError):
        obs.hand.append("r5")  # a tuple
    copy = obs.to_dict()
    copy["hand"].append("r5")
    assert data == {"hand": ["g1"], "duel": {"attacker": 0}}


def test_a_missing_field_names_the_fields_there_are():
    with pytest.raises(AttributeError, match=r"no field 'dice' \(fields: seat, hand"):
        View(OBSERVATION).dice  # noqa: B018


def test_view_of_plain_values_and_lists():
    assert view(3) == 3 and view("x") == "x" and view(None) is None
    assert view([1, [2, {"a": 3}]]) == (1, (2, View({"a": 3})))
    assert view([{"a": 1}])[0].a == 1


@pytest.mark.parametrize("name", list(GAMES))
def test_every_field_of_every_game_observation_reads_through_request_view(name):
    state = GAMES[name].new_state(GAMES[name].min_players, 5)
    rng = random.Random(5)
    for _ in range(30):
        if state.is_over:
            break
        observation = state.observation(state.to_act)
        request = Request(
            game=name,
            seat=state.to_act,
            decision=0,
            observation=observation,
            actions=state.legal_actions(),
            time_ms=1,
            deadline=0,
        )
        for key, value in observation.items():
            assert request.view[key] == view(value)
            if key.isidentifier():
                assert getattr(request.view, key) == view(value)
        state.apply_index(rng.randrange(len(state.legal_actions())))


def test_index_of_finds_an_action_value_or_says_it_is_not_legal():
    request = Request("g", 0, 0, {}, [{"move": [5]}, "yield"], 10, 0.0)
    assert request.index_of("yield") == 1 and request.index_of({"move": [5]}) == 0
    with pytest.raises(ValueError, match="not among the legal actions"):
        request.index_of("pass")


def test_time_left_counts_down_to_the_deadline():
    request = Request("g", 0, 0, {}, [0], 200, time.monotonic() + 0.2)
    assert 0.1 < request.time_left <= 0.2
    assert Request("g", 0, 0, {}, [0], 200, time.monotonic() - 1).time_left < 0


# -- play_local ------------------------------------------------------------------------------


class Watcher(Bot):
    """A seeded random bot that keeps everything it was given."""

    name = "watcher"

    def __init__(self, meddle: bool = False) -> None:
        self.meddle = meddle
        self.starts: list[GameStart] = []
        self.requests: list[Request] = []
        self.ends: list[GameEnd] = []
        self.rng = random.Random()

    def start(self, game: GameStart) -> None:
        self.starts.append(game)
        self.rng.seed(game.seed)

    def choose(self, request: Request) -> int:
        self.requests.append(request)
        index = self.rng.randrange(len(request.actions))
        if self.meddle:  # a careless bot must not be able to change the game
            request.actions.clear()
            request.observation.clear()
        return index

    def end(self, result: GameEnd) -> None:
        self.ends.append(result)


@pytest.mark.parametrize(
    ("name", "players"),
    [(name, count) for name, info in GAMES.items() for count in info.player_counts],
)
def test_play_local_drives_bots_with_the_real_observations_actions_and_events(name, players):
    info = GAMES[name]
    bots = [Watcher(meddle=seat == 0) for seat in range(players)]
    result = play_local(bots, name, seed=31, options=None)
    assert result.game == name and result.seed == 31
    assert result.players == ["watcher"] + [f"watcher#{n}" for n in range(2, players + 1)]
    # Replaying the decisions shows each request was the real one at that point.
    state = info.new_state(players, 31)
    public: list[protocol.Event] = []
    asked = [iter(bot.requests) for bot in bots]
    for action in result.decisions:
        seat = state.to_act
        request = next(asked[seat])
        assert request.seat == seat and request.decision == len(state.history)
        if seat != 0:
            assert request.observation == state.observation(seat)
            assert request.actions == state.legal_actions()
        assert request.history == public
        public.append(protocol.Event(seat=seat, action=state.public_action(seat, action)))
        state.apply(action)
    assert all(next(requests, None) is None for requests in asked)
    assert state.result().scores == result.scores and state.result().ranks == result.ranks
    for seat, bot in enumerate(bots):
        assert [start.seat for start in bot.starts] == [seat]
        assert bot.starts[0].seed == bot_seed(31, seat)
        assert bot.ends == [GameEnd(result.scores, result.ranks, seat)]
        joined = [event for request in bot.requests for event in request.events]
        assert joined == bot.requests[-1].history
    assert len(result.slowest_ms) == players and all(ms >= 0 for ms in result.slowest_ms)


@pytest.mark.parametrize("name", list(GAMES))
def test_play_local_plays_the_same_game_as_the_referee_with_the_same_seeded_bots(name):
    random_bot = load_random_bot()
    local = play_local([random_bot.RandomBot(), random_bot.RandomBot()], name, seed=12)
    result = CliRunner().invoke(
        main,
        [
            "play",
            name,
            "--seed",
            "12",
            "--json",
            "--quiet",
            "--bot",
            RANDOM_BOT,
            "--bot",
            RANDOM_BOT,
        ],
    )
    assert result.exit_code == 0, result.output
    refereed = json.loads(result.output.strip().splitlines()[-1])
    assert refereed["violations"] == [None, None]
    assert refereed["decisions"] == local.decisions
    assert refereed["ranks"] == local.ranks and refereed["players"] == local.players


class Answer(Bot):
    def __init__(self, answer: object) -> None:
        self.answer = answer

    def choose(self, request: Request) -> int:
        return self.answer  # type: ignore[return-value]


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (99, "answered decision 0 with index 99, outside 0.."),
        (-1, "with index -1, outside"),
        (True, "with True, not an index"),
        ("0", "with '0', not an index"),
        (None, "with None, not an index"),
    ],
)
@pytest.mark.parametrize("game", ["mountain-goats", "goat-n-goat"])  # (hides nothing, hides)
def test_play_local_refuses_an_answer_that_is_not_a_legal_index(answer, message, game):
    with pytest.raises(LocalPlayError, match=message):
        play_local([Answer(answer), Answer(0)], game, seed=1)


def test_play_local_needs_one_bot_object_per_seat_and_a_valid_player_count():
    bot = Answer(0)
    with pytest.raises(ValueError, match="its own bot object"):
        play_local([bot, bot], "mountain-goats", seed=1)
    with pytest.raises(ConfigError, match="2 to 4 players, not 1"):
        play_local([Answer(0)], "mountain-goats", seed=1)


def test_a_seeded_bot_reseeds_per_game_unless_given_a_fixed_seed():
    from goatarena.sdk import SeededBot

    def draws(bot: SeededBot, game_seed: int) -> list[int]:
        bot.start(
            GameStart("goat-lords", 0, ["a", "b"], {"rounds": 1}, protocol.TimeInfo(100), game_seed)
        )
        return [bot.rng.randrange(1000) for _ in range(5)]

    bot = SeededBot()
    assert draws(bot, 11) == draws(bot, 11) != draws(bot, 12)
    assert bot.game == "goat-lords" and bot.options == {"rounds": 1}
    fixed = SeededBot(seed=3)
    assert draws(fixed, 11) != draws(fixed, 11)  # one generator runs on across games
    assert draws(SeededBot(seed=3), 11) == draws(SeededBot(seed=3), 99)


def test_play_local_makes_only_the_parts_of_a_request_a_bot_reads(monkeypatch):
    """A random bot reads the number of actions alone: no observation, no JSON copy."""
    from goatarena.bots.random_bot import RandomBot
    from goatarena.games.mountain_goats import MountainGoatsState
    from goatarena.sdk import _local_request

    def refuse(*_args):
        raise AssertionError("made a part no bot read")

    monkeypatch.setattr(MountainGoatsState, "observation", refuse)
    monkeypatch.setattr(_local_request, "as_sent", refuse)
    result = play_local([RandomBot(), RandomBot()], "mountain-goats", seed=5)
    assert len(result.decisions) > 20


class Forgetful(Bot):
    """Reads nothing while choosing; keeps only every third request, read after the game."""

    name = "forgetful"

    def __init__(self) -> None:
        self.kept: list[tuple[int, Request]] = []

    def choose(self, request: Request) -> int:
        if request.decision % 3 == 0:
            self.kept.append((request.decision, request))
        return request.action_count - 1


def test_a_request_kept_past_its_answer_still_shows_its_own_decision():
    bots = [Forgetful(), Forgetful()]
    result = play_local(bots, "goat-n-goat", seed=8)
    state = GAMES["goat-n-goat"].new_state(2, 8)
    kept = dict(pair for bot in bots for pair in bot.kept)
    for decision, action in enumerate(result.decisions):
        if decision in kept:
            request = kept[decision]
            assert request.observation == state.observation(state.to_act)
            assert request.actions == state.legal_actions()
            assert len(request.history) == decision
            assert request.action_count == len(state.legal_actions())
        state.apply(action)
    assert len(kept) > 10
    request = next(iter(kept.values()))
    assert dataclasses.replace(request, actions=[1, 2]).action_count == 2
