/**
 * Paired statistics of a timed benchmark (design.md section 3).
 *
 * Base and head ran in the same round, so their ratio cancels what the round shares (machine
 * load, thermal state, drift). For rounds i = 1..n:
 *   d_i = ln(h_i / b_i);  d = mean(d_i);  s = sample sd (n - 1);  SE = s / √n
 *   t = Student-t 0.975 quantile at n - 1 degrees of freedom
 *   delta = exp(d) - 1 (the geometric mean ratio, minus one)
 *   95% CI = [exp(d - t·SE) - 1, exp(d + t·SE) - 1]
 *   verdict: `slower` if the lower bound > 0, `faster` if the upper bound < 0, else `~`.
 * The base and head medians are context only: delta does not come from them.
 */
import type { PairedStats, Verdict } from "../report/model.ts";
import { median, spread, type Spread } from "./quantile.ts";
import { regularizedBeta, studentT975, studentTQuantile } from "./student-t.ts";
import { checkInput } from "./validate.ts";

export { studentT975 } from "./student-t.ts";

/** Timings must be finite and positive, and there must be two rounds to estimate a spread. */
export const TIMED_RULES = { minRounds: 2, positive: true } as const;

/** The mean and standard error of per-round log ratios: everything an interval needs. */
export interface LogRatioSummary {
  n: number;
  /** Degrees of freedom, n - 1. */
  df: number;
  mean: number;
  sd: number;
  se: number;
}

export function logRatios(base: readonly number[], head: readonly number[]): number[] {
  return base.map((b, i) => Math.log(head[i]! / b));
}

export function summarize(d: readonly number[]): LogRatioSummary {
  const n = d.length;
  const mean = d.reduce((sum, x) => sum + x, 0) / n;
  const sd = Math.sqrt(d.reduce((sum, x) => sum + (x - mean) ** 2, 0) / (n - 1));
  return { n, df: n - 1, mean, sd, se: sd / Math.sqrt(n) };
}

/** The interval of delta at confidence `level` (two-sided), e.g. 0.95. */
export function intervalAt(summary: LogRatioSummary, level: number): [number, number] {
  const t = level === 0.95 ? studentT975(summary.df) : studentTQuantile(1 - (1 - level) / 2, summary.df);
  const half = t * summary.se;
  return [Math.expm1(summary.mean - half), Math.expm1(summary.mean + half)];
}

export function verdictOf(ci: readonly [number, number]): Verdict {
  if (ci[0] > 0) return "slower";
  if (ci[1] < 0) return "faster";
  return "~";
}

/**
 * Two-sided p-value of the paired t-test of mean log ratio = 0, i.e. the smallest α at which the
 * (1 - α) interval excludes zero. With no spread at all: 1 if every ratio is 1, else 0.
 */
export function pairedP(summary: LogRatioSummary): number {
  if (summary.se === 0) return summary.mean === 0 ? 1 : 0;
  const t = summary.mean / summary.se;
  return regularizedBeta(summary.df / (summary.df + t * t), summary.df / 2, 0.5);
}

/** The paired statistics of one timed benchmark; throws a one-line XbenchError naming it on bad input. */
export function pairedStats(name: string, base: number[], head: number[]): PairedStats {
  checkInput(name, base, head, TIMED_RULES);
  const summary = summarize(logRatios(base, head));
  const ci = intervalAt(summary, 0.95);
  const ratios = spread(base.map((b, i) => head[i]! / b - 1));
  return {
    n: summary.n,
    delta: Math.expm1(summary.mean),
    ci,
    verdict: verdictOf(ci),
    baseMedian: median(base),
    headMedian: median(head),
    ratioMedian: ratios.median,
    ratioQ1: ratios.q1,
    ratioQ3: ratios.q3,
    p: pairedP(summary),
    level: 0.95,
  };
}

/**
 * Overhead of an arm against a control arm from the same rounds (e.g. traced vs untraced):
 * median(arm_i / control_i - 1) with quartiles (type 7, see quantile.ts). Context, not a verdict.
 * `overhead(head, base)` is the fspy view that `pairedStats` also reports as ratioMedian/Q1/Q3.
 */
export function overhead(arm: number[], control: number[], name = "overhead"): Spread {
  checkInput(name, control, arm, TIMED_RULES, ["control", "arm"]);
  return spread(arm.map((a, i) => a / control[i]! - 1));
}
