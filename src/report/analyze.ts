/**
 * Raw rows (what `compare` collected per benchmark) to analyzed rows (what renderers show).
 * A row never aborts the table: a benchmark that cannot be analyzed becomes a `failed` row with
 * a one-line reason, and rows present on one side only are `new` or `removed`.
 */
import { compareExact, EXACT_RULES } from "../stats/exact.ts";
import { holmIntervals } from "../stats/holm.ts";
import { logRatios, pairedStats, summarize, TIMED_RULES } from "../stats/paired.ts";
import { findProblem, pairUp } from "../stats/validate.ts";
import type { MeasureMode, Rounds, Row, Side, Unit } from "./model.ts";

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
}

function statusRow(raw: RawRow, status: Row["status"], error?: Row["error"]): Row {
  const { id, file, label, unit, base, head, mode } = raw;
  return { id, file, label, unit, status, ...(error ? { error } : {}), ...(mode ? { mode } : {}), base, head };
}

/** The side with fewer usable rounds, to blame when too few pairs remain. */
function sparserSide(raw: RawRow): Side {
  const usable = (r: Rounds) => r.filter((v) => v !== null).length;
  return usable(raw.base) < usable(raw.head) ? "base" : "head";
}

function analyzeOne(raw: RawRow): Row {
  if (raw.error) return statusRow(raw, "failed", raw.error);
  if (raw.presentOn.head && !raw.presentOn.base) return statusRow(raw, "new");
  if (raw.presentOn.base && !raw.presentOn.head) return statusRow(raw, "removed");
  if (!raw.presentOn.base && !raw.presentOn.head) {
    return statusRow(raw, "failed", { side: "head", message: "present on neither side" });
  }
  const pairs = pairUp(raw.base, raw.head);
  if (pairs.base.length < 2) {
    const message = `only ${pairs.base.length} of ${Math.max(raw.base.length, raw.head.length)} rounds have a value on both sides; need at least 2`;
    return statusRow(raw, "failed", { side: sparserSide(raw), message });
  }
  const paired = raw.unit === "ns" || raw.sampled === true;
  const problem = findProblem(pairs.base, pairs.head, paired ? TIMED_RULES : EXACT_RULES);
  if (problem) return statusRow(raw, "failed", { side: problem.side ?? "head", message: problem.message });
  return paired
    ? { ...statusRow(raw, "ok"), stats: pairedStats(raw.id, pairs.base, pairs.head) }
    : { ...statusRow(raw, "ok"), exact: compareExact(raw.id, pairs.base, pairs.head) };
}

/**
 * Analyzes every row, in order. With `holm`, the intervals, verdicts and p-values of the timed
 * ok rows are Holm-adjusted together (stats/holm.ts); exact rows are never part of the family.
 */
export function analyzeRows(rows: RawRow[], options: { holm: boolean }): Row[] {
  const analyzed = rows.map(analyzeOne);
  if (!options.holm) return analyzed;
  const timed = analyzed.filter((row) => row.stats);
  const summaries = timed.map((row) => {
    const pairs = pairUp(row.base, row.head);
    return summarize(logRatios(pairs.base, pairs.head));
  });
  holmIntervals(summaries).forEach((holm, i) => {
    const stats = timed[i]!.stats!;
    Object.assign(stats, { ci: holm.ci, verdict: holm.verdict, p: holm.p, pAdjusted: holm.pAdjusted, level: holm.level });
  });
  return analyzed;
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
