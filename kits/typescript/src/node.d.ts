// The little of Node's API the kit uses, declared here so that building needs nothing
// but the pinned TypeScript compiler (no @types/node).

interface NodeInput {
  setEncoding(encoding: "utf8"): void;
  on(event: "data", listener: (chunk: string) => void): void;
  on(event: "end", listener: () => void): void;
}

interface NodeOutput {
  write(text: string): boolean;
}

declare const process: {
  stdin: NodeInput;
  stdout: NodeOutput;
  stderr: NodeOutput;
  argv: string[];
  exit(code?: number): never;
  exitCode: number | undefined;
};

declare function require(module: "node:fs"): {
  readdirSync(path: string): string[];
  readFileSync(path: string, encoding: "utf8"): string;
};
declare const __dirname: string;
