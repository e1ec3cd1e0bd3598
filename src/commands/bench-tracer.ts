import { existsSync, statSync } from "node:fs";
import { resolve } from "pathe";
import { defineCommand } from "../args/define.ts";
import { usageError } from "../errors.ts";
import { runTracerBenchWithProgress } from "../output/tracer-progress.ts";
import { checkOutputTargets, prettyJson, writeReport } from "../output/writer.ts";
import { BACKENDS, DEFAULT_ITERATIONS, renderMarkdown, renderTerminal, type Backend } from "../suites/tracer/index.ts";

/** `--iterations`: a whole number >= 1. */
export function parseIterations(value: string | undefined): number {
  if (value === undefined) return DEFAULT_ITERATIONS;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw usageError(`--iterations must be a whole number >= 1, got ${value}`);
  return Number(value);
}

/** `--backends preload,seccomp`: known names, no repeats, at least one. */
export function parseBackends(value: string): Backend[] {
  const names = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0) throw usageError(`--backends needs at least one of ${BACKENDS.join(", ")}`);
  for (const name of names) {
    if (!BACKENDS.includes(name as Backend)) throw usageError(`unknown backend ${name}; one of ${BACKENDS.join(", ")}`);
  }
  return [...new Set(names)] as Backend[];
}

function parseBaseHelper(value: string): string {
  const dir = resolve(value);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw usageError(`--base-helper ${value} is not a folder`);
  return dir;
}

export const benchTracerCommand = defineCommand({
  meta: {
    name: "tracer",
    description: "Tracking overhead of the tracer: launch and access rows per backend",
  },
  args: {
    "base-helper": {
      type: "string",
      path: "dir",
      description: "Folder with another build of the helpers (the base arm)",
      parse: parseBaseHelper,
    },
    iterations: {
      type: "string",
      valueHint: "N",
      description: "Iterations, rounded up to whole cycles of orderings",
      default: String(DEFAULT_ITERATIONS),
      parse: parseIterations,
    },
    backends: { type: "string", description: "Backends to measure", default: "preload,seccomp", parse: parseBackends },
    json: { type: "string", path: "file", description: "Write results as JSON to FILE, - for stdout" },
    markdown: { type: "string", path: "file", description: "Write the markdown report to FILE" },
  },
  examples: ["xbench bench tracer", "xbench bench tracer --backends preload --markdown tracer.md"],
  async run({ flags }) {
    const { iterations, backends } = flags;
    const baseHelperDir = flags["base-helper"];
    const targets = { json: flags.json, markdown: flags.markdown };
    checkOutputTargets(targets);
    const result = await runTracerBenchWithProgress({ baseHelperDir, iterations, backends });
    writeReport({ table: renderTerminal(result), json: prettyJson(result), markdown: renderMarkdown([result]) }, targets);
    return 0;
  },
});
