"""The kit's unit test (make test): every fixture through the SDK loop and the bot.

fixtures/*.json hold the lines one seat was sent in real games (kits/fixtures.py).
"""

import io
import json
from pathlib import Path

from main import MyBot

from goatarena.sdk import serve

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def check(fixture_file: Path) -> int:
    """Play the fixture's lines; return how many decisions were answered legally."""
    fixture = json.loads(fixture_file.read_text())
    output = io.BytesIO()
    serve(MyBot(), [line.encode() + b"\n" for line in fixture["lines"]], output)
    answers = [json.loads(line) for line in output.getvalue().splitlines()]
    decides = [json.loads(line) for line in fixture["lines"] if '"type":"decide"' in line[:20]]
    assert answers[0]["type"] == "hello" and answers[0]["name"] == MyBot.name
    assert len(answers) == len(decides) + 1, fixture_file.name
    for decide, answer in zip(decides, answers[1:]):
        assert answer["type"] == "action", answer
        assert 0 <= answer["index"] < len(decide["actions"]), (fixture_file.name, answer)
    return len(decides)


if __name__ == "__main__":
    for path in sorted(FIXTURES.glob("*.json")):
        print(f"{path.name}: {check(path)} decisions")
    print("all fixtures pass")
