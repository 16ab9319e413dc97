"""Hostile bytes from a bot: every attack ends as a recorded violation of the attacker,
at a cost to the referee bounded by the line's length, and the honest seat loses nothing."""

from __future__ import annotations

import shlex
import subprocess
import sys

import msgspec
import pytest
import trio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goatarena import protocol
from goatarena.bench.isolation import EXPENSIVE_REPLY, worst_beside_hostile
from goatarena.games import find_game
from goatarena.referee import BotViolation, Cause, TimeControl, choose_index, play_match
from tests.helpers import RANDOM_BOT, ROOT, FakeBot, group_is_gone
from tests.test_misbehaviour import play

HOSTILE = ROOT / "tests" / "bots" / "hostile_lines.py"


def hostile(attack: str) -> str:
    """The command of the hostile test bot making ``attack``."""
    return f"{shlex.quote(sys.executable)} {HOSTILE} {attack}"


@pytest.mark.parametrize(
    ("attack", "cause", "detail"),
    [
        ("deep", "malformed", f"a line longer than {protocol.MAX_LINE_BYTES} bytes"),
        ("deep-object", "malformed", "more than 1024 brackets"),
        ("deep-1000", "malformed", "nested more than 64 deep"),
        ("floats", "malformed", f"a line longer than {protocol.MAX_LINE_BYTES} bytes"),
        ("floats-60k", "illegal", "is not among the legal actions"),
        ("nan", "malformed", "JSON is malformed"),
        ("utf8", "malformed", "invalid UTF-8 at byte 12"),
        ("utf8-unknown", "malformed", "invalid UTF-8 at byte 38"),
        ("utf8-value", "malformed", "invalid UTF-8 at byte 27"),
        ("name-utf8", "malformed", "invalid UTF-8 at byte 24"),
        ("bigint", "illegal", "index 9999"),
        ("bigint-value", "illegal", "is not among the legal actions"),
        ("nul", "malformed", "trailing characters"),
        ("duplicate-keys", "illegal", "index 99999 is outside"),
        ("negative-index", "illegal", "index -1 is outside"),
    ],
)
def test_each_attack_is_the_attackers_violation_and_the_honest_seat_loses_nothing(
    attack, cause, detail
):
    played = play([hostile(attack), RANDOM_BOT])
    violation = played.violation
    assert violation is not None and violation.cause == cause
    assert detail in violation.detail and len(violation.detail) < 200
    assert played.result.all_violations[1] == [] and played.result.ranks[1] == 1
    assert played.elapsed_s < 5.0  # no hang: the attack ends the game at once
    assert group_is_gone(played.pids[0])


@pytest.mark.parametrize("attack", ["name-newline", "name-separator"])
def test_a_name_with_control_characters_is_printed_on_one_line(attack):
    played = play([hostile(attack), RANDOM_BOT])
    name = played.result.players[0]
    assert name.startswith("evil") and "result: evil wins" in name
    assert all(char.isprintable() for char in name)
    assert not any(char in name for char in "\u2028\u2029\x85")
    assert played.result.violations == [None, None]


def test_line_and_paragraph_separators_are_cut_with_the_controls():
    text = "a\u2028b\u2029c\x85d\u202ee\u200bf"
    assert protocol.printable(text) == "abcdef"
    assert text.splitlines() != [protocol.printable(text)] == protocol.printable(text).splitlines()


def test_play_from_the_command_line_records_an_attack_and_exits_0():
    completed = subprocess.run(
        [sys.executable, "-m", "goatarena", "play", "mountain-goats", "--seed", "3"]
        + ["--bot", hostile("deep"), "--bot", hostile("name-separator"), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert "Traceback" not in completed.stderr
    result = msgspec.json.decode(completed.stdout.splitlines()[-1])
    assert result["violations"][0]["cause"] == "malformed"
    assert result["violations"][1] is None
    # The forged line of the second bot's name never starts a line of its own, even for a
    # reader that splits lines at U+2028 and U+2029 as Python does.
    assert not any(line.startswith("result: evil") for line in completed.stdout.splitlines())
    assert "\u2028" not in completed.stdout and "\\u2028" not in completed.stdout


def test_an_expensive_action_value_is_judged_without_being_decoded(monkeypatch):
    """60 KiB of 1e300 floats as an action value (0.3 s to decode) is illegal at once:
    a value far longer than any legal action is never handed to the decoder."""
    reply = protocol.decode_reply(EXPENSIVE_REPLY[:-1])
    assert isinstance(reply, protocol.Action) and len(reply.action) > 60_000
    decoded: list[int] = []
    real_decode = msgspec.json.decode
    monkeypatch.setattr(
        msgspec.json, "decode", lambda data, **kw: decoded.append(len(data)) or real_decode(data)
    )
    actions = [{"move": [5, 5, 5, 6], "groups": [[5], [5], [5], [6]]}, {"move": []}]
    with pytest.raises(BotViolation) as caught:
        choose_index(reply, actions)
    assert caught.value.cause == Cause.ILLEGAL and decoded == []
    assert choose_index(protocol.Action(action=msgspec.Raw(b'{"move": []}')), actions) == 1
    assert decoded == [len(b'{"move": []}')]


@pytest.mark.parametrize(
    "line",
    [
        b'{"type":"a\\nresult: forged\\u001b[2J"}',
        b'{"type":"action","index":"x\\ny"}',
        b'{"type":"hello","name":5,"\\u202e":1}',
    ],
)
def test_a_malformed_detail_is_one_printable_line(line):
    with pytest.raises(protocol.MalformedLine) as caught:
        protocol.decode_reply(line)
    assert str(caught.value).isprintable() and len(str(caught.value)) < 300


def test_an_action_value_is_compared_by_value_whatever_its_spacing():
    actions = [{"move": [5, 5, 5, 6], "groups": [[5], [5], [5], [6]]}, {"move": []}]
    line = b'{"type":"action","action":{ "groups" : [[5],[5],[5],[6]], "move": [5,5,5,6] }}'
    reply = protocol.decode_reply(line)
    assert isinstance(reply, protocol.Action) and choose_index(reply, actions) == 0


@pytest.mark.parametrize(
    ("depth", "refused"),
    [(protocol.MAX_DEPTH, False), (protocol.MAX_DEPTH + 1, True), (5000, True)],
)
def test_nesting_is_capped(depth, refused):
    inner = depth - 1  # the message's object is the first level
    line = b'{"type":"action","index":0,"x":' + b"[" * inner + b"]" * inner + b"}"
    if refused:
        with pytest.raises(protocol.MalformedLine):
            protocol.decode_reply(line)
    else:
        assert protocol.decode_reply(line) == protocol.Action(index=0)


def test_the_nesting_cap_is_a_bot_limit():
    line = b'{"type":"action","index":0,"x":[[[1]]]}'
    assert protocol.decode_reply(line, max_depth=4) == protocol.Action(index=0)
    with pytest.raises(protocol.MalformedLine, match="nested more than 3 deep"):
        protocol.decode_reply(line, max_depth=3)


def test_a_game_beside_a_hostile_one_keeps_its_time():
    """Two games in one event loop; one against a bot whose every answer is an expensive
    line. The other's slowest decision stays within its move time (on a decoder that
    parses the line, each costs ~0.3 s of the loop and the honest game loses on time)."""
    move_ms = 150
    worst, result = trio.run(lambda: worst_beside_hostile(RANDOM_BOT, move_ms=move_ms))
    assert result.violations == [None, None]
    assert worst < move_ms


def _fuzz_answer(line: bytes):
    return lambda request: (0.0, line + b"\n")


class _DecodingFake(FakeBot):
    """A fake bot whose lines go through the referee's real decoding boundary."""

    async def receive(self) -> protocol.BotHello | protocol.Action:
        if not self._pipe:
            await trio.sleep_forever()
        written_at, line = self._pipe.pop(0)
        await trio.sleep_until(written_at)
        try:
            return protocol.decode_reply(line.rstrip(b"\n"))
        except protocol.MalformedLine as error:
            raise BotViolation(Cause.MALFORMED, str(error)) from None


_JSONISH = st.one_of(
    st.binary(max_size=300),
    st.lists(
        st.sampled_from(
            [b"[", b"]", b"{", b"}", b'"', b",", b":", b"1e300", b"NaN", b"-", b"9" * 40]
            + [b'"type"', b'"action"', b'"index"', b'"decision"', b"null", b"\\", b"\xff"]
        ),
        max_size=200,
    ).map(lambda parts: b'{"type":"action",' + b"".join(parts)),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(line=_JSONISH)
def test_fuzz_any_reply_line_ends_as_a_recorded_outcome(line):
    """Random lines in place of a reply: the game ends, within the deadline, with the
    line accepted or recorded as the seat's violation; never an exception."""
    line = line.replace(b"\n", b" ")
    info = find_game("mountain-goats")
    bots = [
        _DecodingFake("fuzz", _fuzz_answer(line)),
        _DecodingFake("honest", _fuzz_answer(b'{"type":"action","index":0}')),
    ]
    control = TimeControl(move_ms=1000, margin_ms=0)

    async def main():
        with trio.fail_after(5):
            return await play_match(info, bots, seed=1, time_control=control)

    result = trio.run(main)
    assert result.all_violations[1] == []
    allowed = {"malformed", "illegal"}
    if _names_another_decision(line):
        # A well-formed reply to a decision never asked is discarded as stale, by design;
        # the seat, with nothing more to say, then runs out of time: also an outcome.
        allowed.add("timeout")
    for violation in result.all_violations[0]:
        assert violation.cause in allowed


def _names_another_decision(line: bytes) -> bool:
    """Whether ``line`` is a valid action reply echoing a decision other than the first."""
    try:
        reply = protocol.decode_reply(line)
    except protocol.MalformedLine:
        return False
    return isinstance(reply, protocol.Action) and reply.decision not in (None, 0)


@settings(max_examples=200, deadline=None)
@given(
    stream=st.binary(max_size=400).map(lambda data: data.replace(b"\x00", b"\n")),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=12),
    taking=st.booleans(),
)
def test_fuzz_the_line_buffer_returns_exactly_the_lines_under_its_cap(stream, cuts, taking):
    """However the bytes arrive, the buffer returns each complete line under the cap
    whole and in order, and refuses the first longer one: fed chunk by chunk, or with
    each chunk taken (its quick path for a chunk that is one whole line)."""
    cap = 40
    buffer = protocol.LineBuffer(max_bytes=cap)
    got: list[bytes] = []
    refused = False
    edges = sorted({0, len(stream), *(cut for cut in cuts if cut < len(stream))})
    try:
        for start, end in zip(edges, edges[1:]):
            if taking:
                line = buffer.take(stream[start:end])
            else:
                buffer.feed(stream[start:end])
                line = buffer.next_line()
            while line is not None:
                got.append(line)
                line = buffer.next_line()
    except protocol.LineTooLong:
        refused = True
    complete = stream.split(b"\n")[:-1]
    expected = []
    for line in complete:
        if len(line) > cap:
            break
        expected.append(line)
    assert got == expected
    too_long = any(len(line) > cap for line in complete) or len(stream.split(b"\n")[-1]) > cap
    assert refused == too_long
