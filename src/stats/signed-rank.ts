/**
 * The Wilcoxon signed-rank test and the matching Hodges–Lehmann estimate and interval, for paired
 * log ratios d_1..d_n (docs/statistics.md). References: Wilcoxon (1945); Hodges & Lehmann (1963);
 * Hollander & Wolfe, Nonparametric Statistical Methods, ch. 3; R's `wilcox.test(conf.int = TRUE)`.
 *
 * Null hypothesis: each d_i is symmetric about 0. It holds for "nothing changed" whatever the
 * shape of the noise (heavy tails, whole-process slow modes) as long as the order of the sides
 * within a round is randomized or balanced, which is why this needs no normal d_i.
 *
 * Signed-rank test
 *   Zeros are dropped (Wilcoxon's convention; Pratt's would rank them): n' = #{d_i != 0}.
 *   r_i = rank of |d_i| among the n' nonzero values; tied |d| share the mean of the ranks they
 *   span (midranks). W+ = Σ_{d_i > 0} r_i, R = Σ r_i = n'(n'+1)/2.
 *   Given |d|, the null makes each sign + or - with probability ½, independently: W+ ~ Σ ε_i r_i,
 *   ε_i iid Bernoulli(½), symmetric about R/2. Counts of each sum by dynamic programming:
 *   c_0(0) = 1, c_j(s) = c_{j-1}(s) + c_{j-1}(s - r_j), P(W+ = s) = c_{n'}(s) / 2^n'. Midranks are
 *   halves, so the counts run over doubled ranks 2r_i (integers); with ties this is the exact
 *   conditional distribution given the tie pattern. Exact for n' <= EXACT_LIMIT.
 *   Two-sided p = min(1, 2·P(W+ <= min(w, R - w))).
 *   Above the limit: E = n'(n'+1)/4, Var = n'(n'+1)(2n'+1)/24 - Σ_groups (t³ - t)/48 (t = size of
 *   each group of tied |d|), z = max(0, |W+ - E| - ½) / √Var (continuity correction),
 *   p = min(1, 2·Φ(-z)).
 *
 * Hodges–Lehmann estimate and interval (all n values, zeros included)
 *   Walsh averages A_ij = (d_i + d_j) / 2 for 1 <= i <= j <= n: M = n(n+1)/2 of them, sorted
 *   A_(1) <= ... <= A_(M) (walsh.ts: kept in order up to 200 values, selected beyond, so memory
 *   stays O(n)). Estimate: θ̂ = median of the A.
 *   F_n(j) = P(W+ <= j) for n untied ranks: exact for n <= EXACT_LIMIT, else
 *   Φ((j + ½ - M/2) / √(n(n+1)(2n+1)/24)).
 *   Interval at level 1 - α: [A_(k), A_(M+1-k)] with k the largest integer >= 1 such that
 *   2·F_n(k-1) <= α. Why: #{A > θ} is W+ of d - θ, so for continuous d symmetric about θ,
 *   θ < A_(k) iff W+(d - θ) >= M + 1 - k and θ > A_(M+1-k) iff W+(d - θ) <= k - 1, each of
 *   probability F_n(k-1). Achieved level 1 - 2·F_n(k-1) >= 1 - α (W+ is discrete).
 *   No such k (2·F_n(0) = 2/2^n > α; at 95% that is n <= 5): the interval is (-∞, +∞).
 *   The interval's p-value, the smallest α whose interval excludes 0:
 *   p_HL = min(1, 2·F_n(c)), c = min(#{A <= 0}, #{A >= 0}). Without ties or zeros in d,
 *   c = min(W+, M - W+) and p_HL is the exact signed-rank p. With them it is a different test
 *   from the midrank one, still valid: a tiny symmetric jitter of d breaks every tie, can only
 *   lower c (Walsh averages at exactly 0 count on both sides), and makes F_n exact; near 0.05
 *   the two can disagree in either direction. Holm reads p_HL so that its decisions and the
 *   intervals agree by construction.
 *
 * Verdict from the interval: `slower` if the lower bound > 0, `faster` if the upper bound < 0,
 * else `~`.
 */
import type { Verdict } from "../model/result.ts";
import type { IntervalSource } from "./interval-source.ts";
import { normalCdf } from "./normal.ts";
import { walshCount, walshOrderStatistic, walshSample, type WalshSample } from "./walsh.ts";

/** Largest n (nonzero differences) for which the null distribution is enumerated exactly. */
export const EXACT_LIMIT = 100;

export type Method = "exact" | "normal";

function checkSample(d: readonly number[], what: string): void {
  if (!Array.isArray(d)) throw new TypeError(`${what}: expected an array of numbers`);
  for (const x of d) {
    if (typeof x !== "number" || !Number.isFinite(x)) throw new RangeError(`${what}: values must be finite numbers, got ${String(x)}`);
  }
}

function checkLevel(level: number): void {
  if (!(level > 0 && level < 1)) throw new RangeError(`confidence level must be in (0, 1), got ${level}`);
}

/** Counts of each sum of a subset of `ranks` (non-negative integers), by dynamic programming. */
function subsetSumCounts(ranks: readonly number[]): Float64Array {
  const total = ranks.reduce((sum, r) => sum + r, 0);
  const counts = new Float64Array(total + 1);
  counts[0] = 1;
  let reach = 0;
  for (const r of ranks) {
    for (let s = reach; s >= 0; s--) counts[s + r]! += counts[s]!;
    reach += r;
  }
  return counts;
}

/** Cumulative probabilities P(X <= s) from counts over 2^n equally likely sign vectors. */
function cumulative(counts: Float64Array, n: number): Float64Array {
  // Counts beyond 2^53 (n >~ 55) are rounded doubles: relative error ~1e-16, far below any level read.
  const scale = 2 ** -n;
  const cdf = new Float64Array(counts.length);
  let running = 0;
  for (let s = 0; s < counts.length; s++) {
    running += counts[s]!;
    cdf[s] = running * scale;
  }
  return cdf;
}

const untiedCdfCache = new Map<number, Float64Array>();

/** P(W+ <= s), s = 0..n(n+1)/2, for ranks 1..n without ties; cached per n. */
function untiedCdf(n: number): Float64Array {
  let cdf = untiedCdfCache.get(n);
  if (!cdf) {
    cdf = cumulative(subsetSumCounts(Array.from({ length: n }, (_, i) => i + 1)), n);
    untiedCdfCache.set(n, cdf);
  }
  return cdf;
}

/** F_n(j) = P(W+ <= j) for n untied ranks: exact up to EXACT_LIMIT, normal approximation above. */
export function signedRankCdf(n: number, j: number): number {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`signed-rank: n must be a whole number >= 0, got ${n}`);
  const total = (n * (n + 1)) / 2;
  if (j < 0) return 0;
  if (j >= total) return 1;
  if (n <= EXACT_LIMIT) return untiedCdf(n)[Math.floor(j)]!;
  const sd = Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24);
  return normalCdf((Math.floor(j) + 0.5 - total / 2) / sd);
}

export interface SignedRankTest {
  /** Nonzero differences ranked (zeros are dropped). */
  n: number;
  zeros: number;
  /** Sum of the (mid)ranks of |d| over the positive d. */
  wPlus: number;
  /** Some nonzero |d| are tied (midranks, conditional distribution). */
  ties: boolean;
  /** Two-sided p-value; 1 when every d is zero. */
  p: number;
  method: Method;
}

/** Midranks of the nonzero |d|, doubled (integers), and the sizes of the tie groups. */
function doubledMidranks(nonzero: readonly number[]): { doubled: number[]; groups: number[] } {
  const order = nonzero.map((_, i) => i).sort((a, b) => Math.abs(nonzero[a]!) - Math.abs(nonzero[b]!));
  const doubled = new Array<number>(nonzero.length);
  const groups: number[] = [];
  for (let start = 0; start < order.length; ) {
    let end = start;
    while (end + 1 < order.length && Math.abs(nonzero[order[end + 1]!]!) === Math.abs(nonzero[order[start]!]!)) end++;
    // 1-based ranks start+1..end+1 share their mean; doubled, that is (start+1) + (end+1).
    for (let i = start; i <= end; i++) doubled[order[i]!] = start + end + 2;
    groups.push(end - start + 1);
    start = end + 1;
  }
  return { doubled, groups };
}

/** The Wilcoxon signed-rank test of "d is symmetric about 0", two-sided. */
export function signedRankTest(d: readonly number[]): SignedRankTest {
  checkSample(d, "signedRankTest");
  const nonzero = d.filter((x) => x !== 0);
  const n = nonzero.length;
  const zeros = d.length - n;
  if (n === 0) return { n, zeros, wPlus: 0, ties: false, p: 1, method: "exact" };
  const { doubled, groups } = doubledMidranks(nonzero);
  const ties = groups.length < n;
  const w2 = nonzero.reduce((sum, x, i) => (x > 0 ? sum + doubled[i]! : sum), 0);
  const wPlus = w2 / 2;
  const total2 = n * (n + 1);
  if (n <= EXACT_LIMIT) {
    const tail = Math.min(w2, total2 - w2);
    const p = ties ? 2 * cumulative(subsetSumCounts(doubled), n)[tail]! : 2 * untiedCdf(n)[tail / 2]!;
    return { n, zeros, wPlus, ties, p: Math.min(1, p), method: "exact" };
  }
  const mean = (n * (n + 1)) / 4;
  const variance = (n * (n + 1) * (2 * n + 1)) / 24 - groups.reduce((sum, t) => sum + (t ** 3 - t), 0) / 48;
  const z = Math.max(0, Math.abs(wPlus - mean) - 0.5) / Math.sqrt(variance);
  return { n, zeros, wPlus, ties, p: Math.min(1, 2 * normalCdf(-z)), method: "normal" }; // Φ(-z), not 1 - Φ(z): small tails keep their digits
}

/** A sample's Walsh averages (walsh.ts) and its Hodges–Lehmann estimate: what the intervals and p_HL need. */
export interface WalshSummary {
  n: number;
  averages: WalshSample;
  /** Hodges–Lehmann estimate: the median of the Walsh averages. */
  estimate: number;
}

export function walshSummary(d: readonly number[]): WalshSummary {
  checkSample(d, "walshSummary");
  const n = d.length;
  if (n === 0) throw new RangeError("walshSummary: needs at least one value");
  const averages = walshSample(d);
  const m = (n * (n + 1)) / 2;
  const estimate =
    m % 2 === 1
      ? walshOrderStatistic(averages, (m + 1) / 2)
      : (walshOrderStatistic(averages, m / 2) + walshOrderStatistic(averages, m / 2 + 1)) / 2;
  return { n, averages, estimate };
}

/** The order statistic k of the interval at `level` for n values, and its achieved level; k = 0 if none exists. */
export function criticalRank(n: number, level: number): { k: number; achieved: number } {
  checkLevel(level);
  const alpha = 1 - level;
  // Largest j in [-1, M/2] with 2·F_n(j) <= α (F_n is non-decreasing); then k = j + 1.
  let lo = -1;
  let hi = Math.floor((n * (n + 1)) / 4) + 1;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (2 * signedRankCdf(n, mid) <= alpha) lo = mid;
    else hi = mid;
  }
  const k = lo + 1;
  return { k, achieved: k === 0 ? 1 : 1 - 2 * signedRankCdf(n, k - 1) };
}

/** A Hodges–Lehmann interval, in the units of d. Unbounded when n is too small for the level asked. */
export type HLInterval =
  | {
      bounded: true;
      interval: [number, number];
      /** Achieved confidence, >= the level asked (W+ is discrete). */
      level: number;
      /** interval = [A_(k), A_(M+1-k)], 1-based. */
      k: number;
      method: Method;
    }
  | {
      /** n too small: no interval at the asked level excludes anything (at 95%, n <= 5). */
      bounded: false;
      interval: [number, number];
      /** The interval (-∞, +∞) covers always. */
      level: 1;
      k: 0;
      method: Method;
    };

export function hodgesLehmannInterval(summary: WalshSummary, level: number): HLInterval {
  const { k, achieved } = criticalRank(summary.n, level);
  const method: Method = summary.n <= EXACT_LIMIT ? "exact" : "normal";
  if (k === 0) return { bounded: false, interval: [-Infinity, Infinity], level: 1, k: 0, method };
  const m = (summary.n * (summary.n + 1)) / 2;
  const interval: [number, number] = [walshOrderStatistic(summary.averages, k), walshOrderStatistic(summary.averages, m + 1 - k)];
  return { bounded: true, interval, level: achieved, k, method };
}

/** p_HL: the smallest α at which the Hodges–Lehmann interval excludes 0 (see the header). */
export function hodgesLehmannP(summary: WalshSummary): number {
  const m = (summary.n * (summary.n + 1)) / 2;
  const atMostZero = walshCount(summary.averages, 0);
  const atLeastZero = m - walshCount(summary.averages, 0, true);
  return Math.min(1, 2 * signedRankCdf(summary.n, Math.min(atMostZero, atLeastZero)));
}

/** A signed-rank row as Holm reads it. */
export function walshSource(walsh: WalshSummary): IntervalSource {
  return { p: hodgesLehmannP(walsh), at: (level) => hodgesLehmannInterval(walsh, level) };
}

/** The verdict read from an interval (of d or of the ratio: both keep the sign). */
export function verdictOf(interval: readonly [number, number]): Verdict {
  if (interval[0] > 0) return "slower";
  if (interval[1] < 0) return "faster";
  return "~";
}
