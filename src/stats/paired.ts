/**
 * Paired statistics of a timed benchmark (docs/statistics.md).
 *
 * Base and head ran in the same round, so their ratio cancels what the round shares (machine
 * load, thermal state, drift). For rounds i = 1..n, d_i = ln(h_i / b_i), and from the Wilcoxon
 * signed-rank test with the Hodges–Lehmann estimate and interval (formulas in signed-rank.ts):
 *   delta = exp(θ̂) - 1, θ̂ the median of the Walsh averages (d_i + d_j) / 2
 *   95% CI = [exp(A_(k)) - 1, exp(A_(M+1-k)) - 1], at its achieved level (>= 95%); unbounded below 6 rounds
 *   halfWidth = (upper - lower) / 2 of that CI
 *   p = the signed-rank test's two-sided p-value (midranks for ties, zeros dropped); without ties
 *       or zeros it is <= 0.05 exactly when the interval excludes zero. With them the two can
 *       disagree near 0.05 (on 3-significant-digit inputs with noise near the rounding step, up to
 *       7% of rows, nearly all "p <= 0.05 but ~"); the verdict follows the interval, and Holm reads
 *       the interval's own p (holm.ts), so its decisions and intervals always agree.
 *   verdict: `slower` if the lower bound > 0, `faster` if the upper bound < 0, else `~`.
 * The base and head medians are context only: delta does not come from them.
 * The old t-interval, for comparison, lives with the truth lab (bench/truth-lab/t-interval.ts).
 */
import type { PairedStats } from "../model/result.ts";
import { median, spread, type Spread } from "./quantile.ts";
import { crossoverInterval, crossoverP, crossoverRounds, crossoverSummary } from "./crossover.ts";
import type { IntervalSource } from "./interval-source.ts";
import { hodgesLehmannInterval, signedRankTest, verdictOf, walshSource, walshSummary, type WalshSummary } from "./signed-rank.ts";
import { checkInput, pairedRounds } from "./validate.ts";

export { studentT975 } from "./student-t.ts";
export { verdictOf } from "./signed-rank.ts";

/** Timings must be finite and positive, and there must be two rounds to estimate a spread. */
export const TIMED_RULES = { minRounds: 2, positive: true } as const;

export const LEVEL = 0.95;

/**
 * The level of every row's interval in a run that samples until narrow. A row stops when its
 * interval is narrow, and an interval is narrow partly by luck (a run of similar rounds), so an
 * interval read at the round it stopped holds the truth less often than its level says: 93.6%
 * for 95% intervals on normal noise by seeded simulation, 6-7% false verdicts. Built at 97%,
 * the same rule holds at least 95% (test/unit/row-stopping-simulation.test.ts;
 * docs/statistics.md, "Sampling until the answer is clear").
 */
export const SEQUENTIAL_LEVEL = 0.97;

export function logRatios(base: readonly number[], head: readonly number[]): number[] {
  return base.map((b, i) => Math.log(head[i]! / b));
}

/** An interval of log ratios as an interval of delta (a ratio minus one). */
export function ratioInterval(interval: readonly [number, number]): [number, number] {
  return [Math.expm1(interval[0]), Math.expm1(interval[1])];
}

/** Half the width of an interval; Infinity when it is unbounded. */
export function halfWidthOf(interval: readonly [number, number]): number {
  return (interval[1] - interval[0]) / 2;
}

/** The paired statistics of one row, and what Holm reads of it. */
export interface PairedAnalysis {
  stats: PairedStats;
  holm: IntervalSource;
}

/**
 * `level`, or 95% where `n` pairs cannot give an interval at `level`: the signed-rank interval's
 * smallest α is 2/2ⁿ, so a 97% interval needs 7 pairs, and at 6 the widest there is, [min d,
 * max d], holds 96.9% (the simulation of SEQUENTIAL_LEVEL includes rows that stop at 6).
 */
export function reachableLevel(n: number, level: number): number {
  return level > LEVEL && 2 / 2 ** n > 1 - level ? LEVEL : level;
}

/** The paired statistics of log ratios `d` at confidence `level`, with medians and the fspy view. */
export function statsOfLogRatios(
  d: readonly number[],
  context: Pick<PairedStats, "baseMedian" | "headMedian" | "ratioMedian" | "ratioQ1" | "ratioQ3">,
  level = LEVEL,
): PairedAnalysis & { walsh: WalshSummary } {
  const walsh = walshSummary(d);
  const hl = hodgesLehmannInterval(walsh, reachableLevel(d.length, level));
  const ci = ratioInterval(hl.interval);
  const stats: PairedStats = {
    n: d.length,
    delta: Math.expm1(walsh.estimate),
    ci,
    verdict: verdictOf(ci),
    ...context,
    p: signedRankTest(d).p,
    level: hl.level,
    halfWidth: halfWidthOf(ci),
    method: "signed-rank",
  };
  return { stats, holm: walshSource(walsh), walsh };
}

/** Which side each round's process ran first; null where the round was not a duet. */
export type FirstSides = ReadonlyArray<"base" | "head" | null>;

/** The first sides of the rounds that have a value on both sides (those validate.ts pairUp keeps); null where unknown. */
export function pairedFirstSides(
  base: ReadonlyArray<number | null>,
  head: ReadonlyArray<number | null>,
  firstSide: FirstSides | undefined,
): FirstSides {
  return pairedRounds(base, head).map((i) => firstSide?.[i] ?? null);
}

/**
 * The log ratios `d` split by which side ran first, when there are enough rounds of each order
 * for the crossover interval at `level` (crossover.ts); undefined otherwise.
 */
export function byOrder(d: readonly number[], first: FirstSides, level: number): { headFirst: number[]; baseFirst: number[] } | undefined {
  const headFirst = d.filter((_, i) => first[i] === "head");
  const baseFirst = d.filter((_, i) => first[i] === "base");
  if (headFirst.length + baseFirst.length !== d.length) return undefined;
  const need = crossoverRounds(level);
  return headFirst.length >= need && baseFirst.length >= need ? { headFirst, baseFirst } : undefined;
}

/**
 * The crossover statistics of log ratios split by order (crossover.ts): what going first does
 * to a side taken out of the interval.
 */
function crossoverOfLogRatios(
  d: readonly number[],
  orders: { headFirst: number[]; baseFirst: number[] },
  context: Pick<PairedStats, "baseMedian" | "headMedian" | "ratioMedian" | "ratioQ1" | "ratioQ3">,
  level: number,
): PairedAnalysis {
  const summary = crossoverSummary(orders.headFirst, orders.baseFirst);
  const reached = crossoverInterval(summary, level);
  const ci = ratioInterval(reached.interval);
  const p = crossoverP(summary);
  const stats: PairedStats = {
    n: d.length,
    delta: Math.expm1(summary.estimate),
    ci,
    verdict: verdictOf(ci),
    ...context,
    p,
    level: reached.level,
    halfWidth: halfWidthOf(ci),
    method: "crossover",
  };
  return { stats, holm: { p, at: (at) => crossoverInterval(summary, at) } };
}

/** `pairedStats` with the Walsh averages kept; throws a one-line XbenchError naming the benchmark on bad input. */
export function pairedAnalysis(name: string, base: number[], head: number[], level = LEVEL): PairedAnalysis & { walsh: WalshSummary } {
  checkInput(name, base, head, TIMED_RULES);
  return statsOfLogRatios(logRatios(base, head), pairContext(base, head), level);
}

function pairContext(
  base: number[],
  head: number[],
): Pick<PairedStats, "baseMedian" | "headMedian" | "ratioMedian" | "ratioQ1" | "ratioQ3"> {
  const ratios = spread(base.map((b, i) => head[i]! / b - 1));
  return { baseMedian: median(base), headMedian: median(head), ratioMedian: ratios.median, ratioQ1: ratios.q1, ratioQ3: ratios.q3 };
}

/**
 * A counted row's statistics (docs/statistics.md, "Counted rows: the order of the sides"): the
 * crossover when every round was a duet and there are enough of each order, else the signed-rank
 * interval as for a time. `first[i]`: the side round i's process ran first.
 */
export function countedAnalysis(name: string, base: number[], head: number[], first: FirstSides, level = LEVEL): PairedAnalysis {
  checkInput(name, base, head, TIMED_RULES);
  const d = logRatios(base, head);
  const orders = byOrder(d, first, level);
  return orders ? crossoverOfLogRatios(d, orders, pairContext(base, head), level) : statsOfLogRatios(d, pairContext(base, head), level);
}

/** The paired statistics of one timed benchmark; throws a one-line XbenchError naming it on bad input. */
export function pairedStats(name: string, base: number[], head: number[]): PairedStats {
  return pairedAnalysis(name, base, head).stats;
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
