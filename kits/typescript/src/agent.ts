// The agent loop of a goatarena bot (protocol v1, docs/protocol.md): it reads the
// referee's lines from stdin, keeps per-game state, asks the bot for each decision and
// writes one flushed line per answer. Nothing here depends on the game: see bot.ts.

import type { Decide, End, Start } from "./protocol";

/** The start of a game, its seed exact: JSON.parse would round a seed above 2^53. */
export interface GameStart extends Omit<Start, "seed"> {
  seed: bigint;
}

/** One decision to make: the referee's decide plus the time left for it. */
export interface Request {
  decide: Decide;
  start: GameStart;
  /** Milliseconds left to answer this decision (time_ms, less what has passed). */
  timeLeftMs(): number;
}

/** What a bot implements: its name, and an index into the offered actions per decision. */
export interface Bot {
  name: string;
  author?: string;
  start?(start: GameStart): void;
  decide(request: Request): number;
  end?(end: End, start: GameStart): void;
}

/** A line for the bot's own log: stderr, which the referee keeps and never parses. */
export function log(...parts: unknown[]): void {
  process.stderr.write(parts.map(String).join(" ") + "\n");
}

/**
 * The text of a top-level number field of a JSON object line, read without JSON.parse
 * so that no digit is lost ("seed" of start is an unsigned 64-bit integer).
 */
export function topLevelNumber(line: string, key: string): string | undefined {
  let depth = 0;
  for (let at = 0; at < line.length; at++) {
    const char = line[at];
    if (char === '"') {
      let end = at + 1;
      while (line[end] !== '"') end += line[end] === "\\" ? 2 : 1;
      const text = line.slice(at + 1, end);
      at = end;
      if (depth === 1 && text === key) {
        const match = /^\s*:\s*(-?\d+)/.exec(line.slice(end + 1));
        if (match) return match[1];
      }
    } else if (char === "{" || char === "[") {
      depth++;
    } else if (char === "}" || char === "]") {
      depth--;
    }
  }
  return undefined;
}

/** Handles the referee's lines one at a time; `write` sends one line (newline added). */
export class Agent {
  private start: GameStart | undefined;

  constructor(
    private readonly bot: Bot,
    private readonly write: (line: string) => void,
  ) {}

  /** Handle one line from the referee; false once the referee said quit. */
  handle(line: string): boolean {
    const received = Date.now();
    if (line.trim() === "") return true;
    const message = JSON.parse(line);
    switch (message.type) {
      case "hello":
        this.send({ type: "hello", name: this.bot.name, protocol: 1, author: this.bot.author ?? "" });
        break;
      case "start":
        this.start = { ...message, seed: BigInt(topLevelNumber(line, "seed") ?? "0") };
        this.bot.start?.(this.start!);
        break;
      case "decide": {
        const decide = message as Decide;
        const start = this.start!;
        const index = this.bot.decide({
          decide,
          start,
          timeLeftMs: () => decide.time_ms - (Date.now() - received),
        });
        this.send({ type: "action", index, decision: decide.decision });
        break;
      }
      case "end":
        if (this.start) this.bot.end?.(message as End, this.start);
        break;
      case "quit":
        return false;
      default:
        break; // a message type this version does not know: skip it
    }
    return true;
  }

  private send(message: object): void {
    this.write(JSON.stringify(message));
  }
}

/**
 * Run `bot` on stdin and stdout until quit or the end of input. The answers have stdout to
 * themselves: from here on the bot's own prints (`console.log`, `process.stdout.write`) go
 * to stderr, its log, and can never land inside an answer.
 */
export function run(bot: Bot): void {
  const answer = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind(process.stderr);
  // On Linux a write to a pipe is synchronous: the line is out before the next read.
  const agent = new Agent(bot, (line) => answer(line + "\n"));
  let pending = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk: string) => {
    pending += chunk;
    let newline: number;
    while ((newline = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (!agent.handle(line)) process.exit(0);
    }
  });
  process.stdin.on("end", () => process.exit(0));
}
