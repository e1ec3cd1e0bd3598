/**
 * Holm's step-down correction across the rows of one table that have an interval.
 *
 * With many rows, about 1 in 20 unchanged rows gets a verdict by chance at 95%. Holm (1979)
 * keeps the family-wise error rate at α = 0.05 and is uniformly more powerful than Bonferroni.
 * Sort the m p-values ascending, p_(1) <= ... <= p_(m); reject H_(i) while p_(i) <= α / (m - i + 1),
 * stopping at the first that is not. Adjusted p-values: p̃_(i) = min(1, max_{j<=i} (m - j + 1)·p_(j)).
 *
 * The p-value of each row is the smallest α at which its interval excludes 0: p_HL for a
 * signed-rank row (signed-rank.ts), the exact signed-rank p when |d| has no ties or zeros, and
 * the crossover's own for a counted row analysed by order (crossover.ts).
 *
 * Adjusted intervals (our method, stated because there is no single textbook choice): a row of
 * rank i gets its interval (Hodges–Lehmann's, of either method) at confidence 1 - α / (m - i + 1), the level Holm tests
 * it at; rows at or after the rank s where the procedure stops all get the level of rank s,
 * 1 - α / (m - s + 1). Because p_HL is defined by those same intervals, an interval excludes zero
 * exactly when Holm rejects that row, so the verdict read from the interval is Holm's verdict.
 * These intervals are wider than the plain 95% ones but are not simultaneous intervals for every
 * row (that would take Bonferroni's 1 - α / m for all rows).
 */
import type { PairedStats, Verdict } from "../model/result.ts";
import { halfWidthOf, ratioInterval } from "./paired.ts";
import type { IntervalSource } from "./interval-source.ts";
import { verdictOf } from "./signed-rank.ts";

export type { IntervalSource } from "./interval-source.ts";
export { walshSource } from "./signed-rank.ts";

export const FAMILY_ALPHA = 0.05;

/** Indices of `p` sorted by p-value ascending, ties in their original order. */
function ranked(p: readonly number[]): number[] {
  return p.map((_, i) => i).sort((a, b) => p[a]! - p[b]! || a - b);
}

/** Holm-adjusted p-values, in the order given. */
export function holmAdjust(p: readonly number[]): number[] {
  const m = p.length;
  const adjusted = new Array<number>(m);
  let running = 0;
  ranked(p).forEach((index, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p[index]!));
    adjusted[index] = running;
  });
  return adjusted;
}

export interface HolmRow {
  /** p_HL of the row, what Holm ranks and tests. */
  p: number;
  pAdjusted: number;
  /** Achieved confidence level of `ci` (>= the level Holm asked for it). */
  level: number;
  /** Interval of delta (a ratio minus one). */
  ci: [number, number];
  halfWidth: number;
  verdict: Verdict;
}

/** Holm-adjusted p-values and intervals for the rows of one table, in the order given. */
export function holmIntervals(sources: readonly IntervalSource[], alpha = FAMILY_ALPHA): HolmRow[] {
  const m = sources.length;
  const p = sources.map((source) => source.p);
  const adjusted = holmAdjust(p);
  const rows = new Array<HolmRow>(m);
  let stopLevel: number | undefined;
  ranked(p).forEach((index, rank) => {
    const own = 1 - alpha / (m - rank);
    // `1 - level` is the α the interval is built at: the same number decides here, so the two agree.
    if (stopLevel === undefined && p[index]! > 1 - own) stopLevel = own;
    const hl = sources[index]!.at(stopLevel ?? own);
    const ci = ratioInterval(hl.interval);
    rows[index] = { p: p[index]!, pAdjusted: adjusted[index]!, level: hl.level, ci, halfWidth: halfWidthOf(ci), verdict: verdictOf(ci) };
  });
  return rows;
}

/** A row's paired statistics with Holm's interval, verdict and adjusted p (a new object; `p` stays the signed-rank test's). */
export function withHolm(stats: PairedStats, holm: HolmRow): PairedStats {
  return { ...stats, ci: holm.ci, verdict: holm.verdict, pAdjusted: holm.pAdjusted, level: holm.level, halfWidth: holm.halfWidth };
}
