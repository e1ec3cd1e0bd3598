/**
 * One reading of a result, made once before any renderer runs: every figure the terminal table,
 * the markdown comment and the HTML page show beyond the rows' own statistics (the A/A reading,
 * the sampling target's misses and budget, side medians, tied rounds), and the rows under the
 * names a person reads. Renderers take an `Analysis` and format it; they never compute
 * statistics themselves (test/unit/architecture.test.ts keeps them off `stats/`).
 */
import { type CompareResult, perIteration, type Row } from "../model/result.ts";
import { DEFAULT_MIN_EFFECT } from "../stats/equivalence.ts";
import { readAA } from "../stats/noise.ts";
import { median } from "../stats/quantile.ts";
import { halfWidth, intervalRows } from "./row-stats.ts";
import { withDisplayNames } from "./names.ts";

/** A row as the renderers show it: its name for reading as `id`, and what its cells and notes need. */
export interface ShownRow extends Row {
  /** The median of each side's rounds (none without a value): the cells of a row without a comparison. */
  sideMedians: { base?: number; head?: number };
  /** A timed row whose base and head values were identical in half its paired rounds or more. */
  ties?: { tied: number; paired: number };
}

/** The result with display names, for the renderers a person reads. */
export interface ShownResult extends Omit<CompareResult, "rows"> {
  rows: ShownRow[];
}

/** An A/A run (base and head the same code) read for its noise floor (stats/noise.ts). */
export interface AASummary {
  /** Timed rows that could be read. */
  rows: number;
  /** Rows with a verdict `slower` or `faster`: false alarms. */
  falseVerdicts: number;
  /** Rows whose interval lies within ±min-effect. */
  same: number;
  medianAbsDelta: number;
  /**
   * The half-width of the rows' intervals, as the table shows them (the smallest change a
   * verdict can see after each row's rounds): median and widest. The same figure the sampling
   * note's `widest` is, so one run never prints two of them.
   */
  medianHalfWidth: number;
  widestHalfWidth: number;
  fewestRounds: number;
  mostRounds: number;
}

/** A row still wider than the sampling target when sampling stopped. */
export interface WideRow {
  row: ShownRow;
  halfWidth: number;
  n: number;
  /** Rounds that would bring it within the target (roundsNeeded); none when it cannot be told. */
  roundsNeeded?: number;
}

/** A run that sampled until narrow: how its intervals came out against the target. */
export interface SamplingReading {
  target: number;
  stoppedBy: "rounds" | "target" | "time";
  /** Rows with an interval. */
  timed: number;
  fewestRounds: number;
  mostRounds: number;
  widest: number;
  wide: WideRow[];
  /** The `--max-time` that would bring most wide rows within the target (a run stopped by time). */
  budget?: { maxTimeS: number; rows: number };
}

export interface Analysis {
  /** The result as given: what the JSON writes. */
  result: CompareResult;
  /** The same rows and gate under the names a person reads. */
  shown: ShownResult;
  /** The minimum effect the verdicts were read against. */
  minEffect: number;
  sampling?: SamplingReading;
  aa?: AASummary;
  /** Rows with a round far off their others, the farthest first by how wide the row reads. */
  outliers: Array<{ row: ShownRow; outlier: OutlierRound }>;
}

/** Reads a result once for every renderer. */
export function analyzeResult(result: CompareResult): Analysis {
  const named = withDisplayNames(result);
  const shown: ShownResult = { ...named, rows: named.rows.map(showRow) };
  const sampling = readSampling(result, shown);
  const aa = summarizeAA(result);
  const outliers = result.rows
    .flatMap((row, i) => {
      const outlier = outlierRound(row);
      return outlier ? [{ row: shown.rows[i]!, outlier, width: halfWidth(row) }] : [];
    })
    .sort((a, b) => b.width - a.width)
    .map(({ row, outlier }) => ({ row, outlier }));
  return {
    result,
    shown,
    minEffect: result.minEffect ?? DEFAULT_MIN_EFFECT,
    ...(sampling ? { sampling } : {}),
    ...(aa ? { aa } : {}),
    outliers,
  };
}

function medianOf(rounds: Row["base"]): number | undefined {
  const values = rounds.filter((v): v is number => v !== null);
  return values.length === 0 ? undefined : median(values);
}

/** A row with what its cells and notes need (its name stays as given). */
export function showRow(row: Row): ShownRow {
  const base = medianOf(row.base);
  const head = medianOf(row.head);
  // Counts repeat exactly by design: identical rounds say nothing about a clock.
  const ties = row.stats && row.unit === "ns" ? tiedRounds(row) : undefined;
  return {
    ...row,
    sideMedians: { ...(base !== undefined ? { base } : {}), ...(head !== undefined ? { head } : {}) },
    ...(ties ? { ties } : {}),
  };
}

/**
 * Timed values equal to the last digit on both sides in half the rounds or more: what a clock too
 * coarse for the batches does (values can only be whole ticks / n), not what code does.
 */
function tiedRounds(row: Row): { tied: number; paired: number } | undefined {
  let paired = 0;
  let tied = 0;
  row.base.forEach((b, i) => {
    const h = row.head[i];
    if (b === null || h === null || h === undefined) return;
    paired++;
    if (b === h) tied++;
  });
  return paired === 0 || 2 * tied < paired ? undefined : { tied, paired };
}

function readSampling(result: CompareResult, shown: ShownResult): SamplingReading | undefined {
  const { rounds } = result;
  const target = rounds.targetHalfWidth;
  if (target === undefined || !rounds.stoppedBy) return undefined;
  const timed = intervalRows(result.rows);
  if (timed.length === 0) return undefined;
  const counts = timed.map((row) => row.stats?.n ?? rounds.completed);
  const wideRows = timed.filter((row) => halfWidth(row) > target);
  const wide = wideRows.map((row) => {
    const n = row.stats!.n;
    const need = roundsNeeded(halfWidth(row), target, n);
    return {
      row: shown.rows[result.rows.indexOf(row)]!,
      halfWidth: halfWidth(row),
      n,
      ...(need !== undefined ? { roundsNeeded: need } : {}),
    };
  });
  const budget = rounds.stoppedBy === "time" && wide.length > 0 ? budgetForMost(result, wideRows, target) : undefined;
  return {
    target,
    stoppedBy: rounds.stoppedBy,
    timed: timed.length,
    fewestRounds: Math.min(...counts),
    mostRounds: Math.max(...counts),
    widest: Math.max(...timed.map(halfWidth)),
    wide,
    ...(budget ? { budget } : {}),
  };
}

/**
 * Rounds an interval of half-width `halfWidth` after `rounds` rounds needs to reach `target`: a
 * half-width shrinks about as 1/√rounds, so rounds × (halfWidth / target)². Rough (the signed-rank
 * interval's width changes regime with n, stats/noise.ts), but the right order of magnitude.
 */
export function roundsNeeded(halfWidth: number, target: number, rounds: number): number | undefined {
  if (!Number.isFinite(halfWidth) || rounds <= 0 || target <= 0) return undefined;
  return Math.ceil(rounds * (halfWidth / target) ** 2);
}

/** Share of the rows that missed the target that the suggested budget is to bring within it. */
const MOST = 0.75;

/**
 * The `--max-time` that would bring three quarters of the rows that missed the target within
 * it: each row needs roundsNeeded() − its rounds more, and a round of a row costs about what a
 * row-round cost in this run (the measuring time over every row's rounds). Rounded up to 10 s.
 */
export function budgetForMost(result: CompareResult, wide: readonly Row[], target: number): { maxTimeS: number; rows: number } | undefined {
  const measuredS = result.rounds.measuredS;
  if (measuredS === undefined || measuredS <= 0) return undefined;
  const timed = intervalRows(result.rows);
  const rowRounds = timed.reduce((sum, row) => sum + (row.stats?.n ?? 0), 0);
  if (rowRounds === 0) return undefined;
  const extra = wide.map((row) => (roundsNeeded(halfWidth(row), target, row.stats!.n) ?? Infinity) - row.stats!.n).sort((a, b) => a - b);
  const rows = Math.max(1, Math.ceil(MOST * wide.length));
  const needed = extra.slice(0, rows).reduce((sum, e) => sum + e, 0);
  if (!Number.isFinite(needed)) return undefined;
  return { maxTimeS: Math.ceil((measuredS + (measuredS / rowRounds) * needed) / 10) * 10, rows };
}

/** The A/A reading of a run whose sides are the same code with at least one readable row. */
function summarizeAA(result: CompareResult): AASummary | undefined {
  const reading = readAA(result);
  if (!reading.sameCommit || reading.rows.length === 0) return undefined;
  // The rows' intervals as the table shows them (at the run's level, Holm-adjusted where asked).
  const shownWidth = new Map(result.rows.map((row) => [row.id, row.stats ? halfWidth(row) : undefined]));
  const widths = reading.rows.map((r) => shownWidth.get(r.id) ?? r.halfWidth);
  const counts = reading.rows.map((r) => r.n);
  return {
    rows: reading.rows.length,
    falseVerdicts: reading.falseVerdicts,
    same: reading.rows.filter((r) => r.verdict === "same").length,
    medianAbsDelta: median(reading.rows.map((r) => r.absDelta)),
    medianHalfWidth: median(widths),
    widestHalfWidth: Math.max(...widths),
    fewestRounds: Math.min(...counts),
    mostRounds: Math.max(...counts),
  };
}

/**
 * A round far off a row's others: the one process whose head/base ratio lies many spreads from
 * the rest, which is what turns a row's interval to ±100% and more on a busy machine. Read from
 * the row's own rounds (docs/report.md, "A round far off the others"): which round, how far, and
 * what the two sides say of why. Only one side far from its own other rounds: that side's
 * batches were slowed inside the process (preempted, or a collection ran during them). Both
 * far: the process as a whole ran slower (load, frequency), one side more than the pairing
 * cancels. Neither far, only their ratio: the process compiled the two copies of the code
 * differently.
 */
/** How a round's ratio got far off, from each side's value against its own other rounds. */
export type OutlierCause = "one-side" | "whole-process" | "ratio-only";

export interface OutlierRound {
  /** 1-based, as a person counts rounds. */
  round: number;
  /** head/base − 1 of that round. */
  change: number;
  /** head/base − 1 of the other rounds: lowest and highest. */
  others: [number, number];
  cause: OutlierCause;
  /** With `one-side`: the side, and how much slower or faster it ran than its other rounds (a factor). */
  side?: { name: "base" | "head"; factor: number };
}

/** Spreads (median absolute deviations, scaled to a normal's σ) a round must lie off to be named. */
const FAR = 6;
/** And at least this far in log ratio (±5%): a quiet row's tiny spread makes no round suspect. */
const FAR_AT_LEAST = 0.05;
/** And this many times farther from the middle than any other round. */
const BEYOND = 3;
/** Fewest paired rounds that say what "the others" are. */
const MIN_ROUNDS = 6;

/** MAD of `values` around `center`, scaled to σ under normal noise. */
function spreadAround(values: readonly number[], center: number): number {
  return 1.4826 * median(values.map((v) => Math.abs(v - center)));
}

/** Whether `value` lies FAR spreads (and FAR_AT_LEAST) off the median of `others`. */
function far(value: number, others: readonly number[]): boolean {
  const center = median(others);
  return Math.abs(value - center) > Math.max(FAR * spreadAround(others, center), FAR_AT_LEAST);
}

/** The round of a timed or counted row that lies farthest off the others, when it lies far enough to name. */
export function outlierRound(row: Row): OutlierRound | undefined {
  if (row.status !== "ok" || !perIteration(row.unit) || !row.stats) return undefined;
  const pairs = row.base.flatMap((b, i) => {
    const h = row.head[i];
    return b !== null && h !== null && h !== undefined && b > 0 && h > 0 ? [{ i, b: Math.log(b), h: Math.log(h), d: Math.log(h / b) }] : [];
  });
  if (pairs.length < MIN_ROUNDS) return undefined;
  const center = median(pairs.map((p) => p.d));
  const worst = pairs.reduce((a, p) => (Math.abs(p.d - center) > Math.abs(a.d - center) ? p : a));
  const rest = pairs.filter((p) => p !== worst);
  const logsOf = (side: "b" | "h" | "d") => rest.map((p) => p[side]);
  // Far by the spread, and far beyond the range of the others: not the edge of a wide spread.
  const reach = Math.max(...rest.map((p) => Math.abs(p.d - center)));
  if (!far(worst.d, logsOf("d")) || Math.abs(worst.d - center) < BEYOND * reach) return undefined;
  // Each side's move in that round against its own other rounds, and the ratio's.
  const moved = (side: "b" | "h") => worst[side] - median(logsOf(side));
  const [byBase, byHead] = [moved("b"), moved("h")];
  const ratioMove = Math.abs(worst.d - center);
  const [more, less] = Math.abs(byHead) >= Math.abs(byBase) ? (["head", "base"] as const) : (["base", "head"] as const);
  const moveOf = (side: "base" | "head") => Math.abs(side === "head" ? byHead : byBase);
  const farOf = (side: "base" | "head") => (side === "head" ? far(worst.h, logsOf("h")) : far(worst.b, logsOf("b")));
  // One side carries the ratio's move (the other moved less than a third of it): a pause in its batches.
  const cause: OutlierCause =
    farOf(more) && moveOf(less) < ratioMove / 3 ? "one-side" : farOf(more) && farOf(less) ? "whole-process" : "ratio-only";
  const ratios = rest.map((p) => Math.expm1(p.d));
  const found: OutlierRound = {
    round: worst.i + 1,
    change: Math.expm1(worst.d),
    others: [Math.min(...ratios), Math.max(...ratios)],
    cause,
  };
  if (cause === "one-side") found.side = { name: more, factor: Math.exp(more === "head" ? byHead : byBase) };
  return found;
}
