// The example bot: a simple heuristic per game, a seeded random choice where it has none.
// Replace decide() with your own; run.ts starts it, agent.ts speaks the protocol.

import { type Bot, type GameStart, type Request, log } from "./agent";
import type {
  GoatLordsMove,
  GoatLordsObservation,
  GoatLordsWord,
  MountainGoatsAction,
  MountainGoatsObservation,
} from "./protocol";

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

const GOAT_LORDS_POINTS: Record<string, number> = {
  baby: 5, ladypug: 5, foodie: 5, ghoast: 10, fairy: 10, tgoat: 10,
  ninja: 15, kraken: 15, dragon: 20, goatacorn: 20, goatini: 25, lord: 50,
};

/** Goat Lords: births of the best cards, then duels, then the cheapest discard. */
export function goatLordsValue(action: GoatLordsMove | GoatLordsWord, _seen: GoatLordsObservation): number {
  if (typeof action === "string") return 0; // yield
  if (action.birth) return 100 + GOAT_LORDS_POINTS[action.birth];
  if (action.assisted_birth) return 100 + GOAT_LORDS_POINTS[action.assisted_birth];
  if (action.duel !== undefined && action.play) return 50 - GOAT_LORDS_POINTS[action.play] / 10;
  if (action.play) return 10; // answer a duel rather than yield
  if (action.discard) return -GOAT_LORDS_POINTS[action.discard];
  return 0;
}

const HEURISTICS: Record<string, (action: never, seen: never) => number> = {
  "mountain-goats": mountainGoatsValue,
  "goat-lords": goatLordsValue,
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
