import msgspec
import pytest

from goatarena import protocol


def test_messages_round_trip_through_json_lines():
    decide = protocol.Decide(
        decision=3,
        observation={"seat": 1, "dice": [1, 2, 3, 4]},
        actions=[{"move": [5]}, {"move": []}],
        time_ms=250,
        events=[protocol.Event(seat=0, action={"move": [6]})],
    )
    line = protocol.encode(decide)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert protocol.parse_referee_message(line[:-1]) == decide


def test_bot_replies_by_index_or_by_value_and_unknown_fields_are_ignored():
    reply = protocol.parse_bot_message(b'{"type":"action","index":2,"comment":"hi"}')
    assert reply == protocol.Action(index=2)
    reply = protocol.parse_bot_message(b'{"type":"action","action":{"move":[5]}}')
    assert reply == protocol.Action(action=msgspec.Raw(b'{"move":[5]}')) and reply.has_value
    hello = protocol.parse_bot_message(b'{"type":"hello","name":"x","version":"9"}')
    assert hello == protocol.BotHello(name="x")


@pytest.mark.parametrize(
    "line",
    [b"not json", b"[1,2]", b'{"type":"bogus"}', b'{"type":"action","index":"two"}', b"{}"],
)
def test_bad_bot_lines_are_rejected(line):
    with pytest.raises(msgspec.DecodeError):
        protocol.parse_bot_message(line)


def test_unknown_referee_message_types_are_skipped_by_bots():
    assert protocol.parse_referee_message(b'{"type":"ping","extra":1}') is None
    with pytest.raises(msgspec.ValidationError):
        protocol.parse_referee_message(b'{"type":"decide"}')


def test_line_buffer_splits_lines_across_chunks():
    buffer = protocol.LineBuffer(max_bytes=100)
    buffer.feed(b'{"a":1}\n{"b"')
    assert buffer.next_line() == b'{"a":1}'
    assert buffer.next_line() is None
    buffer.feed(b":2}\n\n")
    assert buffer.next_line() == b'{"b":2}'
    assert buffer.next_line() == b""
    assert buffer.pending == 0


def test_line_buffer_refuses_an_overlong_line_with_or_without_newline():
    buffer = protocol.LineBuffer(max_bytes=10)
    buffer.feed(b"x" * 11)
    with pytest.raises(protocol.LineTooLong):
        buffer.next_line()
    buffer = protocol.LineBuffer(max_bytes=10)
    buffer.feed(b"y" * 20 + b"\n")
    with pytest.raises(protocol.LineTooLong):
        buffer.next_line()
    buffer = protocol.LineBuffer(max_bytes=10)
    buffer.feed(b"z" * 10 + b"\n")
    assert buffer.next_line() == b"z" * 10


def test_line_buffer_takes_a_chunk_that_is_one_line_whole_and_keeps_the_cap():
    buffer = protocol.LineBuffer(max_bytes=10)
    assert buffer.take(b"z" * 10 + b"\n") == b"z" * 10
    assert buffer.take(b"\n") == b""
    with pytest.raises(protocol.LineTooLong):
        buffer.take(b"y" * 11 + b"\n")
    buffer = protocol.LineBuffer(max_bytes=10)
    assert buffer.take(b'{"a"') is None  # a part waits for the rest, which is added
    assert buffer.take(b":1}\n") == b'{"a":1}'
    assert buffer.take(b"1\n2\n") == b"1" and buffer.next_line() == b"2"
    assert buffer.pending == 0


def test_bot_seeds_are_stable_per_game_and_seat_and_differ_between_seats():
    seeds = [protocol.bot_seed(7, seat) for seat in range(6)]
    assert seeds == [protocol.bot_seed(7, seat) for seat in range(6)]
    assert len(set(seeds)) == 6 and all(0 <= seed < 2**32 for seed in seeds)
    assert protocol.bot_seed(8, 0) != seeds[0]


def test_repeated_player_names_are_numbered():
    assert protocol.unique_names(["random", "random", "x", "random", ""]) == [
        "random",
        "random#2",
        "x",
        "random#3",
        "bot",
    ]
