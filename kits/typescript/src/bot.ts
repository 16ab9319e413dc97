// The example bot: a simple heuristic in Mountain Goats, a seeded random choice elsewhere.
// Replace decide() with your own; run.ts starts it, agent.ts speaks the protocol.

import { type Bot, type GameStart, type Request, log } from "./agent";
import type { MountainGoatsAction, MountainGoatsObservation } from "./protocol";

/** A small seeded generator (mulberry32), reseeded from each game's seed. */
export function generator(seed: bigint): () => number {
  let state = Number(seed & 0xffffffffn) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Mountain Goats: climb where a token is to be had, else as many steps as possible. */
export function mountainGoatsValue(action: MountainGoatsAction, seen: MountainGoatsObservation): number {
  const steps = [...seen.steps[seen.seat]];
  let value = 0;
  for (const mountain of action.move) {
    const at = seen.mountains.indexOf(mountain);
    if (steps[at] >= seen.heights[at]) {
      value += seen.supply[at] > 0 ? mountain : 0; // on the summit: a token
    } else {
      steps[at] += 1;
      value += steps[at] === seen.heights[at] && seen.supply[at] > 0 ? mountain : 1;
    }
  }
  return value;
}

const HEURISTICS: Record<string, (action: never, seen: never) => number> = {
  "mountain-goats": mountainGoatsValue,
};

/** The index of the best action by the game's heuristic, ties broken at random. */
export function choose(request: Request, random: () => number): number {
  const { actions, observation } = request.decide;
  const value = HEURISTICS[request.start.game] as
    | ((action: unknown, seen: unknown) => number)
    | undefined;
  if (value === undefined) return Math.floor(random() * actions.length);
  let best: number[] = [];
  let bestValue = -Infinity;
  actions.forEach((action, index) => {
    const score = value(action, observation);
    if (score > bestValue) [best, bestValue] = [[index], score];
    else if (score === bestValue) best.push(index);
  });
  return best[Math.floor(random() * best.length)];
}

/** The example bot. */
export class ExampleBot implements Bot {
  name = "typescript-example";
  author = "";
  private random = generator(0n);

  start(start: GameStart): void {
    this.random = generator(start.seed);
    log(`game ${start.game}, seat ${start.seat} of ${start.players.length}, seed ${start.seed}`);
  }

  decide(request: Request): number {
    return choose(request, this.random);
  }
}
