"""How a new version compares with its entrant's previous one: paired games and the SPRT.

The two versions play deals in pairs, each deal once from each seat, in the
competition's first game of two seats, two processes kept for all the games (as in a
tournament). The gauntlet's SPRT (:mod:`goatarena.formats.sprt`, pentanomial) decides
whether the new version is stronger: it stops as soon as it decides, or after
``games`` games. The answer is one sentence for the entrant: "alice@3 is stronger than
alice@2: +35 ± 20 Elo, H1 accepted after 140 games".
"""

from __future__ import annotations

import math

from goatarena.formats.config import SprtSettings, TournamentConfig
from goatarena.formats.sprt import PAIR_SCORES, SprtStatus, SprtTally
from goatarena.games import find_game
from goatarena.referee.lineup import open_lineup
from goatarena.referee.match import play_match
from goatarena.referee.sandbox import SandboxPolicy
from goatarena.running.game_slots import GameSlots, holding

SETTINGS = SprtSettings(elo0=0.0, elo1=20.0, alpha=0.05, beta=0.05)
"""H0: the new version is no stronger; H1: it is 20 Elo stronger."""


async def compare(
    new: tuple[str, str],
    old: tuple[str, str],
    config: TournamentConfig,
    *,
    games: int,
    sandbox: SandboxPolicy,
    seed: int = 1,
    slots: GameSlots | None = None,
) -> str:
    """Play the new version (its name and command) against the old one and say how they
    compare, in one sentence; each pair of games holds one of ``slots`` (the ladder's,
    shared) while it plays."""
    entry = next((entry for entry in config.games if entry.players == 2), None)
    if entry is None:
        return "no comparison: the competition has no game of two seats"
    info = find_game(entry.name)
    tally = SprtTally(SETTINGS, new[0], old[0])
    async with open_lineup(
        [new[1], old[1]],
        startup_s=config.time.startup_ms / 1000,
        limits=config.limits,
        sandbox=sandbox,
    ) as lineup:
        for bot, (name, _) in zip(lineup, (new, old)):
            if bot.broken is not None:
                return f"no comparison: {name} did not start: {bot.broken}"
            bot.name = name
        played = 0
        while played + 2 <= games:
            deal = seed * 100_003 + played // 2
            async with holding(slots):
                for order in (lineup, lineup[::-1]):
                    result = await play_match(
                        info, order, seed=deal, options=entry.options, time_control=config.time
                    )
                    tally.add(f"{deal}/{played % 2}", result)
                    played += 1
                    if any(bot.broken is not None for bot in lineup):
                        return f"no comparison: a bot broke down after {played} games"
            if tally.status().verdict != "running":
                break
    return describe_comparison(tally.status(), played)


def elo_interval(pentanomial: list[int]) -> tuple[float, float]:
    """The Elo difference the pairs show and its 95 % half-width (delta method)."""
    pairs = sum(pentanomial)
    if not pairs:
        return 0.0, math.inf
    mean = sum(n * s for n, s in zip(pentanomial, PAIR_SCORES)) / pairs
    variance = sum(n * (s - mean) ** 2 for n, s in zip(pentanomial, PAIR_SCORES)) / pairs
    score = min(max(mean, 1e-3), 1 - 1e-3)
    elo = -400 * math.log10(1 / score - 1)
    slope = 400 / (math.log(10) * score * (1 - score))
    return elo, 1.96 * math.sqrt(variance / pairs) * slope


def describe_comparison(status: SprtStatus, games: int) -> str:
    """The comparison in one sentence."""
    elo, half = elo_interval(status.pentanomial)
    shown = f"{round(elo):+d} ± {half:.0f} Elo" if math.isfinite(half) else "no pairs"
    new, old = status.challenger, status.baseline
    if status.verdict == "H1":
        return f"{new} is stronger than {old}: {shown}, H1 accepted after {games} games"
    if status.verdict == "H0":
        return f"{new} is not stronger than {old}: {shown}, H0 accepted after {games} games"
    return f"{new} against {old}: {shown}, no verdict after {games} games"
