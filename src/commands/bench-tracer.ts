import { existsSync, statSync, writeFileSync } from "node:fs";
import { resolve } from "pathe";
import { defineCommand } from "citty";
import { usageError } from "../errors.ts";
import { log } from "../output/log.ts";
import { BACKENDS, DEFAULT_ITERATIONS, renderMarkdown, renderTerminal, runTracerBench, type Backend, type TracerBenchOptions, type TracerResult } from "../suites/tracer/index.ts";

/** `--iterations`: a whole number >= 1. */
export function parseIterations(value: string | undefined): number {
  if (value === undefined) return DEFAULT_ITERATIONS;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw usageError(`--iterations must be a whole number >= 1, got ${value}`);
  return Number(value);
}

/** `--backends preload,seccomp`: known names, no repeats, at least one. */
export function parseBackends(value: string): Backend[] {
  const names = value.split(",").map((s) => s.trim()).filter(Boolean);
  if (names.length === 0) throw usageError(`--backends needs at least one of ${BACKENDS.join(", ")}`);
  for (const name of names) {
    if (!BACKENDS.includes(name as Backend)) throw usageError(`unknown backend ${name}; one of ${BACKENDS.join(", ")}`);
  }
  return [...new Set(names)] as Backend[];
}

function parseBaseHelper(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const dir = resolve(value);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw usageError(`--base-helper ${value} is not a folder`);
  return dir;
}

/** The suite with its steps and every sixth iteration said on stderr. */
export async function runTracerBenchWithProgress(options: TracerBenchOptions): Promise<TracerResult> {
  const started = Date.now();
  const result = await runTracerBench({
    ...options,
    onStep: (message) => log.info(message),
    onIteration: (done, total) => {
      if (done === total || done % 6 === 0) log.info(`iteration ${done}/${total}`);
    },
  });
  log.info(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

/** The table on stdout (stderr when `--json -` takes stdout), `--json FILE`, `--markdown FILE`. */
export function writeTracerReport(result: TracerResult, outputs: { json?: string; markdown?: string }): void {
  const table = renderTerminal(result);
  if (outputs.json === "-") {
    process.stderr.write(table);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } else {
    process.stdout.write(table);
    if (outputs.json) writeFileSync(outputs.json, `${JSON.stringify(result, null, 2)}\n`);
  }
  if (outputs.markdown) writeFileSync(outputs.markdown, renderMarkdown([result]));
}

export const benchTracerCommand = defineCommand({
  meta: { name: "tracer", description: "Tracking overhead of the tracer: launch and access rows per backend" },
  args: {
    "base-helper": { type: "string", valueHint: "DIR", description: "Folder with another build of the helpers (the base arm)" },
    iterations: { type: "string", valueHint: "N", description: `Iterations, rounded up to whole cycles of orderings (default: ${DEFAULT_ITERATIONS})` },
    backends: { type: "string", description: "Backends to measure", default: "preload,seccomp" },
    json: { type: "string", description: "Write results as JSON to FILE, - for stdout" },
    markdown: { type: "string", description: "Write the markdown report to FILE" },
  },
  async run({ args }) {
    const iterations = parseIterations(args.iterations);
    const backends = parseBackends(args.backends);
    const baseHelperDir = parseBaseHelper(args["base-helper"]);
    const result = await runTracerBenchWithProgress({ baseHelperDir, iterations, backends });
    writeTracerReport(result, { json: args.json, markdown: args.markdown });
  },
});
