/**
 * The paired t-interval on mean log ratios: xbench's inference before the signed-rank method,
 * kept beside the truth lab (bench/truth-lab.ts), which compares old and new, as the tests do.
 *
 * For d_i = ln(h_i / b_i), i = 1..n:
 *   d̄ = mean(d_i);  s = sample sd (n - 1);  SE = s / √n;  t = Student-t quantile 1 - α/2 at n - 1 df
 *   delta = exp(d̄) - 1 (the geometric mean ratio, minus one)
 *   CI = [exp(d̄ - t·SE) - 1, exp(d̄ + t·SE) - 1]
 *   p = two-sided p-value of the paired t-test of mean d = 0, the smallest α whose CI excludes 0.
 * It assumes near-normal d_i; with heavy tails or whole-process slow modes its width is driven by
 * the outliers and it misses changes the signed-rank method sees (test/unit/signed-rank.test.ts).
 */
import type { Verdict } from "../../src/model/result.ts";
import { verdictOf } from "../../src/stats/signed-rank.ts";
import { regularizedBeta, studentT975, studentTQuantile } from "../../src/stats/student-t.ts";

/** The mean and standard error of per-round log ratios: everything the t-interval needs. */
export interface LogRatioSummary {
  n: number;
  /** Degrees of freedom, n - 1. */
  df: number;
  mean: number;
  sd: number;
  se: number;
}

export function summarize(d: readonly number[]): LogRatioSummary {
  const n = d.length;
  if (n < 2) throw new RangeError(`t-interval: needs at least 2 values, got ${n}`);
  const mean = d.reduce((sum, x) => sum + x, 0) / n;
  const sd = Math.sqrt(d.reduce((sum, x) => sum + (x - mean) ** 2, 0) / (n - 1));
  return { n, df: n - 1, mean, sd, se: sd / Math.sqrt(n) };
}

/** The t-interval of delta (as a ratio minus one) at confidence `level` (two-sided), e.g. 0.95. */
export function intervalAt(summary: LogRatioSummary, level: number): [number, number] {
  const t = level === 0.95 ? studentT975(summary.df) : studentTQuantile(1 - (1 - level) / 2, summary.df);
  const half = t * summary.se;
  return [Math.expm1(summary.mean - half), Math.expm1(summary.mean + half)];
}

/** Two-sided p-value of the paired t-test. With no spread at all: 1 if every ratio is 1, else 0. */
export function pairedP(summary: LogRatioSummary): number {
  if (summary.se === 0) return summary.mean === 0 ? 1 : 0;
  const t = summary.mean / summary.se;
  return regularizedBeta(summary.df / (summary.df + t * t), summary.df / 2, 0.5);
}

export interface TIntervalResult {
  n: number;
  /** exp(mean d) - 1 */
  delta: number;
  ci: [number, number];
  verdict: Verdict;
  p: number;
  level: number;
}

/** The old inference on log ratios `d`, as one result. */
export function tInterval(d: readonly number[], level = 0.95): TIntervalResult {
  const summary = summarize(d);
  const ci = intervalAt(summary, level);
  return { n: summary.n, delta: Math.expm1(summary.mean), ci, verdict: verdictOf(ci), p: pairedP(summary), level };
}
