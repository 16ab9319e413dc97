"""Bots' stderr logs in a tournament: one cap per bot across restarts, game markers."""

from __future__ import annotations

import re

import msgspec
import trio

from goatarena.competition.access import game_part
from goatarena.formats.competition import CompetitionSettings
from goatarena.formats.config import GAMES_PER_LOG
from goatarena.formats.schedule import match_id
from goatarena.formats.tournament_file import load_config
from goatarena.referee.stderr_log import CUT_LINE, StderrLog
from goatarena.running.forwarded_log import DriverLogs, ForwardedLog, LogEvent
from goatarena.running.runner import Runner
from goatarena.store.opening import open_store
from tests.helpers import RANDOM_BOT, python_bot
from tests.test_tournament import write_config

# Writes 40 KiB to stderr at its first request, then exits: a crash every game.
SPILL_AND_EXIT = python_bot(
    "import json, sys\n"
    "for line in sys.stdin:\n"
    "    m = json.loads(line)\n"
    "    if m['type'] == 'hello':\n"
    "        print(json.dumps({'type': 'hello', 'name': 'spill'}), flush=True)\n"
    "    elif m['type'] == 'decide':\n"
    "        sys.stderr.write('s' * 40960); sys.stderr.flush(); sys.exit(1)\n"
)

# Says on stderr which game (the opaque match id it was told in ``start``) it decides in,
# then answers.
CHATTY = python_bot(
    "import json, sys\n"
    "for line in sys.stdin:\n"
    "    m = json.loads(line)\n"
    "    if m['type'] == 'hello':\n"
    "        print(json.dumps({'type': 'hello', 'name': 'chatty'}), flush=True)\n"
    "    elif m['type'] == 'start':\n"
    "        game = m['match']\n"
    "    elif m['type'] == 'decide':\n"
    "        print('deciding in', game, file=sys.stderr, flush=True)\n"
    "        print(json.dumps({'type': 'action', 'index': 0}), flush=True)\n"
    "    elif m['type'] == 'quit':\n"
    "        break\n"
)


def run_with_logs(tmp_path, bots, extra: str = "deals = 3"):
    config = load_config(write_config(tmp_path / "t.toml", bots=bots, extra=extra))
    store = open_store(tmp_path / "t.sqlite")
    logs = tmp_path / "logs"
    logs.mkdir()
    runner = Runner(config, store, log_dir=logs)
    trio.run(runner.run)
    keys = store.finished_keys()
    store.close()
    return logs, keys


def test_a_bot_restarted_after_every_crash_gets_one_cap_for_the_whole_tournament(tmp_path):
    logs, keys = run_with_logs(
        tmp_path, {"spill": SPILL_AND_EXIT, "other": RANDOM_BOT}, extra="deals = 4\nlog_kb = 64"
    )
    assert len(keys) == 8  # 8 processes of spill, 40 KiB each: 320 KiB written in all
    log = (logs / "spill.log").read_bytes()
    assert log.endswith(CUT_LINE) and log.count(CUT_LINE) == 1
    assert len(log) == (64 << 10) + len(CUT_LINE)


def test_interleaved_games_of_one_bot_are_marked_with_game_and_seat(tmp_path):
    bots = {"chatty": CHATTY, "alpha": RANDOM_BOT, "beta": RANDOM_BOT}
    logs, keys = run_with_logs(tmp_path, bots)
    text = (logs / "chatty.log").read_text()
    store = open_store(tmp_path / "t.sqlite")
    secret = store.deal_secret()
    store.close()
    markers = re.findall(r"^\[goatarena: game (\S+), seat (\d), pid (\d+)\]$", text, re.M)
    chatty_games = {key for key in keys if "chatty" in key.split("/")[1]}
    assert {key for key, _, _ in markers} == chatty_games
    # Every line the bot wrote comes after the marker of the game it was written in.
    current = None
    for line in text.splitlines():
        if line.startswith("[goatarena: game"):
            current = line.split()[2].rstrip(",")
        else:
            assert current is not None
            assert line == f"deciding in {match_id(current, secret)}"


def test_markers_count_towards_the_cap_and_a_silent_bot_leaves_an_empty_log(tmp_path):
    log = StderrLog(tmp_path / "b.log", cap_bytes=100)
    log.attach()
    for game in range(50):
        log.mark_game(7, f"game g{game}, seat 0")  # no output: no marker
    assert (tmp_path / "b.log").read_bytes() == b""
    for game in range(10):
        log.mark_game(7, f"game g{game}, seat 0")
        log.write(7, b"x\n")
    log.detach(7)
    data = (tmp_path / "b.log").read_bytes()
    assert len(data) == 100 + len(CUT_LINE) and data.endswith(CUT_LINE)
    assert data.startswith(b"[goatarena: game g0, seat 0, pid 7]\nx\n")


def test_a_log_capped_per_game_rotates_and_a_referee_process_forwards_a_games_worth(tmp_path):
    events: list[LogEvent] = []
    forwarded = ForwardedLog("b", cap_bytes=1000, send=events.append, game_cap_bytes=100)
    driver = DriverLogs(tmp_path, cap_bytes=1000, game_cap_bytes=100)
    forwarded.attach()
    for game in range(30):
        forwarded.mark_game(7, f"game g{game}, seat 0")
        for _ in range(50):
            forwarded.write(7, b"line of g%d\n" % game)
    forwarded.detach(7)
    sent = sum(len(event.data) for event in events)
    assert sent == 30 * 100  # each game's worth, never the whole flood
    for event in events:
        driver.apply(event)
    older, current = (tmp_path / "b.log.1").read_text(), (tmp_path / "b.log").read_text()
    assert len(older) <= 1000 + 200 and len(current) <= 1000 + 200
    assert "g0" not in older + current  # rotated away
    for game in range(25, 30):  # the recent games are whole, each ending with the cut line
        part = game_part(older + current, f"g{game}")
        assert part.count(f"line of g{game}\n") == 100 // len(f"line of g{game}\n")
        assert part.endswith("this game's log truncated]\n")


def test_only_a_competitions_logs_are_capped_per_game(tmp_path):
    plain = load_config(write_config(tmp_path / "t.toml", bots={"a": RANDOM_BOT, "b": RANDOM_BOT}))
    assert plain.limits.stderr_game_bytes == 0
    ladder = msgspec.structs.replace(plain, competition=CompetitionSettings())
    assert ladder.limits.stderr_game_bytes == ladder.limits.stderr_log_bytes // GAMES_PER_LOG > 0
