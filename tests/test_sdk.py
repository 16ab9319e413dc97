"""The Python SDK's loop, driven in process through byte streams."""

from __future__ import annotations

import io

from goatarena import protocol
from goatarena.sdk import Bot, GameEnd, GameStart, Request, serve


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
