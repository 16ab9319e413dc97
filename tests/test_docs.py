"""The documentation stays true: docs/games.md shows real observations of every game.

Each game's section in docs/games.md has a marker
``<!-- example: game=NAME players=P seed=S decisions=K -->`` followed by two JSON blocks:
the observation of the seat to act after K random decisions (``random.Random(S)``
choosing indexes) and its legal actions. The test replays the marker and compares.
``python -m tests.test_docs`` prints the blocks afresh, to paste after a game changes.
"""

from __future__ import annotations

import json
import random
import re
import shlex
import sys
from typing import Any

import pytest
from click.testing import CliRunner

from goatarena.cli import main
from goatarena.games import GAMES
from tests.example_bots import HAVE_NODE
from tests.helpers import ROOT

DOCS = ROOT / "docs"
MARKER = re.compile(
    r"<!-- example: game=(?P<game>[\w-]+) players=(?P<players>\d+) seed=(?P<seed>\d+)"
    r" decisions=(?P<decisions>\d+) -->\s*```json\n(?P<observation>.*?)```\s*```json\n"
    r"(?P<actions>.*?)```",
    re.DOTALL,
)
WIDTH = 92


def example(game: str, players: int, seed: int, decisions: int) -> tuple[dict, list]:
    """The observation of the seat to act and its actions after ``decisions`` random ones."""
    state = GAMES[game].new_state(players, seed)
    chooser = random.Random(seed)
    for _ in range(decisions):
        state.apply_index(chooser.randrange(len(state.legal_actions())))
    assert state.to_act is not None
    return state.observation(state.to_act), state.legal_actions()


def render(value: Any, indent: int = 0) -> str:
    """JSON a reader can scan: one field or item per line where a line would grow long."""
    compact = json.dumps(value, ensure_ascii=False)
    if len(compact) + indent <= WIDTH - 10 and indent > 0:
        return compact
    inner = " " * (indent + 2)
    if isinstance(value, dict) and value:
        fields = [f"{inner}{json.dumps(k)}: {render(v, indent + 2)}" for k, v in value.items()]
        return "{\n" + ",\n".join(fields) + "\n" + " " * indent + "}"
    if isinstance(value, list) and value and len(compact) + indent > WIDTH - 10:
        items = [f"{inner}{render(item, indent + 2)}" for item in value]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
    return compact


def documented_examples() -> dict[str, re.Match[str]]:
    text = (DOCS / "games.md").read_text()
    return {match["game"]: match for match in MARKER.finditer(text)}


def test_every_registered_game_has_a_section_and_an_example_in_games_md():
    text = (DOCS / "games.md").read_text()
    examples = documented_examples()
    for name, info in GAMES.items():
        assert f"## {info.title}: `{name}`" in text, f"docs/games.md lacks a section on {name}"
        assert name in examples, f"docs/games.md lacks an example for {name}"


@pytest.mark.parametrize("name", list(GAMES))
def test_the_documented_example_is_what_the_engine_gives(name):
    match = documented_examples().get(name)
    if match is None:
        pytest.fail(f"docs/games.md lacks an example for {name}")
    args = (name, int(match["players"]), int(match["seed"]), int(match["decisions"]))
    observation, actions = example(*args)
    fresh = f"{render(observation)}\n\n{render(actions)}"
    assert json.loads(match["observation"]) == observation, f"regenerate:\n{fresh}"
    assert json.loads(match["actions"]) == actions, f"regenerate:\n{fresh}"


def test_the_docs_link_only_to_files_that_exist():
    for page in [ROOT / "README.md", *DOCS.glob("*.md")]:
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text()):
            assert (page.parent / target).exists(), f"{page.name} links to missing {target}"


def test_the_docs_name_only_modules_and_folders_that_exist():
    """Paths (``goatarena/store/``) and modules (``goatarena.sdk``) named in the docs are real."""
    for page in [ROOT / "README.md", *DOCS.glob("*.md")]:
        text = page.read_text()
        for path in re.findall(r"`(goatarena/[\w/.]*)`", text):
            assert (ROOT / path).exists(), f"{page.name} names missing {path}"
        for dotted in set(re.findall(r"\bgoatarena(?:\.[a-z_]+)+", text)):
            name = dotted
            while name.count(".") and not is_module(name):
                name = name.rpartition(".")[0]  # goatarena.sdk.Bot: a name in a module
            assert name.count("."), f"{page.name} names {dotted}, which is no module"


def is_module(name: str) -> bool:
    """Whether ``name`` can be imported as a module (not an attribute of one)."""
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # a parent is a module, not a package
        return False


if __name__ == "__main__":
    for name, match in documented_examples().items():
        args = (name, int(match["players"]), int(match["seed"]), int(match["decisions"]))
        observation, actions = example(*args)
        print(f"{match.group(0).splitlines()[0]}\n```json\n{render(observation)}\n```\n")
        print(f"```json\n{render(actions)}\n```\n")


def python_blocks(page: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (DOCS / page).read_text(), re.DOTALL)


@pytest.mark.parametrize(
    "code",
    [block for block in python_blocks("sdk.md") if "def test_" in block],
    ids=["play_local", "search", "self_play"],
)
def test_the_examples_in_sdk_md_run_and_their_tests_pass(code):
    namespace: dict[str, Any] = {}
    exec(compile(code, "docs/sdk.md", "exec"), namespace)
    tests = [value for name, value in namespace.items() if name.startswith("test_")]
    assert tests
    for test in tests:
        test()


def code_blocks(page: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", (DOCS / page).read_text(), re.DOTALL)


def check_bot_passes(command: str) -> None:
    result = CliRunner().invoke(main, ["check-bot", command, "--games", "1"])
    assert result.exit_code == 0, result.output


def test_the_python_bot_in_bots_md_passes_check_bot(tmp_path):
    [code] = [block for block in code_blocks("bots.md", "python") if "run(" in block]
    path = tmp_path / "breeder.py"
    path.write_text(code)
    check_bot_passes(f"{shlex.quote(sys.executable)} {path}")


@pytest.mark.skipif(not HAVE_NODE, reason="node is not installed")
def test_the_javascript_bot_in_bots_md_passes_check_bot(tmp_path):
    [code] = code_blocks("bots.md", "javascript")
    path = tmp_path / "first.js"
    path.write_text(code)
    check_bot_passes(f"node {path}")


def test_the_shell_bot_in_bots_md_is_the_one_in_bots_shell():
    [code] = code_blocks("bots.md", "bash")
    script = (ROOT / "bots" / "shell" / "first_bot.sh").read_text().splitlines()
    assert code.splitlines() == [line for line in script if not line.startswith("# ")]


def test_the_minimal_bot_in_protocol_md_passes_check_bot(tmp_path):
    [code] = code_blocks("protocol.md", "python")
    path = tmp_path / "minimal.py"
    path.write_text(code)
    check_bot_passes(f"{shlex.quote(sys.executable)} {path}")


def _shown_check_bot_runs() -> list[tuple[str, list[str]]]:
    """The ``$ goatarena check-bot ...`` transcripts in bots.md: the command and its output."""
    runs = []
    for block in code_blocks("bots.md", "text"):
        first, *output = block.rstrip("\n").splitlines()
        if first.startswith("$ goatarena check-bot "):
            runs.append((first.removeprefix("$ goatarena "), output))
    return runs


def _without_timings(lines: list[str]) -> list[str]:
    return [re.sub(r"\d+(\.\d+)? ms\b", "N ms", line) for line in lines]


@pytest.mark.slow
@pytest.mark.parametrize("command, shown", _shown_check_bot_runs(), ids=lambda x: str(x)[:40])
def test_the_check_bot_transcripts_in_bots_md_match_the_real_output(command, shown, monkeypatch):
    if "node " in command and not HAVE_NODE:
        pytest.skip("node is not installed")
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(main, shlex.split(command))
    assert _without_timings(result.output.splitlines()) == _without_timings(shown)


def test_protocol_md_lists_every_field_of_every_message():
    import msgspec

    from goatarena import protocol

    text = (DOCS / "protocol.md").read_text()
    messages = [
        protocol.Hello,
        protocol.Start,
        protocol.TimeInfo,
        protocol.Decide,
        protocol.Event,
        protocol.End,
        protocol.BotHello,
        protocol.Action,
    ]
    for message in messages:
        for field in msgspec.structs.fields(message):
            assert f"`{field.encode_name}`" in text, f"{message.__name__}.{field.name}"
    assert "2^64−1" in text
