"""Side by side: random playouts per second of the engines at a base commit and here.

Usage (from the repository root)::

    .venv/bin/python scripts/compare_engines.py [--base COMMIT] [--seconds S] [--rounds N]
        [--seeds N] [--games N] [GAME ...]

The base commit's ``goatarena`` package is extracted with ``git archive`` into a
temporary directory; each measurement runs in its own subprocess with either that copy
or this working tree first on ``sys.path``. The two alternate round by round and the best
round of each counts (other load on the machine can only slow a round down), so the
ratios printed are measured in one run under the same conditions. Both sides play the
same seeded games (so the decisions per game must agree) and the clock is the process's
CPU time, which other load on a shared machine disturbs far less than wall time.

By default each side plays the ``--seeds`` (50) seeded games over and over for at least
``--seconds`` per player count, stopping only at the end of a pass over the seeds. With
``--games N`` each side plays exactly N games per player count instead (the i-th with
seed i modulo ``--seeds``), whatever the time. ``--seeds N`` alone, without
``--games``, plays each of the N seeds once: fresh games, as real play is, in a time
bounded by the number of games (a pass over thousands of seeds could otherwise run far
past its time budget before stopping).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ALL_GAMES = ["goat-lords", "goat-n-goat", "herr-der-ziegen", "mountain-goats"]

MEASURE = """\
import json, random, sys, time
sys.path.insert(0, sys.argv[1])
from goatarena.games import find_game
info = find_game(sys.argv[2])
seconds, seeds, count = float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
out = {}
for players in info.player_counts:
    games = decisions = 0
    started = time.process_time()
    while True:
        # The same seeds every time, so both sides play exactly the same games.
        seed = games % seeds
        rng = random.Random(seed)
        state = info.new_state(players, seed)
        while not state.is_over:
            state.apply_index(rng.randrange(len(state.legal_actions())))
        games += 1
        decisions += len(state.history)
        elapsed = time.process_time() - started
        if games == count or (not count and elapsed >= seconds and games % seeds == 0):
            break
    out[players] = [games / elapsed, decisions / games]
print(json.dumps(out))
"""
"""Runs in a subprocess: CPU seconds, since a shared machine makes wall time noisy."""


def measure(root: str, game: str, seconds: float, seeds: int, games: int) -> dict[str, list[float]]:
    """Games per CPU second and decisions per game, per player count, ``root`` imported.

    ``games`` is the exact number of games per player count, or 0 for the time budget.
    """
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, root, game, str(seconds), str(seeds), str(games)],
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, list[float]] = json.loads(done.stdout)
    return result


def main() -> None:
    """Measure, alternating base and here, and print a table with the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=ALL_GAMES, help="default: all four")
    parser.add_argument("--base", default="decd4a0", help="the commit to compare against")
    parser.add_argument("--seconds", type=float, default=1.0, help="per player count")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seeds", type=int, help="distinct games played (default 50)")
    parser.add_argument(
        "--games",
        type=int,
        dest="count",
        metavar="N",
        help="games per player count, instead of --seconds of them",
    )
    args = parser.parse_args()
    if args.count is None:
        # --seeds alone: each seed once, so a long list of seeds ends when it is played
        args.count = 0 if args.seeds is None else args.seeds
    if args.seeds is None:
        args.seeds = 50
    unknown = [game for game in args.games if game not in ALL_GAMES]
    if unknown:
        parser.error(f"no game {unknown[0]!r}: choose from {', '.join(ALL_GAMES)}")
    if args.seeds < 1 or args.count < 0:
        parser.error("--seeds must be at least 1 and --games at least 0")
    with tempfile.TemporaryDirectory() as base_root:
        archived = subprocess.run(
            ["git", "-C", str(ROOT), "archive", args.base, "goatarena"], capture_output=True
        )
        if archived.returncode:
            parser.error(f"--base {args.base}: no such commit with goatarena/ in it")
        archive = archived.stdout
        subprocess.run(["tar", "-x", "-C", base_root], input=archive, check=True)
        amount = f"{args.count} games" if args.count else f"at least {args.seconds:g} s"
        print(
            f"base {args.base} vs working tree; best of {args.rounds} rounds of {amount}"
            f" per player count over {args.seeds} seeds"
        )
        header = ("game", "players", "base g/s", "new g/s", "ratio", "dec/game")
        print("{:<16}{:>8}{:>11}{:>11}{:>8}{:>10}".format(*header))
        for game in args.games:
            best: dict[str, dict[str, list[float]]] = {"base": {}, "new": {}}
            for _ in range(args.rounds):
                for label, root in (("base", base_root), ("new", str(ROOT))):
                    for players, row in measure(
                        root, game, args.seconds, args.seeds, args.count
                    ).items():
                        if players not in best[label] or row[0] > best[label][players][0]:
                            best[label][players] = row
            for players, (base_rate, decisions) in best["base"].items():
                new_rate, new_decisions = best["new"][players]
                note = "" if abs(new_decisions - decisions) < 1e-9 else " (differs!)"
                print(
                    f"{game:<16}{players:>8}{base_rate:>11.0f}{new_rate:>11.0f}"
                    f"{new_rate / base_rate:>7.2f}x{decisions:>10.1f}{note}"
                )


if __name__ == "__main__":
    main()
