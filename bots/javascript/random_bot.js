#!/usr/bin/env node
// A goatarena bot in plain Node.js (20+, no packages): a uniformly random legal action.
//
// It speaks protocol v1 (docs/protocol.md) on stdin/stdout, one JSON object per line,
// and plays every game, since it only ever picks an index into the offered actions.
// Its choices come from a small seeded generator (mulberry32), reseeded from the seed of
// every `start` message, so a game between seeded bots replays exactly.
// Run it: node bots/javascript/random_bot.js [NAME]
'use strict';

const readline = require('node:readline');

const name = process.argv[2] || 'random-js';

// mulberry32: a 32-bit state, good enough for fair random choices and easy to reproduce.
function mulberry32(seed) {
  let state = seed >>> 0;
  return function next() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let random = mulberry32(0);

function send(message) {
  // On Linux a write to a pipe is synchronous, so the line is out before the next read.
  process.stdout.write(JSON.stringify(message) + '\n');
}

function handle(message) {
  switch (message.type) {
    case 'hello':
      send({ type: 'hello', name });
      break;
    case 'start':
      random = mulberry32(Number(message.seed) || 0);
      break;
    case 'decide': {
      const index = Math.floor(random() * message.actions.length);
      send({ type: 'action', index, decision: message.decision });
      break;
    }
    case 'quit':
      process.exit(0);
      break;
    default:
      // `end` and any message type this bot does not know: nothing to answer.
      break;
  }
}

const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
input.on('line', (line) => {
  if (line.trim() === '') return;
  let message;
  try {
    message = JSON.parse(line);
  } catch (error) {
    process.stderr.write(`random-js: skipping a line that is not JSON: ${error.message}\n`);
    return;
  }
  if (message !== null && typeof message === 'object') handle(message);
});
// The referee went away (stdin closed): nothing more will come.
input.on('close', () => process.exit(0));
