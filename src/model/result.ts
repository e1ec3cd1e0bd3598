/**
 * The result model: what `compare` measures and every renderer reads. Saved as JSON with
 * `--json`; `xbench report` re-renders it. Bump SCHEMA_VERSION on any breaking change: schema 5
 * added counted rows (units `instructions` and `cycles`, status `uncounted`, the result's
 * `measure`), rows a file skips (status `skipped`) and the intervals' `coverage`.
 */
import type { ProfileSummary, RowProfile } from "./profile.ts";
import type { Side } from "./side.ts";

export type { Side } from "./side.ts";

export const SCHEMA_ID = "xbench/compare";
export const SCHEMA_VERSION = 5;

/** Runtimes a compare can run bench processes under (runner/runtimes.ts says how). */
export const RUNTIMES = ["node", "bun", "deno"] as const;
export type Runtime = (typeof RUNTIMES)[number];
/**
 * `slower`/`faster`: the interval excludes zero (and is not within ±minEffect); `same`: the interval
 * lies within ±minEffect, no change beyond it; `~`: the interval holds zero and reaches beyond
 * ±minEffect, too wide to tell. Schema 3 added `same`.
 */
export type Verdict = "slower" | "faster" | "same" | "~";
export type ExactVerdict = "same" | "more" | "fewer";
/**
 * How a timed row was measured: `duet`, both sides alternately in one process (the default);
 * `isolated`, one side per process; `mixed` when its rounds used both.
 */
export type MeasureMode = "duet" | "isolated" | "mixed";

/**
 * `ns`: time per iteration; `instructions` and `cycles`: what callgrind counted per iteration
 * (`compare --measure`, docs/counting.md), paired like times; `count` and `bytes` are exact and
 * never given an interval.
 */
export type Unit = "ns" | "instructions" | "cycles" | "count" | "bytes";

/** Units of a benchmark's own iterations, measured alternately and compared with a paired interval. */
export const PER_ITERATION_UNITS: readonly Unit[] = ["ns", "instructions", "cycles"];

/** Whether a row's values are per iteration of a benchmark (a time or a count of its work). */
export function perIteration(unit: Unit): boolean {
  return PER_ITERATION_UNITS.includes(unit);
}

/** Whether a unit is a count of work per iteration (`--measure instructions|cycles`). */
export function isCountedUnit(unit: Unit): boolean {
  return unit === "instructions" || unit === "cycles";
}

export interface RevisionInfo {
  /** What the user asked for (`main`, `HEAD`, `working tree`). */
  ref: string;
  /** Full commit SHA the side was built from. */
  sha: string;
  /** Head only: the working tree had uncommitted changes. */
  dirty: boolean;
  /**
   * Head only, when dirty: both sides still ran the same code (the same commit, and the tree
   * differs from it only by untracked files and the bench files, which both sides run), so the
   * run is an A/A run.
   */
  sameCode?: boolean;
}

/** One-, five- and fifteen-minute load averages. */
export type LoadAvg = [number, number, number];

/** Per-round raw values of one benchmark on one side; `null` where that round did not produce one. */
export type Rounds = Array<number | null>;

/**
 * The paired statistics of a timed row (docs/statistics.md). Files written before the
 * signed-rank method lack `method` and `halfWidth`: their delta, ci and p came from the paired
 * t-interval on mean log ratios.
 */
export interface PairedStats {
  n: number;
  /** exp(Hodges–Lehmann estimate of ln(h/b)) - 1 (t-interval files: exp(mean ln(h/b)) - 1) */
  delta: number;
  /**
   * Interval of delta at confidence `level` (Holm-adjusted when the result says so). Unbounded,
   * [-1, Infinity], when there are too few rounds for the level (at 95%: fewer than 6).
   */
  ci: [number, number];
  verdict: Verdict;
  baseMedian: number;
  headMedian: number;
  /** The fspy view: median of per-round h/b - 1 with its quartiles. */
  ratioMedian: number;
  ratioQ1: number;
  ratioQ3: number;
  /**
   * Two-sided p-value of the Wilcoxon signed-rank test (t-interval files: the paired t-test).
   * Without tied or zero log ratios, p <= 1 - level exactly when `ci` excludes zero; with them
   * (rounded inputs) the test's midranks and the interval's Walsh averages can disagree near the
   * boundary, and the verdict follows the interval.
   */
  p?: number;
  /** Holm-adjusted p-value, when the result is Holm-corrected. */
  pAdjusted?: number;
  /** Achieved confidence level of `ci`: >= 0.95 (the signed-rank statistic is discrete), higher when Holm-adjusted. */
  level?: number;
  /** (upper - lower) / 2 of `ci`; Infinity when unbounded. */
  halfWidth?: number;
  /**
   * How delta, ci and p were computed; absent in files from the t-interval. `crossover`: a
   * counted row, the rounds grouped by which side ran first (docs/statistics.md).
   */
  method?: "signed-rank" | "crossover";
}

export interface ExactComparison {
  base: number;
  head: number;
  /** head - base */
  difference: number;
  verdict: ExactVerdict;
  /** The rounds of a side disagreed, so `base`/`head` are medians over rounds (stats/exact.ts). */
  varies?: boolean;
}

/**
 * `unchanged`: the bench file's code is the same on both sides (bundles and packages), so it was
 * not measured. `no-work`: both sides ran under NO_WORK_NS per iteration, the cost of an empty
 * loop: the benchmark's body was most likely optimized away, so it gets no interval and no
 * verdict (its rounds are kept). `skipped`: the file declares the benchmark and its API skips it
 * (`bench.skip`, `bench.skipIf(true)`, `todo`, left out by `.only`, Deno's `ignore`): listed as
 * its tool lists it, never measured. Schema 4 added `no-work`; `skipped` came after it.
 */
export type RowStatus = "ok" | "new" | "removed" | "failed" | "unchanged" | "no-work" | "uncounted" | "skipped";

/**
 * A counted row (`--measure instructions|cycles`) whose measured windows were mostly not its own
 * instructions: `waits`, the process waited (timers, I/O) for most of their wall time; `kernel`,
 * its CPU time was mostly the kernel's (system calls). Counts see neither, so the row gets no
 * interval and no verdict (status `uncounted`; docs/counting.md, "What counts cannot see").
 */
export interface Uncounted {
  why: "waits" | "kernel";
  /** The share of the windows' wall time waited, or of their CPU time in the kernel. */
  share: number;
}

/**
 * Below this time per iteration on both sides a row measures an empty loop, not its code (ns).
 * An empty mitata loop ran 1.04 ns on one 2-core VM and under 1 ns on others, so the line sits
 * above that, not at it.
 */
export const NO_WORK_NS = 1.5;

export interface Row {
  /** `<file basename>-<8 hex of sha256(repo-relative path)>: <label>` */
  id: string;
  /** Repo-relative path of the bench file. */
  file: string;
  label: string;
  unit: Unit;
  status: RowStatus;
  /** For `failed`: which side threw (`both`: a process that held both sides failed), and its error message. */
  error?: { side: Side | "both"; message: string };
  /** Timed rows: how they were measured. */
  mode?: MeasureMode;
  base: Rounds;
  head: Rounds;
  /**
   * Counted rows: per round, the side its process ran first (null where it was not a duet), what
   * the crossover interval groups the rounds by (docs/statistics.md).
   */
  firstSide?: Array<Side | null>;
  /** Timed rows with status ok. */
  stats?: PairedStats;
  /** Exact rows with status ok. */
  exact?: ExactComparison;
  /** With `compare --profile`: the functions whose self time changed (model/profile.ts). */
  profile?: RowProfile;
  /** Status `uncounted`: what the counts missed. */
  uncounted?: Uncounted;
}

export interface CompareResult {
  schema: typeof SCHEMA_ID;
  schemaVersion: number;
  xbenchVersion: string;
  runtime: Runtime;
  /**
   * Rounds asked for (the minimum, when sampling until narrow), rounds planned and run (whole
   * cycles of orderings), and rounds per cycle; for runs that sample until narrow, what
   * stopped them and the rule.
   */
  rounds: {
    requested: number;
    planned: number;
    completed: number;
    cycle: number;
    /** `rounds`: the fixed or largest number was reached; `target`: every interval was narrow enough; `time`: the time budget was spent. */
    stoppedBy?: "rounds" | "target" | "time";
    /** The half-width every interval was to reach (0.01 = ±1%). */
    targetHalfWidth?: number;
    /** The time budget of the measuring phase (wall time), in seconds. */
    maxTimeS?: number;
    /** Wall time of the measuring phase, in seconds (resumed runs: all invocations). */
    measuredS?: number;
    /** Bench processes run at once (`--jobs`). */
    jobs?: number;
  };
  base: RevisionInfo;
  head: RevisionInfo;
  loadavg: { start: LoadAvg; end: LoadAvg };
  /** Cores of the machine the run measured on, to read the load averages against. */
  cores?: number;
  startedAt: string;
  finishedAt: string;
  /** Intervals are Holm-adjusted across the rows with an interval (times, peak RSS) of this table. */
  holm: boolean;
  /**
   * The confidence level each row's interval was built at: 0.95, or 0.97 in a run that samples
   * until narrow, whose rows stop on their own width (stats/paired.ts SEQUENTIAL_LEVEL), so that
   * the procedure as a whole holds 95%. Absent in files before schema 4: 0.95.
   */
  level?: number;
  /**
   * What the report's "95% CI" holds: the share of intervals that contain the true change,
   * the procedure (rows stopping on their own width) included; 0.95. `level` is what each
   * interval is built at to get it. Absent in files from before it.
   */
  coverage?: number;
  /**
   * `--min-effect` as a fraction (0.005 = ±0.5%): a row whose interval lies within ±minEffect has
   * the verdict `same`. Absent in files before schema 3, whose verdicts never read `same`.
   */
  minEffect?: number;
  rows: Row[];
  /** The gate the run was judged by (`--fail-on`, `--fail-above`), and what it decided. */
  gate?: Gate;
  /** This result is one shard of a compare split across runners (`--shard I/N`): its files only. */
  shard?: { index: number; count: number };
  /** How the bench processes were run, beyond the fields above; shards must agree on them to be merged. */
  settings?: ResultSettings;
  /** This result was merged from shards (`report --merge`): each shard's machine state and extent. */
  shards?: ShardSummary[];
  /** With `compare --profile`: which rows were profiled, how, and each side's merged profile. */
  profile?: ProfileSummary;
  /** This invocation's wall time and the part spent inside bench processes (a resumed run counts only its own part). */
  timing?: { wallMs: number; childMs: number };
  /** A counting run (`--measure instructions|cycles`): what was counted, and how. Absent: rows are timed. */
  measure?: CountedMeasure;
}

/** How a counting run counted (docs/counting.md): not production time, and the report says so. */
export interface CountedMeasure {
  /** What a benchmark row's values are, per iteration. */
  quantity: "instructions" | "cycles";
  /** The counter: callgrind of this valgrind (`valgrind-3.19.0`). */
  tool: string;
  /** The runtime and its flags in the bench processes (`node --single-threaded --expose-gc`). */
  runtimeFlags: string;
  /** `cycles`: the caches callgrind simulated (size, ways, line), and the weights of an access. */
  caches?: { I1: string; D1: string; LL: string; weights: { l1: number; ll: number; ram: number } };
}

/** The flags of a compare that change what it measures, as given (`--time` in ms, `--timeout` in s). */
export interface ResultSettings {
  isolate: boolean;
  /** `--time` as given; absent when xbench chose each row's sampling time (compare/rounds/allocate.ts). */
  timeMs?: number;
  timeoutS: number;
  all: boolean;
  install: boolean;
  build?: string;
  filter?: string;
}

/** One shard of a merged result: its rows were measured on its own runner. */
export interface ShardSummary {
  index: number;
  count: number;
  rounds: number;
  rows: number;
  loadavg: { start: LoadAvg; end: LoadAvg };
  startedAt: string;
  finishedAt: string;
}

/**
 * What fails the gate: `slower`, any interval wholly above 0; `change`, wholly above or below
 * 0; `above`, wholly above +`above` (a fraction: 0.1 is `--fail-above 10`).
 */
export type GateRule = { on: "slower" } | { on: "change" } | { on: "above"; above: number };

/** `undecided`: nothing failed, but some interval holds the `above` threshold. */
export type GateOutcome = "pass" | "fail" | "undecided";

/** A row as the gate saw it. */
export interface GateRow {
  id: string;
  delta: number;
  ci: [number, number];
}

export interface Gate {
  rule: GateRule;
  outcome: GateOutcome;
  /** Rows whose interval lies wholly past the rule's line: they fail the gate. */
  failing: GateRow[];
  /** `above` only: rows whose interval holds the threshold; listed, never failing. */
  undecided: GateRow[];
}
