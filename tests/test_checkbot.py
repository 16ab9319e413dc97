"""``goatarena check-bot``: it passes the example bots and fails every kind of misbehaviour."""

from __future__ import annotations

import sys

import msgspec
import pytest
import trio
from click.testing import CliRunner

from goatarena import protocol
from goatarena.checkbot import UNKNOWN, CheckSettings, check_bot, check_names
from goatarena.checkbot._session import _with_unknown_fields
from goatarena.cli import main
from goatarena.games import GAMES
from tests.example_bots import HAVE_NODE, JS_BOT, PYTHON_BOT, SHELL_BOT, STRICT_BOT
from tests.helpers import ROOT, misbehaving, python_bot

OTHER_CHECKS = ["start-up", "unknown messages", "several games", "quit", "stdin closed", "stdout"]
PRINTING = ROOT / "tests" / "bots" / "printing.py"


def check(*args: str):
    """Run check-bot; its exit code and report lines by check name."""
    result = CliRunner().invoke(main, ["check-bot", *args])
    rows = {}
    for line in result.output.splitlines():
        verdict, _, rest = line.partition("  ")
        if verdict in ("PASS", "FAIL"):
            name, _, detail = rest.strip().partition("  ")
            rows[name.strip()] = (verdict, detail.strip())
    return result, rows


@pytest.mark.parametrize(
    "bot",
    [
        PYTHON_BOT,
        pytest.param(JS_BOT, marks=pytest.mark.skipif(not HAVE_NODE, reason="no node")),
        SHELL_BOT,
    ],
    ids=["python", "javascript", "shell"],
)
def test_the_example_bots_pass_every_check_of_every_game(bot):
    result, rows = check(bot, "--games", "3")
    assert result.exit_code == 0, result.output
    assert set(rows) == {*GAMES, *OTHER_CHECKS}
    assert all(verdict == "PASS" for verdict, _ in rows.values()), result.output
    for name in GAMES:
        assert rows[name][1].startswith("3 games")
    assert rows["several games"][1] == f"played {3 * len(GAMES) + 1} games in one process"
    assert result.output.strip().endswith(f"all {len(GAMES) + 6} checks passed")


@pytest.mark.parametrize(("script", "options"), [("greedy_bot.py", ""), ("mcts_bot.py", "--ms 10")])
def test_the_strong_bots_pass_every_check_of_every_game(script, options):
    command = f"{sys.executable} {ROOT / 'bots' / 'python' / script} {options}"
    result, rows = check(command, "--games", "1")
    assert result.exit_code == 0, result.output
    assert set(rows) == {*GAMES, *OTHER_CHECKS}
    assert all(verdict == "PASS" for verdict, _ in rows.values()), result.output


@pytest.mark.parametrize(
    ("mode", "after", "expected"),
    [
        ("hang", 3, "timeout: no answer within 300 ms"),
        ("exit", 2, "crash: exited with code 3: giving up"),
        ("garbage", 1, "malformed: "),
        ("wrong-type", 2, "malformed: expected an action, got a hello"),
        ("bad-index", 2, "illegal: index "),
    ],
)
def test_a_bot_that_misbehaves_mid_game_fails_and_the_report_says_where(mode, after, expected):
    result, rows = check(
        misbehaving(mode, after), "--game", "mountain-goats", "--games", "2", "--move-ms", "300"
    )
    assert result.exit_code == 1
    assert rows["start-up"][0] == "PASS"
    verdict, detail = rows["mountain-goats"]
    assert verdict == "FAIL"
    # The first game, 2 players, the bot in seat 1: its third answer is decision 5.
    assert detail.startswith("game 1 of 2 (2 players, seat 1, seed ")
    assert f"decision {2 * after + 1}: {expected}" in detail
    assert rows["several games"][0] == "FAIL"
    assert result.output.strip().endswith("checks failed")


def test_a_bot_that_chokes_on_unknown_messages_fails_that_check_only():
    result, rows = check(STRICT_BOT, "--games", "2")
    assert result.exit_code == 1
    verdict, detail = rows[UNKNOWN]
    assert verdict == "FAIL"
    assert "crash: exited with code 1: strict: unknown message type 'x-notice'" in detail
    others = {name: row for name, row in rows.items() if name != UNKNOWN}
    assert all(verdict == "PASS" for verdict, _ in others.values()), result.output
    assert "fresh process" in rows[next(iter(GAMES))][1]


def test_a_bot_that_searches_lines_for_a_type_answers_an_unknown_message_and_fails():
    # It finds "type":"decide" nested inside the unknown message and answers it, so every
    # later answer is one behind and the last one arrives after the game.
    naive = python_bot(
        "import sys\n"
        "for line in sys.stdin:\n"
        '    if \'"type":"hello"\' in line: print(\'{"type":"hello","name":"naive"}\', flush=True)\n'
        '    elif \'"type":"decide"\' in line: print(\'{"type":"action","index":0}\', flush=True)\n'
    )
    result, rows = check(naive, "--game", "mountain-goats", "--games", "2")
    assert result.exit_code == 1
    assert rows[UNKNOWN][0] == "FAIL"
    assert "the bot wrote a line nobody asked for" in rows[UNKNOWN][1]
    assert rows["mountain-goats"][0] == "PASS"


def test_a_bot_that_ignores_quit_and_end_of_input_fails_those_checks():
    stubborn = python_bot(
        "import json, sys, time\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'hello': print(json.dumps({'type': 'hello', 'name': 'stubborn'}), flush=True)\n"
        "    elif m['type'] == 'decide': print(json.dumps({'type': 'action', 'index': 0}), flush=True)\n"
        "time.sleep(60)\n"
    )
    result, rows = check(stubborn, "--game", "mountain-goats", "--games", "1")
    assert result.exit_code == 1
    assert rows["mountain-goats"][0] == "PASS"
    assert rows["quit"] == ("FAIL", "still running 1000 ms after quit")
    assert rows["stdin closed"] == ("FAIL", "still running 1000 ms after its input closed mid-game")


def test_a_bot_whose_prints_reach_stdout_fails_the_stdout_check_saying_what_to_do():
    """Its prints wait in Python's 8 KB buffer: in one short game they never reach an
    answer, and come out only as it exits; over more games they land inside answers."""
    printer = f"{sys.executable} {PRINTING} raw"
    result, rows = check(printer, "--game", "mountain-goats", "--games", "1")
    assert result.exit_code == 1
    assert rows["mountain-goats"][0] == "PASS" and rows["quit"][0] == "PASS"
    verdict, detail = rows["stdout"]
    assert verdict == "FAIL"
    assert detail.startswith("the bot's prints reach its stdout ('debug: decision ")
    assert "after quit" in detail and "print to stderr" in detail
    assert len(result.output.splitlines()[-2]) < 400  # one line

    result, rows = check(printer, "--game", "goat-lords", "--games", "3")
    assert result.exit_code == 1 and rows["stdout"][0] == "FAIL"
    verdict, detail = rows["goat-lords"]
    assert verdict == "FAIL" and "is no message: a print on stdout?" in detail
    assert "in place of an answer" in rows["stdout"][1]


def test_a_banner_on_stdout_before_the_hello_is_named_as_a_print():
    banner = python_bot(
        "import sys\nprint('my bot, version 1', flush=True)\n"
        "for line in sys.stdin:\n"
        '    print(\'{"type":"hello","name":"banner"}\', flush=True)\n'
    )
    result, rows = check(banner, "--game", "mountain-goats", "--games", "1")
    assert result.exit_code == 1
    assert rows["start-up"] == (
        "FAIL",
        "the bot printed 'my bot, version 1' on stdout before its hello: print to stderr,"
        " the bot's log, instead (Python: goatarena.sdk's run() sends print() there, or"
        " print(..., file=sys.stderr); a kit: its README's Printing section)",
    )


def test_a_bot_that_prints_under_the_sdk_passes_the_stdout_check():
    result, rows = check(f"{sys.executable} {PRINTING} sdk", "--game", "goat-lords", "--games", "3")
    assert result.exit_code == 0, result.output
    verdict, detail = rows["stdout"]
    assert verdict == "PASS" and detail.startswith("nothing but answers in ")


def test_an_answer_naming_another_decision_fails():
    off_by_one = python_bot(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'hello': print(json.dumps({'type': 'hello', 'name': 'off'}), flush=True)\n"
        "    elif m['type'] == 'decide': print(json.dumps({'type': 'action', 'index': 0, 'decision': m['decision'] + 1}), flush=True)\n"
        "    elif m['type'] == 'quit': break\n"
    )
    result, rows = check(off_by_one, "--game", "mountain-goats", "--games", "1")
    assert result.exit_code == 1
    assert "decision 1: malformed: the answer names decision 2, not 1" in rows["mountain-goats"][1]


@pytest.mark.parametrize(
    ("bot", "expected"),
    [
        (misbehaving("no-hello"), "crash: exited with code 4"),
        ("/no/such/bot", "cannot start bot '/no/such/bot': file not found"),
        ("nosuchprog-goatarena", "'nosuchprog-goatarena': program not found on PATH"),
        (python_bot("import time; time.sleep(30)"), "no hello within 1500 ms"),
        # A deaf bot (as mawk is without -W interactive) is told about buffering.
        (python_bot("import sys; sys.stdin.read()"), "buffers its input or output"),
        (
            python_bot('print(\'{"type":"hello","name":""}\', flush=True); input()'),
            "the hello gives an empty name",
        ),
    ],
)
def test_a_bot_that_does_not_start_fails_start_up_and_nothing_else_runs(bot, expected):
    # Long enough for an interpreter to start in its sandbox on a busy machine.
    result, rows = check(bot, "--startup-ms", "1500", "--game", "mountain-goats")
    assert result.exit_code == 1
    assert rows["start-up"][0] == "FAIL" and expected in rows["start-up"][1]
    assert "the sandbox" not in rows["start-up"][1]  # none of these is the sandbox's doing
    assert all(
        row == ("FAIL", "not run: the bot did not start")
        for name, row in rows.items()
        if name != "start-up"
    )


def test_an_unknown_game_is_a_usage_error():
    result, _ = check(PYTHON_BOT, "--game", "chess")
    assert result.exit_code == 2
    assert "unknown game 'chess'" in result.output


def test_the_checks_cover_every_registered_game_in_order():
    settings = CheckSettings(games=1)
    results = trio.run(check_bot, PYTHON_BOT, settings)
    assert [result.check for result in results] == check_names(settings)
    assert check_names(settings)[2:-4] == list(GAMES)
    assert all(result.passed for result in results)


def test_probe_messages_carry_unknown_fields_yet_stay_valid_with_type_first():
    decide = protocol.Decide(
        decision=3,
        observation={"seat": 1},
        actions=[0, 1],
        time_ms=100,
        events=[protocol.Event(seat=0, action="x")],
    )
    line = _with_unknown_fields(decide, probe=True)
    assert line.startswith(b'{"type":"decide","x_future":{')
    assert line.endswith(b"\n")
    fields = msgspec.json.decode(line)
    assert {"x_future", "x_more"} <= set(fields)
    assert fields["events"][0]["x_seen"] is True
    assert protocol.parse_referee_message(line) == decide
    assert _with_unknown_fields(decide, probe=False) == protocol.encode(decide)


def test_a_bot_that_plays_only_one_game_per_process_fails_several_games():
    one_game = python_bot(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'hello': print(json.dumps({'type': 'hello', 'name': 'once'}), flush=True)\n"
        "    elif m['type'] == 'decide': print(json.dumps({'type': 'action', 'index': 0}), flush=True)\n"
        "    elif m['type'] in ('end', 'quit'): break\n"
    )
    result, rows = check(one_game, "--game", "mountain-goats", "--games", "2")
    assert result.exit_code == 1
    assert rows[UNKNOWN][0] == "PASS"
    verdict, detail = rows["mountain-goats"]
    assert verdict == "FAIL" and detail.startswith("game 2 of 2 (3 players, seat 2, ")
    assert "crash: exited with code 0" in detail
    verdict, detail = rows["several games"]
    assert verdict == "FAIL"
    assert detail.startswith("mountain-goats game 2 in one process (2 players, seat 0, seed ")
    assert "crash: exited with code 0" in detail


def test_a_failure_is_found_at_the_same_place_with_or_without_game_and_earlier_failures():
    crashing = misbehaving("exit", 4)
    _, everything = check(crashing, "--games", "2", "--seed", "5")
    _, alone = check(crashing, "--games", "2", "--seed", "5", "--game", "herr-der-ziegen")
    _, again = check(crashing, "--games", "2", "--seed", "5", "--game", "herr-der-ziegen")
    assert everything["herr-der-ziegen"][0] == "FAIL"
    assert everything["herr-der-ziegen"][1] == alone["herr-der-ziegen"][1]
    failures = {name: row for name, row in alone.items() if row[0] == "FAIL"}
    assert failures == {name: row for name, row in again.items() if row[0] == "FAIL"}
    assert len(failures) == 3  # unknown messages, the game, several games
    _, other_seed = check(crashing, "--games", "2", "--seed", "6", "--game", "herr-der-ziegen")
    assert other_seed["herr-der-ziegen"][1] != alone["herr-der-ziegen"][1]


def test_log_dir_keeps_what_the_bot_writes_on_stderr(tmp_path):
    code = (
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'hello': print(json.dumps({'type': 'hello', 'name': 'talker'}), flush=True)\n"
        "    elif m['type'] == 'start': print('starting', m['game'], file=sys.stderr, flush=True)\n"
        "    elif m['type'] == 'decide': print(json.dumps({'type': 'action', 'index': 0}), flush=True)\n"
        "    elif m['type'] == 'quit': break\n"
    )
    logs = tmp_path / "logs"
    result = CliRunner().invoke(
        main,
        [
            "check-bot",
            "--game",
            "mountain-goats",
            "--games",
            "1",
            "--log-dir",
            str(logs),
            python_bot(code),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "starting mountain-goats" in (logs / "bot.log").read_text()
