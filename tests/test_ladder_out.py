"""What a ladder says of the bots that play no more (suspended, disqualified, retired),
its rhythm in a pipe, its board's trend per game, and the report's marks and paths."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from goatarena.cli import main
from goatarena.formats.tournament_file import load_config
from goatarena.referee.records import MatchResult
from goatarena.report.facts import shown_command, shown_text
from goatarena.running import progress as progress_module
from goatarena.running.ladder import LadderRun
from goatarena.running.ladder_board import LadderBoard, board_lines
from goatarena.running.progress import Progress
from tests.helpers import ROOT

LADDER = """name = "lad"
format = "ladder"
sandbox = "none"
concurrency = 2

[bots]
a = "python3 bots/random_bot.py"
b = "python3 bots/random_bot.py --seed 3"
old = "builtin:random"
ghost = "./bots/ghost/bot"

[ladder]
poll_s = 0.5
stop_games = STOP
retired = ["old"]

[[games]]
name = "mountain-goats"
players = 2

[[games]]
name = "goat-n-goat"
players = 2
"""


def goatarena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "goatarena", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
    )


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    """A ladder whose file names a program that does not exist (written by hand, as
    `ladder add` would refuse it) and a retired version, run to its stop rule with its
    progress in a pipe."""
    folder = tmp_path_factory.mktemp("organiser") / "home" / "alice" / "league"
    (folder / "bots").mkdir(parents=True)
    (folder / "bots" / "random_bot.py").write_text(
        (ROOT / "bots" / "python" / "random_bot.py").read_text()
    )
    (folder / "lad.toml").write_text(LADDER.replace("STOP", "60"))
    started = time.monotonic()
    run = goatarena("run", "lad.toml", cwd=folder)
    return SimpleNamespace(folder=folder, run=run, elapsed=time.monotonic() - started)


pytestmark = pytest.mark.slow


def test_a_bot_that_cannot_start_is_named_with_its_reason_in_the_piped_log(ran):
    assert ran.run.returncode == 0, ran.run.stderr
    log = ran.run.stderr
    said = [line for line in log.splitlines() if line.startswith("ladder lad: ghost is out")]
    assert len(said) == 1, log  # once, as it happens
    assert "suspended: did not pass its validation" in said[0] and "bots/ghost/bot" in said[0]
    assert "ladder lad: old is retired" in log


def cli(*args: str) -> str:
    """A command's output, run in this process (quicker than a new interpreter)."""
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_standings_show_the_bots_out_with_their_reasons_in_every_format(ran, monkeypatch):
    monkeypatch.chdir(ran.folder)
    text = SimpleNamespace(stdout=cli("standings"))
    assert "retired: old (no games)" in text.stdout
    out = next(line for line in text.stdout.splitlines() if line.startswith("out: ghost"))
    assert "suspended: did not pass its validation" in out and "no games" in out
    assert "no games: ghost" not in text.stdout  # said once, with the reason
    data = json.loads(cli("standings", "--format", "json"))
    assert data["out"]["old"] == "retired"
    assert data["out"]["ghost"].startswith("suspended: did not pass its validation")
    rows = list(
        csv.DictReader(
            io.StringIO(goatarena("standings", "--format", "csv", cwd=ran.folder).stdout)
        )
    )
    by_bot = {row["bot"]: row for row in rows if not row["game"]}
    assert by_bot["ghost"]["out"].startswith("suspended: did not pass its validation")
    assert by_bot["old"]["out"] == "retired"
    assert all(row["out"] == "" for row in rows if row["bot"] in ("a", "b"))


def test_ladder_why_reads_the_database_of_the_ladder_file(ran, monkeypatch):
    monkeypatch.chdir(ran.folder)
    said = cli("ladder", "why", "lad.toml", "1")
    assert re.fullmatch(r"\S+/t\d+/\S+: chosen by the \w+ rule: .+\n", said), said
    assert cli("ladder", "why", "1") == said  # the only database under results/


def test_a_ladder_in_a_pipe_writes_a_progress_line_every_few_seconds_not_per_game(ran):
    games = int(re.search(r"lad: (\d+) games", ran.run.stdout).group(1))
    progress = [line for line in ran.run.stderr.splitlines() if "games/s" in line]
    assert games >= 100
    # One line every 5 s, one at the start and one each time the roster changed (the
    # newcomers a, b validated, ghost put out): far from one line per game.
    assert len(progress) <= 6 + ran.elapsed / progress_module.PLAIN_INTERVAL_S, progress


def test_the_report_marks_the_bots_out_and_shows_paths_from_the_files_folder(ran, monkeypatch):
    monkeypatch.chdir(ran.folder)
    cli("report", "-o", "r.html")
    page = (ran.folder / "r.html").read_text()
    assert str(ran.folder) not in page and "alice" not in page  # no organiser's path
    assert "<code>python3 ./bots/random_bot.py</code>" in page
    assert "<code>./bots/ghost/bot</code>" in page
    assert re.search(r'<dt>old <span class="out" title="retired">retired</span>', page)
    assert re.search(r'<dt>ghost <span class="out" title="suspended: [^"]*">suspended</span>', page)
    assert "Bots that play no more" in page


def test_command_paths_are_shown_from_the_tournament_files_folder():
    folder = "/home/alice/league"
    assert shown_command("python3 /home/alice/league/bots/a.py", folder) == "python3 ./bots/a.py"
    assert shown_command("/home/alice/kits/go/bot --x", folder) == "../kits/go/bot --x"
    assert shown_command("/usr/bin/python3 -m bot", folder) == "/usr/bin/python3 -m bot"
    assert shown_command("bot --model=/home/alice/league/m.bin", folder) == "bot --model=./m.bin"
    assert shown_text("cannot start bot '/home/alice/league/b/x'", folder) == (
        "cannot start bot './b/x'"
    )
    assert shown_text('File "/home/alice/results/x.py", line 1 in /usr/lib', folder) == (
        'File "../results/x.py", line 1 in /usr/lib'
    )
    assert shown_text("/home/alice/leagues/a, /home/alice/league.", folder) == (
        "../leagues/a, ../league."
    )


def _result(players: list[str], ranks: list[int], game: str) -> MatchResult:
    return MatchResult(
        game=game, seed=0, players=players, scores=[0.0, 0.0], ranks=ranks,
        violations=[None, None], decisions=[],
    )  # fmt: skip


def test_the_board_keeps_each_bots_trend_per_game_entry(tmp_path):
    (tmp_path / "lad.toml").write_text(LADDER.replace("STOP", "0"))
    config = load_config(tmp_path / "lad.toml")
    runner = SimpleNamespace(config=config, disqualified={}, progress=None)
    ladder = LadderRun(runner)  # type: ignore[arg-type]
    for matchmaker in ladder.matchmakers:
        for name in ("a", "b"):
            matchmaker.add(name)
    ladder.validated.update({"a", "b"})
    for _ in range(15):  # a wins at mountain goats and loses at goat 'n' goat
        ladder._heard(0, _result(["a", "b"], [1, 2], "mountain-goats"), chosen_here=False)
        ladder._heard(1, _result(["b", "a"], [1, 2], "goat-n-goat"), chosen_here=False)
    for matchmaker in ladder.matchmakers:
        matchmaker.ratings.refresh(sweeps=5)
    lines = board_lines(ladder)
    split = lines.index(next(line for line in lines if line.startswith("goat-n-goat")))

    def trend(block: list[str], name: str) -> int:
        row = next(line for line in block if line.split()[1:2] == [name])
        return int(row.split()[-3])

    assert trend(lines[:split], "a") > 0 > trend(lines[:split], "b")
    assert trend(lines[split:], "a") < 0 < trend(lines[split:], "b")


def test_a_ladder_board_in_a_pipe_keeps_a_round_robins_rhythm(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: clock[0])
    config = SimpleNamespace(name="lad", games=[], bots={}, ladder=SimpleNamespace(retired=[]))
    ladder = SimpleNamespace(
        runner=SimpleNamespace(config=config), matchmakers=[], spreads=[], validated=set(),
        put_out={}, history={}, last_game={},
    )  # fmt: skip
    streams = {"ladder": io.StringIO(), "round-robin": io.StringIO()}
    ladder_board = LadderBoard(
        SimpleNamespace(config=config, ladder=ladder),  # type: ignore[arg-type]
        stream=streams["ladder"],
    )
    round_robin = Progress(100_000, stream=streams["round-robin"])
    for _ in range(300):  # 300 games in 3 s
        clock[0] += 0.01
        ladder_board.advance()
        round_robin.advance()
    ladder.put_out["flaky"] = "suspended: 9 of its last 20 games had a violation"
    ladder_board.report()  # a roster change is reported at once
    clock[0] += progress_module.PLAIN_INTERVAL_S
    ladder_board.advance()
    round_robin.advance()
    ladder_lines = [line for line in streams["ladder"].getvalue().splitlines() if "games/s" in line]
    robin_lines = streams["round-robin"].getvalue().splitlines()
    assert len(robin_lines) == 2
    assert len(ladder_lines) == 3  # the first, the roster change, 5 s later
    news = [line for line in streams["ladder"].getvalue().splitlines() if "flaky" in line]
    assert news == ["ladder lad: flaky is out: suspended: 9 of its last 20 games had a violation"]
