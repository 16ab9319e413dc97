// The kit's unit test (make test): every fixture (fixtures/*.json, lines a seat was sent
// in real games, written by the engines) through the agent and the example bot.

import { Agent, topLevelNumber } from "./agent";
import { ExampleBot } from "./bot";

interface Fixture {
  game: string;
  seed: string;
  lines: string[];
}

const fs = require("node:fs");
const folder = __dirname + "/../fixtures";
let failures = 0;

function check(condition: boolean, what: string): void {
  if (!condition) {
    failures++;
    process.stderr.write(`FAIL ${what}\n`);
  }
}

for (const name of fs.readdirSync(folder).filter((file) => file.endsWith(".json")).sort()) {
  const fixture: Fixture = JSON.parse(fs.readFileSync(`${folder}/${name}`, "utf8"));
  const written: string[] = [];
  const bot = new ExampleBot();
  const seeds: bigint[] = [];
  const start = bot.start.bind(bot);
  bot.start = (game) => {
    seeds.push(game.seed);
    start(game);
  };
  const agent = new Agent(bot, (line) => written.push(line));
  const decides = fixture.lines.map((line) => JSON.parse(line)).filter((m) => m.type === "decide");
  let going = true;
  for (const line of fixture.lines) going = going && agent.handle(line);
  check(!going, `${name}: quit ends the loop`);
  check(seeds.length === 1 && seeds[0].toString() === fixture.seed, `${name}: seed read exactly`);
  check(
    topLevelNumber('{"options":{"seed":1},"seed":18446744073709551615}', "seed") === "18446744073709551615",
    "a nested seed field is not the seed",
  );
  const answers = written.map((line) => JSON.parse(line));
  check(answers[0]?.type === "hello" && answers[0].name === bot.name, `${name}: hello first`);
  check(answers.length === decides.length + 1, `${name}: one answer per decide`);
  decides.forEach((decide, at) => {
    const answer = answers[at + 1];
    check(
      answer?.type === "action" &&
        answer.decision === decide.decision &&
        Number.isInteger(answer.index) &&
        answer.index >= 0 &&
        answer.index < decide.actions.length,
      `${name}: decision ${decide.decision} answered with a legal index`,
    );
  });
  process.stdout.write(`${name}: ${decides.length} decisions\n`);
}

if (failures > 0) {
  process.stderr.write(`${failures} checks failed\n`);
  process.exit(1);
}
process.stdout.write("all fixtures pass\n");
