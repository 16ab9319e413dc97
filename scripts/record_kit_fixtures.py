"""Record the lines a bot receives in real games, as JSON-lines fixtures for the kits' tests.

Plays one seeded two-player game of every game between a recording bot (seat 0, uniform
random choices, each line it reads kept verbatim) and the random bot, and writes the
lines seat 0 saw to ``OUT/<game>.jsonl``, its own answers interleaved as the referee read
them. ``--decides N`` keeps the first N decisions of a long game and its ``end``.

    python3 scripts/record_kit_fixtures.py kits/go/testdata --seed 1
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

GAMES = ("goat-lords", "goat-n-goat", "herr-der-ziegen", "mountain-goats")


def record_bot(out: Path, seed: int) -> None:
    """Be the recording bot: play at random and write every line read and answered."""
    rng = random.Random(seed)
    with out.open("w", encoding="utf-8") as transcript:
        for line in sys.stdin:
            transcript.write(line if line.endswith("\n") else line + "\n")
            message = json.loads(line)
            answer = None
            if message["type"] == "hello":
                answer = {"type": "hello", "name": "recorder"}
            elif message["type"] == "decide":
                index = rng.randrange(len(message["actions"]))
                answer = {"type": "action", "index": index, "decision": message["decision"]}
            elif message["type"] == "quit":
                break
            if answer is not None:
                text = json.dumps(answer, separators=(",", ":"))
                transcript.write("#" + text + "\n")
                print(text, flush=True)


def trim(lines: list[str], decides: int) -> list[str]:
    """The lines up to the ``decides``-th decision answered, then ``end`` and ``quit``."""
    kept: list[str] = []
    seen = 0
    for line in lines:
        kind = "answer" if line.startswith("#") else json.loads(line)["type"]
        if kind == "decide":
            seen += 1
        if seen > decides and kind in ("decide", "answer", "start"):
            continue
        kept.append(line)
    return kept


def main() -> None:
    """Record every game into the folder given."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--decides", type=int, default=12)
    parser.add_argument("--bot", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bot is not None:
        record_bot(args.bot, args.seed)
        return
    args.out.mkdir(parents=True, exist_ok=True)
    random_bot = Path(__file__).resolve().parent.parent / "bots" / "python" / "random_bot.py"
    for game in GAMES:
        with tempfile.TemporaryDirectory() as scratch:
            raw = Path(scratch) / "lines.jsonl"
            recorder = (
                f"{sys.executable} {Path(__file__).resolve()} x --seed {args.seed} --bot {raw}"
            )
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "goatarena",
                    "play",
                    game,
                    "--sandbox",
                    "none",
                    "--seed",
                    str(args.seed),
                    "--bot",
                    recorder,
                    "--bot",
                    f"{sys.executable} {random_bot}",
                    "--quiet",
                ],
                check=True,
            )
            lines = trim(raw.read_text(encoding="utf-8").splitlines(), args.decides)
        # Answers are kept apart from what the referee sent: the fixture is its lines only.
        sent = [line for line in lines if not line.startswith("#")]
        (args.out / f"{game}.jsonl").write_text("\n".join(sent) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
