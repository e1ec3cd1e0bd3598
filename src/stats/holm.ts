/**
 * Holm's step-down correction across the rows of one table that have an interval.
 *
 * With many rows, about 1 in 20 unchanged rows gets a verdict by chance at 95%. Holm (1979)
 * keeps the family-wise error rate at α = 0.05 and is uniformly more powerful than Bonferroni.
 * Sort the m p-values ascending, p_(1) <= ... <= p_(m); reject H_(i) while p_(i) <= α / (m - i + 1),
 * stopping at the first that is not. Adjusted p-values: p̃_(i) = min(1, max_{j<=i} (m - j + 1)·p_(j)).
 *
 * Adjusted intervals (our method, stated because there is no single textbook choice): a row of
 * rank i gets the interval at confidence 1 - α / (m - i + 1), the level Holm tests it at; rows at
 * or after the rank s where the procedure stops all get the level of rank s, 1 - α / (m - s + 1).
 * Then an interval excludes zero exactly when Holm rejects that row, so the verdict read from the
 * interval is Holm's verdict. These intervals are wider than the plain 95% ones but are not
 * simultaneous intervals for every row (that would take Bonferroni's 1 - α / m for all rows).
 */
import type { Verdict } from "../report/model.ts";
import { intervalAt, pairedP, verdictOf, type LogRatioSummary } from "./paired.ts";

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
  p: number;
  pAdjusted: number;
  /** Confidence level of `ci`. */
  level: number;
  ci: [number, number];
  verdict: Verdict;
}

/** Holm-adjusted p-values and intervals for the rows of one table, in the order given. */
export function holmIntervals(summaries: readonly LogRatioSummary[], alpha = FAMILY_ALPHA): HolmRow[] {
  const m = summaries.length;
  const p = summaries.map(pairedP);
  const adjusted = holmAdjust(p);
  const rows = new Array<HolmRow>(m);
  let stopped: number | undefined;
  ranked(p).forEach((index, rank) => {
    const own = alpha / (m - rank);
    if (stopped === undefined && p[index]! > own) stopped = rank;
    const level = 1 - (stopped === undefined ? own : alpha / (m - stopped));
    const ci = intervalAt(summaries[index]!, level);
    rows[index] = { p: p[index]!, pAdjusted: adjusted[index]!, level, ci, verdict: verdictOf(ci) };
  });
  return rows;
}
