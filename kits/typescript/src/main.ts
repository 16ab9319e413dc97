// The bot's entry point: ./bot runs the compiled dist/main.js.
import { run } from "./agent";
import { ExampleBot } from "./bot";

run(new ExampleBot());
