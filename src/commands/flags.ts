/** Flags more than one command declares alike, and what they mean together. */
import { duration, jobs, percent, positiveInt } from "../args/values.ts";
import type { Flags } from "../args/types.ts";
import {
  DEFAULT_MAX_TIME_S,
  DEFAULT_SIDE_TIME_MS,
  DEFAULT_TARGET,
  defaultJobs,
  MAX_DEFAULT_JOBS,
  type CompareRequest,
} from "../compare/plan.ts";
import { DEFAULT_FILES_PER_PROCESS } from "../compare/rounds/rounds.ts";
import { MEASURES, type Measure } from "../runner/valgrind.ts";
import { RUNTIMES, type Runtime } from "../model/result.ts";
import { usageError } from "../errors.ts";
import type { GateRule } from "../model/result.ts";

/** `--fail-on` and `--fail-above`, declared alike by compare and report. */
export const GATE_FLAGS = {
  "fail-on": {
    type: "enum",
    options: ["slower", "change"],
    description: "Exit 1 when a row's 95% interval lies wholly above 0 (slower), or wholly above or below 0 (change)",
  },
  "fail-above": {
    type: "string",
    valueHint: "PCT",
    description:
      "Exit 1 when a row's 95% interval lies wholly above +PCT%; a row whose interval holds PCT is listed as undecided and passes",
    parse: percent,
  },
} as const satisfies Flags;

/** What a compare of two commits runs and samples, declared alike by compare and history record. */
export const RUN_FLAGS = {
  bench: {
    type: "string",
    valueHint: "PATH|GLOB",
    description:
      'Bench file or glob, repeatable (default: package.json "xbench": { "bench": [...] }, else what vitest bench and deno bench find: **/*.{bench,benchmark}.?(c|m)[jt]s?(x), **/*_bench.ts)',
    repeatable: true,
  },
  target: {
    type: "string",
    valueHint: "PCT",
    description: `Add rounds until every row's 95% interval is within ±PCT percent (0.5 or 0.5%) of its delta (default: ${DEFAULT_TARGET * 100})`,
    parse: percent,
  },
  "max-time": {
    type: "string",
    valueHint: "S",
    description: `Measure for at most S seconds of wall time (or 90s, 2m), rows still wide or not; the minimum rounds included (default: ${DEFAULT_MAX_TIME_S})`,
    parse: duration("s"),
  },
  isolate: { type: "boolean", description: "One side per bench process instead of both sides alternating in one process" },
  jobs: {
    type: "string",
    valueHint: "N",
    description: `Bench processes run at once, each holding both sides (default: the cores xbench may use, at most ${MAX_DEFAULT_JOBS})`,
    parse: jobs,
  },
  "files-per-process": {
    type: "string",
    valueHint: "N",
    description: `Bench files one process measures one after another, each file's sides alternating as usual (default: ${DEFAULT_FILES_PER_PROCESS}; 1: a process per file)`,
    parse: positiveInt(1),
  },
  all: {
    type: "boolean",
    description: "Measure bench files whose code is the same on both sides too (otherwise their rows read: unchanged code)",
  },
  runtime: {
    type: "enum",
    options: RUNTIMES,
    description: "Runtime for the bench processes (default: the one the project's own tool runs its bench files with, else node)",
  },
  measure: {
    type: "enum",
    options: MEASURES,
    description:
      "What each row measures: time, or instructions or cycles (estimated from a cache simulation) per iteration counted under valgrind, which load does not move (not production time)",
    default: "time",
  },
  build: { type: "string", valueHint: "CMD", description: "Command run once per side before any timing" },
} as const satisfies Flags;

/** How long a bench process may run and how long it samples, alike for compare and bisect. */
export const TIME_FLAGS = {
  timeout: {
    type: "string",
    valueHint: "S",
    description: "Seconds one bench process may run before it is killed, per bench file it measures",
    default: "600",
    parse: duration("s"),
  },
  time: {
    type: "string",
    valueHint: "MS",
    description: `Sampling time per benchmark and side in each bench process, in ms (default: ${DEFAULT_SIDE_TIME_MS})`,
    parse: duration("ms"),
  },
} as const satisfies Flags;

/** The gate asked for, if any; one rule per run, so what failed is never ambiguous. */
export function gateRule(flags: { "fail-on"?: "slower" | "change"; "fail-above"?: number }): GateRule | undefined {
  const on = flags["fail-on"];
  const above = flags["fail-above"];
  if (on !== undefined && above !== undefined) throw usageError("--fail-on and --fail-above are one gate each; give one of them");
  if (on !== undefined) return { on };
  if (above !== undefined) return { on: "above", above: above / 100 };
  return undefined;
}

/** The flags of a bench-file run that compare and history record both take, as they read them. */
interface RunFlags {
  target?: number;
  "max-time"?: number;
  isolate: boolean;
  all: boolean;
  runtime?: Runtime;
  measure?: Measure;
  build?: string;
  install: boolean;
  timeout: number;
  time?: number;
  jobs?: number;
  "files-per-process"?: number;
  "min-effect"?: number;
}

/** What those flags ask of a compare's plan (`--target` typed in percent). */
export function runSettings(flags: RunFlags) {
  return {
    targetHalfWidth: flags.target !== undefined ? flags.target / 100 : undefined,
    maxTimeS: flags["max-time"],
    isolate: flags.isolate,
    all: flags.all,
    runtime: flags.runtime,
    measure: flags.measure,
    build: flags.build || undefined,
    install: flags.install,
    timeoutS: flags.timeout,
    sideTimeMs: flags.time,
    jobs: flags.jobs ?? defaultJobs(),
    filesPerProcess: flags["files-per-process"],
    minEffect: flags["min-effect"],
  } satisfies Partial<CompareRequest>;
}
