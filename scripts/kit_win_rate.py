"""How often a bot beats the random bot in seeded two-player games: a kit's figure.

Plays GAMES games of GAME with ``goatarena play`` (seeds 1 to GAMES, the bot in seat 0
for odd seeds and seat 1 for even ones) and prints the wins, ties and the win rate.

    python3 scripts/kit_win_rate.py kits/go/bot --game mountain-goats --games 50
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

RANDOM_BOT = Path(__file__).resolve().parent.parent / "bots" / "python" / "random_bot.py"


def play(bot: str, game: str, seed: int) -> int:
    """The bot's rank in one game (1 is a win, or a tie for first)."""
    seat = 0 if seed % 2 else 1
    bots = [bot, f"python3 {RANDOM_BOT}"]
    if seat:
        bots.reverse()
    command = [sys.executable, "-m", "goatarena", "play", game, "--seed", str(seed), "--json"]
    for each in bots:
        command += ["--bot", each]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if result["violations"][seat] is not None:
        raise SystemExit(f"seed {seed}: the bot forfeited ({result['violations'][seat]})")
    ranks = result["ranks"]
    return 0 if ranks[0] == ranks[1] else ranks[seat]


def main() -> None:
    """Play the games and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bot")
    parser.add_argument("--game", default="mountain-goats")
    parser.add_argument("--games", type=int, default=50)
    args = parser.parse_args()
    outcomes = [play(args.bot, args.game, seed) for seed in range(1, args.games + 1)]
    wins, ties = outcomes.count(1), outcomes.count(0)
    print(
        f"{args.game}: {wins} wins, {ties} ties, {len(outcomes) - wins - ties} losses "
        f"of {len(outcomes)} against random: {100 * wins / len(outcomes):.0f}% won"
    )


if __name__ == "__main__":
    main()
