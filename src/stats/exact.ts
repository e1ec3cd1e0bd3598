/**
 * Exact metrics (counts, bytes) have no noise: they are compared exactly, never given an interval.
 *
 * Per side: when every round reports the same value, that value is compared. When rounds
 * disagree (a count that depends on timing, say), the side's median over rounds (type 7) is
 * compared instead and the result is marked `varies`, so the report can say so.
 */
import type { ExactComparison } from "../model/result.ts";
import { median } from "./quantile.ts";
import { checkInput } from "./validate.ts";

/** Counts and bytes: one round is enough; zero is a real value; negative is not. */
export const EXACT_RULES = { minRounds: 1, positive: false } as const;

function sideValue(values: readonly number[]): { value: number; varies: boolean } {
  const varies = values.some((v) => v !== values[0]);
  return { value: varies ? median(values) : values[0]!, varies };
}

export function compareExact(name: string, base: number[], head: number[]): ExactComparison {
  checkInput(name, base, head, EXACT_RULES);
  const b = sideValue(base);
  const h = sideValue(head);
  const difference = h.value - b.value;
  const verdict = difference === 0 ? "same" : difference > 0 ? "more" : "fewer";
  return { base: b.value, head: h.value, difference, verdict, ...(b.varies || h.varies ? { varies: true } : {}) };
}
