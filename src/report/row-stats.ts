/**
 * Raw rows (what `compare` collected per benchmark) to analyzed rows (what renderers show).
 * A row never aborts the table: a benchmark that cannot be analyzed becomes a `failed` row with
 * a one-line reason, and rows present on one side only are `new` or `removed`.
 */
import { DEFAULT_MIN_EFFECT, verdictWithin } from "../stats/equivalence.ts";
import { compareExact, EXACT_RULES } from "../stats/exact.ts";
import { holmIntervals, withHolm, type HolmRow } from "../stats/holm.ts";
import type { IntervalSource } from "../stats/interval-source.ts";
import { countedAnalysis, LEVEL, pairedAnalysis, pairedFirstSides, TIMED_RULES } from "../stats/paired.ts";
import { findProblem, pairUp } from "../stats/validate.ts";
import {
  isCountedUnit,
  NO_WORK_NS,
  perIteration,
  type CompareResult,
  type MeasureMode,
  type PairedStats,
  type Rounds,
  type Row,
  type Side,
  type Uncounted,
  type Unit,
} from "../model/result.ts";

export interface RawRow {
  /** `<file basename>-<8 hex of sha256(repo-relative path)>: <label>` */
  id: string;
  /** Repo-relative path of the bench file. */
  file: string;
  label: string;
  unit: Unit;
  /** Varies between runs though not a time (peak RSS): gets a paired interval, not an exact comparison. */
  sampled?: true;
  /** Per-round values, index = round; null where that round produced none. */
  base: Rounds;
  head: Rounds;
  /** Whether the benchmark exists on each side at all. */
  presentOn: { base: boolean; head: boolean };
  /** The benchmark threw on a side. */
  error?: { side: Side | "both"; message: string };
  mode?: MeasureMode;
  /** The file's code is the same on both sides: the row was not measured. */
  unchanged?: true;
  /** A counted row: what its measured windows took, summed over rounds and both sides (compare/rows.ts). */
  counted?: CountedTotals;
  /** A counted row: the most an empty benchmark counted per iteration in its processes. */
  floor?: number;
  /** The file declares the benchmark and skips it (`bench.skip`, `skipIf`): listed, never measured. */
  skipped?: true;
  /** Per round, the side its process ran first (a duet), null otherwise: what a counted row's crossover groups by. */
  firstSide?: Array<Side | null>;
}

/** A counted row's measured windows, summed: their wall time, CPU time, the kernel's part, voluntary waits. */
export interface CountedTotals {
  windows: number;
  /** Iterations the windows ran. */
  iterations: number;
  /** What the windows counted (instructions or estimated cycles). */
  events: number;
  wallNs: number;
  cpuNs: number;
  systemNs: number;
  waits: number;
}

/** A counted row within this many events per iteration of the empty loop did nothing more than it. */
const NO_WORK_MARGIN = 0.5;

/** A counted row waited when its windows ran under half their wall time and waited at least this often a window. */
const WAITS_PER_WINDOW = 8;
/**
 * Above this share of its time natively in the kernel, a counted row's counts miss most of its
 * cost. Allocation-heavy code spends a third of it there on fresh pages under some runtimes: that
 * is part of its cost the counts miss, but not most of it.
 */
const KERNEL_SHARE = 0.5;

/**
 * What a counted row's counts missed, if that is most of it: the time its windows waited (a
 * sleep, a timer, I/O: many voluntary waits and little CPU; a busy machine gives little CPU
 * without them), or the kernel's share of its CPU time.
 */
export function uncountedPart(totals: CountedTotals | undefined): Uncounted | undefined {
  if (!totals || totals.windows === 0 || !(totals.wallNs > 0)) return undefined;
  const waited = 1 - Math.min(1, totals.cpuNs / totals.wallNs);
  if (waited > 0.5 && totals.waits >= WAITS_PER_WINDOW * totals.windows) return { why: "waits", share: waited };
  // Valgrind runs the code tens of times slower, the kernel at its own speed: the kernel's share
  // of the time the code would take natively, at about NATIVE_NS_PER_EVENT an event.
  const native = totals.events * NATIVE_NS_PER_EVENT;
  const kernel = totals.systemNs > 0 ? totals.systemNs / (totals.systemNs + native) : 0;
  // Valgrind's own system calls (its translations' memory) add a little to every window: a row
  // in the kernel spends at least what a system call takes in each iteration.
  const perIteration = totals.iterations > 0 ? totals.systemNs / totals.iterations : 0;
  if (kernel > KERNEL_SHARE && perIteration >= KERNEL_NS_PER_ITERATION) return { why: "kernel", share: kernel };
  return undefined;
}

/** The least kernel time per iteration of a row that makes system calls (one takes a few hundred ns). */
const KERNEL_NS_PER_ITERATION = 100;

/** What an instruction (or estimated cycle) takes natively, about: a 3 GHz core at one a cycle. */
const NATIVE_NS_PER_EVENT = 1 / 3;

function statusRow(raw: RawRow, status: Row["status"], error?: Row["error"]): Row {
  const { id, file, label, unit, base, head, mode, firstSide } = raw;
  // The orders stay with a counted row, whose interval is read by them (and again by readAA).
  const orders = firstSide && isCountedUnit(unit) ? { firstSide } : {};
  return { id, file, label, unit, status, ...(error ? { error } : {}), ...(mode ? { mode } : {}), base, head, ...orders };
}

/** The side with fewer usable rounds, to blame when too few pairs remain. */
function sparserSide(raw: RawRow): Side {
  const usable = (r: Rounds) => r.filter((v) => v !== null).length;
  return usable(raw.base) < usable(raw.head) ? "base" : "head";
}

/** An analyzed row, with what Holm reads of a paired row. */
interface Analyzed {
  row: Row;
  holm?: IntervalSource;
}

function analyzeOne(raw: RawRow, level: number): Analyzed {
  if (raw.skipped) return { row: statusRow(raw, "skipped") };
  if (raw.unchanged) return { row: statusRow(raw, "unchanged") };
  if (raw.error) return { row: statusRow(raw, "failed", raw.error) };
  if (raw.presentOn.head && !raw.presentOn.base) return { row: statusRow(raw, "new") };
  if (raw.presentOn.base && !raw.presentOn.head) return { row: statusRow(raw, "removed") };
  if (!raw.presentOn.base && !raw.presentOn.head) {
    return { row: statusRow(raw, "failed", { side: "head", message: "present on neither side" }) };
  }
  const pairs = pairUp(raw.base, raw.head);
  if (pairs.base.length < 2) {
    const message = `only ${pairs.base.length} of ${Math.max(raw.base.length, raw.head.length)} rounds have a value on both sides; need at least 2`;
    return { row: statusRow(raw, "failed", { side: sparserSide(raw), message }) };
  }
  const paired = perIteration(raw.unit) || raw.sampled === true;
  const problem = findProblem(pairs.base, pairs.head, paired ? TIMED_RULES : EXACT_RULES);
  if (problem) return { row: statusRow(raw, "failed", { side: problem.side ?? "head", message: problem.message }) };
  if (!paired) return { row: { ...statusRow(raw, "ok"), exact: compareExact(raw.id, pairs.base, pairs.head) } };
  // A counted row's rounds differ by little but what going first does to a side: grouped by
  // order, that is taken out (stats/crossover.ts). A time's noise is larger than it.
  const { stats, holm } = isCountedUnit(raw.unit)
    ? countedAnalysis(raw.id, pairs.base, pairs.head, pairedFirstSides(raw.base, raw.head, raw.firstSide), level)
    : pairedAnalysis(raw.id, pairs.base, pairs.head, level);
  // An empty loop's cost on both sides: no interval, no verdict, not one of Holm's family; the
  // rounds stay in the row. Counted, the empty loop was counted in the same processes.
  if (raw.unit === "ns" && !raw.sampled && Math.max(stats.baseMedian, stats.headMedian) < NO_WORK_NS)
    return { row: statusRow(raw, "no-work") };
  if (raw.floor !== undefined && Math.max(stats.baseMedian, stats.headMedian) <= raw.floor + NO_WORK_MARGIN)
    return { row: statusRow(raw, "no-work") };
  const uncounted = uncountedPart(raw.counted);
  if (uncounted) return { row: { ...statusRow(raw, "uncounted"), uncounted } };
  return { row: { ...statusRow(raw, "ok"), stats }, holm };
}

/**
 * Analyzes every row, in order, each interval at `level` (95% by default; SEQUENTIAL_LEVEL when
 * rows stop on their own width). With `holm`, the intervals, verdicts and p-values of the timed
 * ok rows are Holm-adjusted together (stats/holm.ts); exact rows are never part of the family.
 * Then every interval within ±`minEffect` (default ±0.5%) reads `same` (stats/equivalence.ts).
 */
export function analyzeRows(rows: RawRow[], options: { holm: boolean; minEffect?: number; level?: number }): Row[] {
  const minEffect = options.minEffect ?? DEFAULT_MIN_EFFECT;
  const level = options.level ?? LEVEL;
  const analyzed = rows.map((raw) => analyzeOne(raw, level));
  const holm = options.holm ? holmOf(analyzed, 1 - level) : new Map<Analyzed, HolmRow>();
  return analyzed.map((a) => {
    const h = holm.get(a);
    const stats = h ? withHolm(a.row.stats!, h) : a.row.stats;
    return stats ? { ...a.row, stats: withMinEffect(stats, minEffect) } : a.row;
  });
}

function holmOf(analyzed: Analyzed[], alpha: number): Map<Analyzed, HolmRow> {
  const family = analyzed.filter((a) => a.holm !== undefined);
  return new Map(
    holmIntervals(
      family.map((a) => a.holm!),
      alpha,
    ).map((h, i) => [family[i]!, h]),
  );
}

/** A row's statistics with the verdict read against ±minEffect (a new object). */
function withMinEffect(stats: PairedStats, minEffect: number): PairedStats {
  return { ...stats, verdict: verdictWithin(stats.ci, minEffect) };
}

/**
 * A saved result read again with another `--min-effect` (`xbench report`): only verdicts change,
 * since each is a function of its row's interval and the minimum effect.
 */
export function withMinEffectResult(result: CompareResult, minEffect: number): CompareResult {
  const rows = result.rows.map((row) => (row.stats ? { ...row, stats: withMinEffect(row.stats, minEffect) } : row));
  return { ...result, minEffect, rows };
}

/** Half the width of a row's interval of delta; Infinity when it has none. */
export function halfWidth(row: Row): number {
  if (!row.stats) return Infinity;
  const [lower, upper] = row.stats.ci;
  return Number.isFinite(lower) && Number.isFinite(upper) ? (upper - lower) / 2 : Infinity;
}

/** The rows with an interval (times, peak RSS): those a width target applies to. */
export function intervalRows(rows: readonly Row[]): Row[] {
  return rows.filter((row) => row.status === "ok" && row.stats);
}

/**
 * Why a table compared nothing, or undefined when at least one row has a comparison (an
 * interval or an exact one). A compare that measured no benchmark on both sides has no answer,
 * and must not pass for "no change".
 */
export function nothingCompared(rows: readonly Row[]): string | undefined {
  // A row that measured an empty loop was measured: `no work measured` is its answer.
  if (rows.some((row) => row.stats || row.exact || row.status === "no-work" || row.status === "uncounted")) return undefined;
  // Code the same on both sides (a change to docs only) is an answer, not a failure; skipped rows add none.
  if (rows.some((row) => row.status === "unchanged") && rows.every((row) => row.status === "unchanged" || row.status === "skipped"))
    return undefined;
  if (rows.length === 0) return "no benchmark was measured: the bench files reported no rows";
  const count = (status: Row["status"]) => rows.filter((row) => row.status === status).length;
  const parts = (["new", "removed", "failed", "unchanged", "no-work", "uncounted", "skipped"] as const)
    .filter((s) => count(s) > 0)
    .map((s) => `${count(s)} ${s}`);
  return `no benchmark was measured on both sides (${parts.join(", ")})`;
}

/**
 * The failures of a table, one line per bench file, side and error: `test/bench/index.ts on
 * base: registers no benchmark …`, with the rows it hit when not all of the file's rows.
 */
export function failureLines(rows: readonly Row[]): string[] {
  const groups = new Map<string, { file: string; side: Side | "both"; message: string; labels: string[] }>();
  for (const row of rows) {
    if (row.status !== "failed" || !row.error) continue;
    const key = `${row.file}\0${row.error.side}\0${row.error.message}`;
    const group = groups.get(key) ?? { file: row.file, side: row.error.side, message: row.error.message, labels: [] as string[] };
    group.labels.push(row.label);
    groups.set(key, group);
  }
  return [...groups.values()].map(({ file, side, message, labels }) => {
    const ofFile = rows.filter((row) => row.file === file).length;
    const which =
      labels.length === ofFile
        ? ""
        : ` (${labels
            .slice(0, 3)
            .map((l) => JSON.stringify(l))
            .join(", ")}${labels.length > 3 ? ", …" : ""})`;
    return `${file} on ${side === "both" ? "both sides" : side}${which}: ${message.split("\n")[0]}`;
  });
}
