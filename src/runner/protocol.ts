/**
 * How xbench and a bench process talk: a job as JSON in the environment, and results as
 * JSON lines appended to a file, one the moment each row is measured, so whatever a process
 * measured before it crashed or timed out is kept. Never scraped from human output.
 */
import type { Side, Unit } from "../model/result.ts";

export const CHILD_PROTOCOL = 4;

/** One side's compiled bench file, loaded into the bench process in the order given. */
export interface JobSide {
  side: Side;
  bundle: string;
}

/**
 * `inventory`: load the sides and list what they register, measure nothing.
 * `duet`: load both sides and measure their mitata benchmarks alternately.
 * `isolated`: load one side and measure `parts` of it.
 */
export type JobKind = "inventory" | "duet" | "isolated";

/** `timed`: mitata benchmarks; `extras`: xbench metrics and command rows. */
export type JobParts = "timed" | "extras" | "all";

/** How long batches are and how much time each side gets, per benchmark and process. */
export interface SamplingBudget {
  /** Target length of one batch; the bench process never goes below 1 ms or 1000 ticks of its clock. */
  batchNs: number;
  /** Time each side spends in measured batches. */
  sideNs: number;
  /** Time each side spends warming up, at least, before the first measured batch. */
  warmupNs: number;
  /** Fewest measured batches per side, however long a batch is. */
  minBatches: number;
}

/** What a counting bench process counts: instructions, or cycles estimated from the cache simulation. */
export type CountMeasure = "instructions" | "cycles";

/** How a counting bench process samples each benchmark (runner/child/count-sampler.ts). */
export interface CountBudget {
  /** Events (instructions or estimated cycles) a measured window holds at least. */
  windowEvents: number;
  /** Measured windows per side, alternating A B B A. */
  windows: number;
  /** Calls a side's warm-up makes at least, unless it counted `warmupEvents` first (a costly call). */
  warmupCalls: number;
  /** Events a side's warm-up counts at least, unless it made `warmupCalls` first (a cheap call). */
  warmupEvents: number;
  /** Counted windows a side may take to stop getting cheaper before the measured ones. */
  settleWindows: number;
}

/** What an access costs in estimated cycles, by where the cache simulation served it. */
export interface CycleWeights {
  l1: number;
  ll: number;
  ram: number;
}

/**
 * Estimated cycles' weights: an L1 hit 1, a last-level hit 5, a memory access 35 (the convention
 * of Rust's iai and of other callgrind-based harnesses; docs/counting.md, "Estimated cycles").
 */
export const CYCLE_WEIGHTS: CycleWeights = { l1: 1, ll: 5, ram: 35 };

/** A bench process run under callgrind (docs/counting.md). */
export interface CountingJob {
  measure: CountMeasure;
  /** `cycles`: the weights of the accesses (CYCLE_WEIGHTS). */
  weights: CycleWeights;
  /** The native module that issues valgrind's client requests (native/linux/counter.c). */
  addon: string;
  /** callgrind's --callgrind-out-file: its dumps are `<out>.1`, `<out>.2`, … */
  out: string;
  budget: CountBudget;
}

/**
 * One bench file of a shared process: its sides' bundles, in the order loaded, and what to
 * measure of it. A shared process measures its files one after the other, each as a duet of its
 * own (docs/compare.md, "Files share a process").
 */
export interface JobFile {
  /** The bench file, repo-relative: rows and lines of this file carry it. */
  file: string;
  sides: JobSide[];
  layout?: LayoutDraw;
  labels?: string[];
  rowBudgets?: Record<string, SamplingBudget>;
}

export interface Job {
  protocol: typeof CHILD_PROTOCOL;
  kind: JobKind;
  sides: JobSide[];
  parts: JobParts;
  budget: SamplingBudget;
  /** argv prefix of xbench-exec-stats (or `xbench exec-stats`), which times a command row. */
  execStats?: string[];
  /** Where the bench process draws a random heap layout (docs/compare.md, "Layout"). */
  layout?: LayoutDraw;
  /** Only these timed labels (rows still open, or a profiled process's one row); all when absent. */
  labels?: string[];
  /** Per timed label, a budget other than `budget` (compare/rounds/allocate.ts sizes each row's sampling). */
  rowBudgets?: Record<string, SamplingBudget>;
  /** A shared process (kind `duet`, parts `timed`): these files one after the other; `sides`, `layout`, `labels` and `rowBudgets` are then per file. */
  files?: JobFile[];
  /** Count instead of timing: the process runs under callgrind. */
  counting?: CountingJob;
}

/**
 * `process`: once, before anything loads (a process that runs one side); `side`: before each
 * side loads (a duet of two different builds); `none`: a duet of identical code, or
 * XBENCH_LAYOUT=fixed.
 */
export type LayoutDraw = "process" | "side" | "none";

/** What one side of a bench file registers. */
export interface SideInventory {
  benchmarks: string[];
  /** Benchmark APIs other than mitata that the file loaded (vitest, tinybench, Benchmark.js, Deno.bench). */
  apis?: string[];
  metrics: Array<{ label: string; unit: Unit }>;
  commands: string[];
  isolate: boolean;
  /** Benchmarks the file declares and skips (`bench.skip`, `skipIf`, `.only` elsewhere, Deno's `ignore`). */
  skipped?: string[];
}

/** One row of one side measured in this process, or the error it threw. */
export interface ChildRow {
  label: string;
  side: Side;
  unit: Unit;
  /**
   * A measurement that varies from run to run although its unit is not time (a command's
   * peak RSS): compared with a paired interval like a time, not exactly like a count.
   */
  sampled?: true;
  value?: number;
  error?: string;
  /** Measured batches behind a timed value. */
  batches?: number;
  /** Iterations per measured batch of a timed value. */
  iterations?: number;
  /** Median length of a measured batch of a timed value, in ns (at least 1 ms: sampler.ts batchFloorNs). */
  batchNs?: number;
  /** The value of the first and of the second half of the measured batches (sampler.ts halfValues). */
  halves?: [number, number];
  /** Time the side spent warming up before its first measured batch, in ns. */
  warmupNs?: number;
  /** In a shared process: the bench file the row belongs to. */
  file?: string;
  /** A counted row: its measured windows' wall and CPU time, and what it waited for (count-sampler.ts). */
  counted?: CountedTime;
  /** A counted row: callgrind's events per iteration (Ir, and with the cache simulation Dr, D1mr, …). */
  events?: Record<string, number>;
  /** A counted row: what an empty benchmark counts per iteration in the same process (the loop alone). */
  floor?: number;
}

/**
 * The time a counted row's measured windows took under valgrind. Counts see only the
 * process's own instructions: a row that spends its windows waiting (timers, I/O) or in the
 * kernel is mostly outside them (report/row-stats.ts flags it).
 */
export interface CountedTime {
  wallNs: number;
  /** User and system CPU time of the process meanwhile. */
  cpuNs: number;
  systemNs: number;
  /** Voluntary context switches meanwhile: the process waited for something. */
  waits?: number;
}

export type ChildLine =
  | ({ t: "inventory"; side: Side } & SideInventory)
  | ({ t: "row" } & ChildRow)
  | { t: "load-error"; side: Side; message: string; file?: string }
  | { t: "file-end"; file: string; ms: number }
  | { t: "end" };

/** Environment variables the parent sets for a bench process. */
export const CHILD_ENV = {
  /** The Job, as JSON. */
  job: "XBENCH_JOB",
  /** Where the child appends its ChildLines. */
  resultFile: "XBENCH_RESULT_FILE",
} as const;

/** Everything a bench process wrote, a torn last line (the process died mid-write) dropped. */
export interface ChildReport {
  inventories: Partial<Record<Side, SideInventory>>;
  rows: ChildRow[];
  loadErrors: Partial<Record<Side, string>>;
  /** The process wrote its last line: it finished every row it was asked for. */
  ended: boolean;
  /** A shared process: per file that failed to load, why (the process went on to the next file). */
  fileLoadErrors: Record<string, string>;
  /** A shared process: per file it finished, the time the file took in the process (ms), its load included. */
  fileEnds: Record<string, number>;
}

export function parseChildLines(text: string): ChildReport {
  const report: ChildReport = { inventories: {}, rows: [], loadErrors: {}, ended: false, fileLoadErrors: {}, fileEnds: {} };
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    let parsed: ChildLine;
    try {
      parsed = JSON.parse(line) as ChildLine;
    } catch {
      continue;
    }
    if (parsed.t === "row") {
      const { t: _, ...row } = parsed;
      report.rows.push(row);
    } else if (parsed.t === "inventory") {
      const { t: _, side, ...inventory } = parsed;
      report.inventories[side] = inventory;
    } else if (parsed.t === "load-error") {
      if (parsed.file === undefined) report.loadErrors[parsed.side] = parsed.message;
      else report.fileLoadErrors[parsed.file] ??= parsed.message;
    } else if (parsed.t === "file-end") report.fileEnds[parsed.file] = parsed.ms;
    else if (parsed.t === "end") report.ended = true;
  }
  return report;
}
