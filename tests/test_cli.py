"""The command line through click's CliRunner."""

from __future__ import annotations

import json
import os
import socket
import sys
import time
import types

import pytest
from click.testing import CliRunner

from goatarena import entry
from goatarena.cli import main
from goatarena.running import cluster
from tests.helpers import RANDOM_BOT, misbehaving, python_bot


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def test_games_lists_every_game_with_player_counts():
    result = invoke("games")
    assert result.exit_code == 0
    assert "mountain-goats" in result.output and "2-4" in result.output


def test_the_games_table_stays_aligned_on_the_row_with_wide_characters():
    from goatarena.render.style import display_width

    lines = invoke("games").output.splitlines()
    # The column "players" starts at the same terminal column on every row, the one of
    # Goat 'n' Goat (やぎ山: three characters, six columns) too.
    starts = [display_width(line[: line.index("2-")]) for line in lines[2:]]
    assert len(starts) == 4 and len(set(starts)) == 1, lines
    assert display_width(lines[0][: lines[0].index("players")]) == starts[0]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_play_prints_a_complete_json_result_and_repeats_it_for_the_seed(players):
    args = ["play", "mountain-goats", "--seed", "7", "--json", *["--bot", RANDOM_BOT] * players]
    first = invoke(*args)
    second = invoke(*args)
    assert first.exit_code == 0, first.output
    outcome = json.loads(first.output.strip().splitlines()[-1])
    again = json.loads(second.output.strip().splitlines()[-1])
    for key in ("game", "seed", "players", "scores", "ranks", "violations", "decisions"):
        assert outcome[key] == again[key]
    assert outcome["game"] == "mountain-goats" and outcome["seed"] == 7
    assert len(outcome["players"]) == players and outcome["violations"] == [None] * players
    assert "score" in first.output  # the readable log comes first


def test_play_without_a_seed_deals_from_a_seed_no_table_of_32_bit_seeds_holds():
    # A bot that knows its hand could look its deal up among every 32-bit seed's deals.
    # (A random 63-bit seed is below 2**32 once in two billion runs.)
    args = ["play", "mountain-goats", "--json", "--quiet", "--bot", RANDOM_BOT, "--bot", RANDOM_BOT]
    seeds = [json.loads(invoke(*args).output.strip().splitlines()[-1])["seed"] for _ in range(2)]
    assert all(2**32 <= seed < 2**63 for seed in seeds), seeds
    assert seeds[0] != seeds[1]


def test_play_records_a_violation_in_the_json_result():
    result = invoke(
        "play",
        "mountain-goats",
        "--json",
        "--quiet",
        "--move-ms",
        "200",
        "--bot",
        misbehaving("garbage", 1),
        "--bot",
        RANDOM_BOT,
    )
    assert result.exit_code == 0
    outcome = json.loads(result.output.strip().splitlines()[-1])
    assert outcome["violations"][0]["cause"] == "malformed"
    assert outcome["violations"][1] is None
    assert outcome["ranks"] == [2, 1]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "chess", "--bot", "a", "--bot", "b"], "unknown game 'chess'"),
        (["play", "mountain-goats", "--bot", "a"], "2 to 4 players, not 1"),
        (["play", "mountain-goats", "--bot", "/no/such", "--bot", "/no/such"], "cannot start"),
    ],
)
def test_bad_input_is_one_clear_line_and_a_non_zero_exit(args, message):
    result = invoke(*args)
    assert result.exit_code != 0
    assert message in result.output
    assert "Traceback" not in result.output


def play_json(*args: str) -> tuple[dict, float, str]:
    """Run ``play --json --quiet``; the JSON result, the seconds it took, and the output."""
    started = time.monotonic()
    result = invoke("play", "mountain-goats", "--seed", "1", "--json", "--quiet", *args)
    elapsed = time.monotonic() - started
    assert result.exit_code == 0, result.output
    return json.loads(result.output.strip().splitlines()[-1]), elapsed, result.output


@pytest.mark.parametrize(
    ("bot", "options", "cause"),
    [
        (misbehaving("hang", 2), [], "timeout"),
        (misbehaving("hang-ignore-term", 2), [], "timeout"),
        (misbehaving("endless-line", 2), [], "malformed"),
        (misbehaving("no-read"), [], "timeout"),
        (misbehaving("orphan", 2), [], "crash"),
        # In its sandbox bubblewrap holds the pipe too, but no process of the bot's own
        # does: a crash as soon as the referee looks, as unsandboxed.
        (misbehaving("close-stdout", 2), [], "crash"),
        (misbehaving("close-stdout", 2), ["--sandbox", "none"], "crash"),
        (misbehaving("memory", 2), ["--memory-mb", "64", "--move-ms", "2000"], "crash"),
    ],
)
def test_play_against_a_misbehaving_bot_returns_promptly_with_the_cause(bot, options, cause):
    outcome, elapsed, _ = play_json("--move-ms", "200", *options, "--bot", bot, "--bot", RANDOM_BOT)
    assert outcome["violations"][0]["cause"] == cause
    assert outcome["violations"][1] is None
    assert outcome["ranks"] == [2, 1]
    assert elapsed < 3


def test_play_policy_options_give_random_moves_then_a_forfeit_at_the_strike_limit():
    outcome, _, _ = play_json(
        "--move-ms",
        "200",
        "--on-timeout",
        "random-move",
        "--strikes",
        "2",
        "--bot",
        misbehaving("late", 2, 40),
        "--bot",
        RANDOM_BOT,
    )
    penalties = [(v["cause"], v["penalty"]) for v in outcome["all_violations"][0]]
    assert penalties == [("timeout", "random-move"), ("timeout", "forfeit")]
    assert outcome["violations"][0] == outcome["all_violations"][0][-1]


def test_play_margin_option_is_the_grace_past_the_time_told():
    # Answers once, 40 ms after the time it was told, with a good answer.
    late = misbehaving("just-in-time", 2, -40)
    forgiven, _, _ = play_json(
        "--move-ms", "200", "--margin-ms", "150", "--bot", late, "--bot", RANDOM_BOT
    )
    assert forgiven["all_violations"] == [[], []]
    late_again, _, _ = play_json(
        "--move-ms", "200", "--margin-ms", "0", "--bot", late, "--bot", RANDOM_BOT
    )
    assert late_again["violations"][0]["cause"] == "timeout"


def test_play_tells_the_bots_the_time_control_it_is_given(tmp_path):
    code = (
        "from goatarena.sdk import Bot, log, run\n"
        "class Teller(Bot):\n"
        "    def start(self, game):\n"
        "        log(game.time)\n"
        "    def choose(self, request):\n"
        "        return 0\n"
        "run(Teller())\n"
    )
    options = ["--move-ms", "200", "--bank-ms", "1000", "--increment-ms", "50"]
    play_json(*options, "--log-dir", str(tmp_path), "--bot", python_bot(code), "--bot", RANDOM_BOT)
    told = (tmp_path / "seat0.log").read_text()
    assert "TimeInfo(move_ms=200, bank_ms=1000, increment_ms=50)" in told


def test_play_keeps_a_stderr_flood_out_of_the_result_and_caps_its_log(tmp_path):
    flood = misbehaving("stderr-flood", 0, 4 << 20)
    outcome, _, _ = play_json("--log-dir", str(tmp_path), "--bot", flood, "--bot", RANDOM_BOT)
    assert outcome["violations"] == [None, None]
    assert outcome["latency"][0]["decisions"] > 10  # over 40 MiB of stderr
    log = (tmp_path / "seat0.log").read_bytes()
    assert len(log) == (1 << 20) + len(b"\n[goatarena: log truncated]\n")


@pytest.mark.parametrize(
    ("bot", "detail"),
    [
        (misbehaving("no-hello"), "crash: exited with code 4"),
        (misbehaving("slow-start", 0, 5000), "timeout: no hello within 1500 ms"),
        # It stays: a bot that exits at once after its line may be seen to crash first.
        (python_bot("import time\nprint('nonsense', flush=True)\ntime.sleep(10)"), "malformed: "),
    ],
)
def test_a_bot_that_fails_to_start_ends_play_with_one_line_and_a_failure(bot, detail):
    # The limit leaves the honest Python seat time to start on a loaded machine.
    args = ["--startup-ms", "1500", "--bot", bot, "--bot", RANDOM_BOT]
    result = invoke("play", "mountain-goats", "--seed", "1", "--json", "--quiet", *args)
    assert result.exit_code == 2, result.output
    last = result.output.strip().splitlines()[-1]
    assert last.startswith("goatarena: error: bot ") and "did not start: " + detail in last
    assert last.endswith("nothing was played") and "Traceback" not in result.output
    assert '"violations"' not in result.output  # no game, no result


def test_a_log_folder_that_cannot_be_created_is_one_clear_line():
    result = invoke(
        "play",
        "mountain-goats",
        "--bot",
        RANDOM_BOT,
        "--bot",
        RANDOM_BOT,
        "--log-dir",
        "/proc/no/such/folder",
    )
    assert result.exit_code == 2
    assert "cannot create log folder /proc/no/such/folder" in result.output
    assert "Traceback" not in result.output


def _commands():
    from goatarena.cli import COMMANDS

    return sorted(COMMANDS)  # the commands load lazily: the table names them all


@pytest.mark.parametrize("command", _commands())
def test_every_commands_help_ends_with_an_example(command):
    from goatarena.cli import main as group

    text = CliRunner().invoke(group, [command, "--help"]).output
    description = [line.strip() for line in text.split("\nOptions:")[0].rstrip().splitlines()]
    # The last paragraph is the example (its command may run over two lines).
    start = len(description) - 1 - description[::-1].index("Example:")
    assert start >= len(description) - 3 and "" not in description[start:], text
    assert description[start + 1].startswith("goatarena " + command)
    assert "``" not in text  # docstring markup means nothing on a terminal


def test_play_quiet_prints_the_result_in_one_line_and_takes_rule_options():
    from goatarena.cli import main as group
    from tests.helpers import RANDOM_BOT

    args = ["play", "goat-lords", "--bot", RANDOM_BOT, "--bot", RANDOM_BOT, "--seed", "3"]
    quiet = CliRunner().invoke(group, [*args, "--quiet"])
    assert quiet.exit_code == 0
    (line,) = quiet.output.splitlines()
    assert line.startswith("1. random") and ", 2. random" in line
    as_json = CliRunner().invoke(group, [*args, "--quiet", "--json", "--option", "rounds=2"])
    assert json.loads(as_json.output)["options"]["rounds"] == 2
    wrong = CliRunner().invoke(group, [*args, "--option", "rounds=two"])
    assert wrong.exit_code == 2 and "option 'rounds' must be int" in wrong.output
    unknown = CliRunner().invoke(group, [*args, "--option", "speed=3"])
    assert unknown.exit_code == 2 and "has no option 'speed'" in unknown.output


def test_play_quiet_names_a_seat_that_broke_a_rule():
    args = ["play", "goat-lords", "--bot", misbehaving("exit", 3), "--bot", RANDOM_BOT]
    quiet = CliRunner().invoke(main, [*args, "--seed", "1", "--quiet"])
    assert quiet.exit_code == 0, quiet.output
    (line,) = quiet.output.splitlines()
    assert line.endswith("(violations: exit: crash)"), line


def closed_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (bound, then closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize(
    ("address", "message"),
    [
        ("nonsense", "'nonsense' is not a scheduler address like tcp://HOST:8786"),
        (f"tcp://127.0.0.1:{closed_port()}", "cannot reach the Dask scheduler at tcp://127.0.0.1:"),
    ],
)
def test_a_worker_without_a_scheduler_to_join_is_one_line(monkeypatch, address, message):
    # Dask's worker would try for 30 s and end in three chained tracebacks.
    monkeypatch.setattr(cluster, "SCHEDULER_WAIT_S", 0.5)

    def never(*args):  # the command must stop before it becomes Dask's worker
        pytest.fail(f"the worker started: {args}")

    monkeypatch.setattr(os, "execv", never)
    result = invoke("worker", address)
    assert result.exit_code == 2
    assert result.output.startswith(f"goatarena: error: {message}")
    assert len(result.output.splitlines()) == 1


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"GOATARENA_CLUSTER": "nonsense"}, "'nonsense' is not a scheduler address"),
        (
            {"GOATARENA_CLUSTER": "tcp://127.0.0.1:1", "GOATARENA_CLUSTER_RESOURCES": "fast"},
            "resources: 'fast' is not NAME=AMOUNT",
        ),
    ],
)
def test_a_cluster_setting_with_a_typo_leaves_no_database_behind(tmp_path, env, message):
    config = tmp_path / "t.toml"
    config.write_text(
        f'name = "t"\n[bots]\na = {json.dumps(RANDOM_BOT)}\nb = {json.dumps(RANDOM_BOT)}\n'
        '[[games]]\nname = "mountain-goats"\n'
    )
    result = CliRunner().invoke(
        main, ["run", str(config), "--db", str(tmp_path / "t.sqlite")], env=env
    )
    assert result.exit_code == 2
    assert result.output.startswith(f"goatarena: error: {message}")
    assert [path.name for path in tmp_path.iterdir()] == ["t.toml"]


class _InterruptedWhileLoading(types.ModuleType):
    """Stands in for the command line while its import is cut short by Ctrl-C."""

    def __getattr__(self, name: str):
        raise KeyboardInterrupt


def test_ctrl_c_while_the_command_line_loads_is_one_line(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "goatarena.cli", _InterruptedWhileLoading("goatarena.cli"))
    with pytest.raises(SystemExit) as stopped:
        entry.main()
    assert stopped.value.code == 130
    assert capsys.readouterr().err == "goatarena: interrupted\n"


def test_every_command_module_is_in_the_lazy_table_and_loads_only_when_asked():
    import importlib
    import pkgutil
    import subprocess

    from goatarena import cli

    for module in pkgutil.iter_modules(cli.__path__):
        if module.name.startswith("_"):
            continue
        importlib.import_module(f"goatarena.cli.{module.name}")
    registered = {name: command.callback.__module__ for name, command in cli.main.commands.items()}
    assert {name: f"goatarena.cli.{module}" for name, module in cli.COMMANDS.items()} == registered
    # A command that needs no rating fit does not load NumPy to start.
    probe = "import sys; from goatarena.cli import main; main.get_command(None, 'list');"
    probe += " print('numpy' in sys.modules)"
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert loaded.stdout.strip() == "False", loaded.stderr
