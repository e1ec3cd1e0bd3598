/**
 * The result model of `xbench bench tracer`: what the suite measures and every renderer
 * reads. Written as JSON with `--json`. Bump TRACER_SCHEMA_VERSION on any breaking change.
 * Every time is in nanoseconds.
 */
import type { LoadAvg } from "../../model/result.ts";
import type { Spread } from "../../stats/quantile.ts";

export type { Spread } from "../../stats/quantile.ts";

export const TRACER_SCHEMA_ID = "xbench/bench-tracer";
export const TRACER_SCHEMA_VERSION = 1;

/** How the tracer follows the target: LD_PRELOAD shim (dynamic target) or seccomp supervisor (static target). */
export type Backend = "preload" | "seccomp";
export const BACKENDS: readonly Backend[] = ["preload", "seccomp"];

/**
 * `launch`: wall clock of a tracked launch of a target that opens nothing.
 * `access`: the target's own median time of a batch of 8 opens of a missing path.
 */
export type RowName = "launch" | "access";
export const ROW_NAMES: readonly RowName[] = ["launch", "access"];

/** head: this build's helpers; base: `--base-helper`; untracked: the target run directly. */
export type ArmName = "head" | "base" | "untracked";

/** What one launch of the target does: threads started together, opens per thread. */
export interface Workload {
  threads: number;
  opens: number;
}

/** Per-iteration values of each arm, in iteration order; `base` only with a base arm. */
export interface ArmSamples {
  head: number[];
  base?: number[];
  untracked: number[];
}

/** One row of the report: one backend, one workload. */
export interface TracerRow {
  backend: Backend;
  row: RowName;
  workload: Workload;
  samples: ArmSamples;
  /** Median of each arm's values. */
  medians: { head: number; base?: number; untracked: number };
  /** Median of the per-iteration head/base - 1, with quartiles (type 7); absent without a base arm. */
  change?: Spread;
  /** Tracking against the untracked run: median of the per-iteration arm/untracked - 1. */
  overhead: { head: Spread; base?: Spread };
}

export interface TracerResult {
  schema: typeof TRACER_SCHEMA_ID;
  schemaVersion: number;
  xbenchVersion: string;
  /** `process.platform` and `process.arch` of the machine that measured. */
  os: string;
  arch: string;
  /** `os.release()` of the machine that measured; absent in results of older xbench versions. */
  kernel?: string;
  backends: Backend[];
  arms: ArmName[];
  /** Iterations asked for, run (whole cycles of orderings), per cycle, warm-up ones not counted, and the orderings' seed. */
  iterations: { requested: number; planned: number; cycle: number; warmup: number; seed: number };
  /** Passes over the iteration's ordering per row; an arm's iteration value is the median of its passes. */
  passes: Record<RowName, number>;
  /** Folders of the helper builds each tracked arm used. */
  helpers: { head: string; base?: string };
  loadavg: { start: LoadAvg; end: LoadAvg };
  startedAt: string;
  finishedAt: string;
  rows: TracerRow[];
}
