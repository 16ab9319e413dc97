"""The games for learning tools, side by side: random play through each way in.

Per game at two players, uniformly random legal choices throughout:

- **engine**: the raw engine (``apply_index`` of a random index), decisions per second;
- **PettingZoo**: ``goatarena.envs.pettingzoo.env`` stepped through ``agent_iter`` /
  ``last`` / ``step``, the mask and the observation vector made at every step; beside it
  PettingZoo's own RLCard card games ``leduc_holdem_v4`` and ``texas_holdem_v4`` stepped
  by the same loop (they need rlcard and pygame: ``pip install 'goatarena[rl-bench]'``);
- **OpenSpiel**: the registered game stepped through pyspiel (``legal_actions`` and
  ``apply_action``); beside it OpenSpiel's own C++ ``gin_rummy`` stepped the same way
  (its chance nodes sampled, only decisions counted);
- **play_local**: ``goatarena.sdk.play_local`` with two random bots against the raw
  engine playing the same games (the same seeds), as a ratio of times.

The goals (docs/sdk.md, "Training a bot"): PettingZoo at least 5 times the steps per
second of the RLCard environments and half the engine's decisions per second; OpenSpiel at
least gin_rummy's steps per second; play_local at most 1.5 times the engine's time.

Rates and times are of the process's CPU time (``time.process_time``), each measurement
stopping on the wall clock: on a machine shared with other work, the time the process
waits for a core is left out, and with it most of the noise. Each contender is measured
in turn, best of five rounds.

``python benchmarks/envs.py [--seconds S]``: S seconds per measurement (default 2).
"""

from __future__ import annotations

import argparse
import importlib
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from tabulate import tabulate

from goatarena.games import GAMES

Measure = Callable[[float], float]


def engine_rate(game: str) -> Measure:
    """Decisions per second of random play on the raw engine."""

    def measure(seconds: float) -> float:
        info, rng = GAMES[game], random.Random(0)
        decisions, started, seed = 0, time.perf_counter(), 0
        cpu = time.process_time()
        while time.perf_counter() - started < seconds:
            state = info.new_state(2, seed)
            while not state.is_over:
                state.apply_index(rng.randrange(len(state.legal_actions())))
                decisions += 1
            seed += 1
        return decisions / (time.process_time() - cpu)

    return measure


def pettingzoo_rate(make: Callable[[], object]) -> Measure:
    """Steps per second of random masked play through a PettingZoo AEC environment."""

    def measure(seconds: float) -> float:
        env = make()
        env.reset(seed=0)  # type: ignore[attr-defined]  # (tables built before the clock starts)
        rng = random.Random(0)
        steps, started, seed = 0, time.perf_counter(), 0
        cpu = time.process_time()
        while time.perf_counter() - started < seconds:
            env.reset(seed=seed)  # type: ignore[attr-defined]
            for _agent in env.agent_iter():  # type: ignore[attr-defined]
                observation, _, terminated, truncated, _ = env.last()  # type: ignore[attr-defined]
                if terminated or truncated:
                    env.step(None)  # type: ignore[attr-defined]
                    continue
                # (A bool view: numpy finds the legal numbers of an int8 mask 20 times slower.)
                legal = np.flatnonzero(observation["action_mask"].view(np.bool_))
                env.step(int(legal[rng.randrange(len(legal))]))  # type: ignore[attr-defined]
                steps += 1
            seed += 1
        return steps / (time.process_time() - cpu)

    return measure


def openspiel_rate(load: Callable[[], object]) -> Measure:
    """Decisions per second of random play through pyspiel (chance nodes sampled)."""

    def measure(seconds: float) -> float:
        game = load()
        game.new_initial_state().legal_actions()  # type: ignore[attr-defined]  # (tables built)
        rng = random.Random(0)
        steps, started = 0, time.perf_counter()
        cpu = time.process_time()
        while time.perf_counter() - started < seconds:
            state = game.new_initial_state()  # type: ignore[attr-defined]
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes, chances = zip(*state.chance_outcomes(), strict=True)
                    state.apply_action(rng.choices(outcomes, chances)[0])
                    continue
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
                steps += 1
        return steps / (time.process_time() - cpu)

    return measure


def play_local_ratio(game: str, seconds: float) -> float:
    """play_local's time over the raw engine's for the same random games played to their
    result (seeded generator, random indices, ``result()``): the median over
    back-to-back pairs of runs (100 games each way), so that the machine's load at one
    moment weighs on both sides of a pair.

    The two random bots are made once and play every game, as in a self-play loop (each
    is reseeded from the game's seed at its start); making a RandomBot, its generator
    seeded from the system, costs about as much as a short game's decisions."""
    from goatarena.bots.random_bot import RandomBot
    from goatarena.sdk import play_local

    info = GAMES[game]
    bots = [RandomBot(), RandomBot()]
    games, ratios = 100, []
    stop = time.perf_counter() + seconds
    while time.perf_counter() < stop or len(ratios) < 3:
        started = time.process_time()
        for seed in range(games):
            state, rng = info.new_state(2, seed), random.Random(seed)
            while not state.is_over:
                state.apply_index(rng.randrange(len(state.legal_actions())))
            state.result()  # who won: what play_local (and any self-play) ends with
        middle = time.process_time()
        for seed in range(games):
            play_local(bots, game, seed=seed)
        ratios.append((time.process_time() - middle) / (middle - started))
    return statistics.median(ratios)


PARTS = ("mask", "vector", "JSON observation", "its vector")
"""What a PettingZoo step computes besides the engine's step, each timed alone: the mask,
the vector read from the state, and for comparison the JSON route (the observation, then
the vector made from it)."""


def part_rate(game: str, part: str, decisions: int = 1500) -> Measure:
    """Per second, how many of ``part`` (see :data:`PARTS`) one core makes, over the
    states of random two-player games: fresh states for each pass (so that no cache holds
    a state already seen), their legal actions made before the clock starts."""
    from goatarena.envs import numbering
    from goatarena.envs.vectors import encoder

    info, actions, vectors = GAMES[game], numbering(game), encoder(game)
    works: dict[str, Callable[[Any], object]] = {
        "mask": actions.mask,
        "vector": lambda state: vectors.encode_state(state, state.to_act),
        "JSON observation": lambda state: state.observation(state.to_act),
        "its vector": vectors.encode,
    }
    work = works[part]

    def measure(seconds: float) -> float:
        done, spent, seed = 0, 0.0, 0
        stop = time.perf_counter() + seconds
        rng = random.Random(0)
        while time.perf_counter() < stop:
            states: list[Any] = []
            while len(states) < decisions:
                state = info.new_state(2, seed)
                while not state.is_over:
                    state.legal_actions()
                    states.append(state.clone(random.Random(seed)))
                    state.apply_index(rng.randrange(len(state.legal_actions())))
                seed += 1
            for each in states:
                each.legal_actions()
            inputs: list[Any] = (
                [each.observation(each.to_act) for each in states]
                if part == "its vector"
                else states
            )
            started = time.process_time()
            for each in inputs:
                work(each)
            spent += time.process_time() - started
            done += len(inputs)
        return done / spent

    return measure


def optional(module: str) -> bool:
    """Whether ``module`` imports (the optional libraries of a comparison)."""
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def best_rates(measures: dict[str, Measure], seconds: float, rounds: int = 5) -> dict[str, float]:
    """Each measure's best rate over ``rounds`` rounds of ``seconds / rounds`` each, taken in
    turn, so that a busy spell of the machine slows every contender, not one."""
    best = dict.fromkeys(measures, 0.0)
    for _ in range(rounds):
        for name, measure in measures.items():
            best[name] = max(best[name], measure(seconds / rounds))
    return best


def main() -> None:
    """Measure and print the tables."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    seconds = parser.parse_args().seconds
    import pyspiel

    from goatarena.envs import openspiel, pettingzoo

    measures: dict[str, Measure] = {}
    for game in GAMES:
        measures[f"{game} engine"] = engine_rate(game)
        measures[f"{game} pettingzoo"] = pettingzoo_rate(lambda game=game: pettingzoo.env(game, 2))
        measures[f"{game} openspiel"] = openspiel_rate(
            lambda game=game: openspiel.load_game(game, 2, seed=0)
        )
        for part in PARTS:
            measures[f"{game} {part}"] = part_rate(game, part)
    references = ["OpenSpiel gin_rummy (C++)"]
    measures[references[0]] = openspiel_rate(lambda: pyspiel.load_game("gin_rummy"))
    if optional("rlcard") and optional("pygame"):
        from pettingzoo.classic import leduc_holdem_v4, texas_holdem_v4

        measures["PettingZoo leduc_holdem_v4"] = pettingzoo_rate(leduc_holdem_v4.env)
        measures["PettingZoo texas_holdem_v4"] = pettingzoo_rate(texas_holdem_v4.env)
        references += ["PettingZoo leduc_holdem_v4", "PettingZoo texas_holdem_v4"]
    rates = best_rates(measures, seconds)
    rlcard = max((rates[name] for name in references[1:]), default=0.0)
    gin = rates[references[0]]
    rows = []
    for game in GAMES:
        engine, zoo, spiel = (
            rates[f"{game} {way}"] for way in ("engine", "pettingzoo", "openspiel")
        )
        rows.append(
            [
                game,
                f"{engine:,.0f}",
                f"{zoo:,.0f}",
                f"{zoo / engine:.2f}",
                f"{zoo / rlcard:.1f}" if rlcard else "-",
                f"{spiel:,.0f}",
                f"{spiel / gin:.1f}",
                f"{play_local_ratio(game, seconds):.2f}",
            ]
        )
    headers = [
        "game (2 players)",
        "engine decisions/s",
        "PettingZoo steps/s",
        "/ engine (goal 0.5)",
        "/ RLCard (goal 5)",
        "OpenSpiel steps/s",
        "/ gin_rummy (goal 1)",
        "play_local time / engine (goal 1.5)",
    ]
    print(tabulate(rows, headers=headers))
    print()
    table = [[name, f"{rates[name]:,.0f}"] for name in references]
    if not rlcard:
        table.append(["PettingZoo RLCard games", "not measured: pip install 'goatarena[rl-bench]'"])
    print(tabulate(table, headers=["reference", "steps/s"]))
    print()
    rows = []
    for game in GAMES:
        costs = {part: 1e6 / rates[f"{game} {part}"] for part in PARTS}
        engine, zoo = 1e6 / rates[f"{game} engine"], 1e6 / rates[f"{game} pettingzoo"]
        rest = zoo - engine - costs["mask"] - costs["vector"]
        rows.append(
            [
                game,
                f"{zoo:.1f}",
                f"{engine:.1f}",
                f"{costs['mask']:.1f}",
                f"{costs['vector']:.1f}",
                f"{rest:.1f}",
                f"{costs['JSON observation']:.1f} + {costs['its vector']:.1f}",
            ]
        )
    headers = [
        "µs per step",
        "PettingZoo step",
        "engine",
        "mask",
        "vector",
        "the rest",
        "(JSON observation + its vector)",
    ]
    print(tabulate(rows, headers=headers))


if __name__ == "__main__":
    main()
