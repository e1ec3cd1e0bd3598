import { defineCommand } from "citty";
import { notBuiltYet } from "../cli/errors.ts";

export const compareCommand = defineCommand({
  meta: { name: "compare", description: "Benchmark the merge-base against the working tree, interleaved, with a paired 95% CI per row" },
  args: {
    filter: { type: "positional", required: false, description: "Substring or glob over bench files" },
    base: { type: "string", description: "Base ref (default: merge-base of HEAD with origin/main, main or master)" },
    head: { type: "string", description: "Head ref (default: the working tree, uncommitted edits included)" },
    rounds: { type: "string", description: "Rounds (rounded up to whole cycles of orderings)", default: "10" },
    runtime: { type: "enum", options: ["node", "bun", "deno"], description: "Runtime for the bench processes", default: "node" },
    build: { type: "string", description: "Command run once per side before any timing" },
    install: { type: "boolean", description: "Install dependencies per side instead of linking head's node_modules" },
    timeout: { type: "string", description: "Seconds one bench process may run before it is killed", default: "600" },
    json: { type: "string", description: "Write the result (JSON schema with raw rounds) to FILE, - for stdout" },
    markdown: { type: "string", description: "Write the markdown report to FILE" },
    comment: { type: "boolean", description: "On GitHub Actions, create or update one sticky PR comment" },
    holm: { type: "boolean", description: "Holm-correct the intervals across rows" },
    resume: { type: "string", description: "Continue an interrupted run from its run folder" },
  },
  run() {
    notBuiltYet("xbench compare");
  },
});
