/**
 * The two-period crossover analysis of paired log ratios (docs/statistics.md, "Counted rows:
 * the order of the sides"). References: Koch (1972), "The use of non-parametric methods in the
 * statistical analysis of the two-period change-over design", Biometrics 28; Hollander & Wolfe,
 * Nonparametric Statistical Methods, ch. 4 (the two-sample Hodges–Lehmann shift).
 *
 * Model: a round whose process ran head first has d = τ + π + e, one that ran base first
 * d = τ − π + e, with π what going first does to a side (the same in every process) and e the
 * process's own noise, alike in both orders. The signed-rank interval over all d holds ±π; this
 * takes π out. With x_i the d of the head-first rounds (m of them) and z_j the −d of the
 * base-first rounds (n of them): x ~ τ + π + e, z ~ −τ + π − e', so x is z shifted by 2τ when
 * e and −e' share one distribution (noise symmetric, or the orders exchangeable).
 *
 *   D_ij = x_i − z_j (= d_i + d_j over one round of each order), mn of them, sorted.
 *   Estimate: τ̂ = median(D) / 2, the Hodges–Lehmann shift halved.
 *   U = #{D_ij < 0} under τ = 0 is the Mann–Whitney statistic: P(U = u) = N_{m,n}(u) / C(m+n, m),
 *   N by the recursion N_{m,n}(u) = N_{m−1,n}(u − n) + N_{m,n−1}(u) (exact for mn <= EXACT_CELLS;
 *   else normal, mean mn/2, variance mn(m+n+1)/12, continuity-corrected).
 *   Interval at 1 − α: [D_(k), D_(mn+1−k)] / 2, k the largest integer >= 1 with 2·F(k−1) <= α;
 *   its achieved level 1 − 2·F(k−1). No such k (2 / C(m+n, m) > α): unbounded. At 97% that
 *   needs 4 rounds of each order (2/70 = 2.9%); 3 and 3 reach only 90%.
 *   p = min(1, 2·F(c)), c = min(#{D <= 0}, #{D >= 0}): the smallest α whose interval excludes 0.
 */
import { normalCdf } from "./normal.ts";

/** Largest m·n for which the null distribution of U is enumerated exactly. */
export const EXACT_CELLS = 2500;

/** Below this, a difference of log ratios is floating point's rounding, not a change (1e-12 of a ratio). */
const ROUNDING = 1e-12;

/** Rounds of each order the crossover needs before it replaces the signed-rank interval at `level`. */
export function crossoverRounds(level: number): number {
  for (let k = 2; k < 50; k++) if (2 / binomial(2 * k, k) <= 1 - level) return k;
  return 50;
}

function binomial(n: number, k: number): number {
  let c = 1;
  for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i;
  return c;
}

/** Counts N_{m,n}(u), u = 0..mn, of the arrangements with U = u. */
function mannWhitneyCounts(m: number, n: number): Float64Array {
  // rows[j][u] for the current m' and n' = j, built up one m' at a time.
  let rows: Float64Array[] = Array.from({ length: n + 1 }, () => Float64Array.of(1));
  for (let i = 1; i <= m; i++) {
    const next: Float64Array[] = [Float64Array.of(1)];
    for (let j = 1; j <= n; j++) {
      const counts = new Float64Array(i * j + 1);
      const fewerZ = next[j - 1]!; // N_{i, j−1}(u)
      const fewerX = rows[j]!; // N_{i−1, j}(u − j)
      for (let u = 0; u < fewerZ.length; u++) counts[u]! += fewerZ[u]!;
      for (let u = 0; u < fewerX.length; u++) counts[u + j]! += fewerX[u]!;
      next.push(counts);
    }
    rows = next;
  }
  return rows[n]!;
}

/** The exact distributions made so far, by m and n: a run's rows share a few sizes. */
const exactCdfs = new Map<string, (u: number) => number>();

/** F(u) = P(U <= u) under τ = 0. */
function nullCdf(m: number, n: number): (u: number) => number {
  const key = `${m},${n}`;
  let cdf = exactCdfs.get(key);
  if (!cdf) {
    cdf = makeNullCdf(m, n);
    if (m * n <= EXACT_CELLS) exactCdfs.set(key, cdf);
  }
  return cdf;
}

function makeNullCdf(m: number, n: number): (u: number) => number {
  if (m * n <= EXACT_CELLS) {
    const counts = mannWhitneyCounts(m, n);
    const total = counts.reduce((sum, c) => sum + c, 0);
    const cdf = new Float64Array(counts.length);
    let running = 0;
    for (let u = 0; u < counts.length; u++) cdf[u] = running += counts[u]! / total;
    return (u) => (u < 0 ? 0 : u >= cdf.length ? 1 : cdf[Math.floor(u)]!);
  }
  const mean = (m * n) / 2;
  const sd = Math.sqrt((m * n * (m + n + 1)) / 12);
  return (u) => (u < 0 ? 0 : normalCdf((Math.floor(u) + 0.5 - mean) / sd));
}

/** The differences D and what their interval and p are read from. */
export interface CrossoverSummary {
  /** D_ij = x_i − z_j, sorted. */
  differences: Float64Array;
  m: number;
  n: number;
  /** τ̂ = median(D) / 2. */
  estimate: number;
  cdf: (u: number) => number;
}

function median(sorted: Float64Array): number {
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The summary of head-first log ratios `headFirst` and base-first `baseFirst` (each non-empty). */
export function crossoverSummary(headFirst: readonly number[], baseFirst: readonly number[]): CrossoverSummary {
  const m = headFirst.length;
  const n = baseFirst.length;
  if (m === 0 || n === 0) throw new RangeError("a crossover needs rounds of both orders");
  const differences = new Float64Array(m * n);
  let at = 0;
  // x − z with z = −d of a base-first round: x + d. Rounds whose sides only swapped values give
  // ln(a/b) + ln(b/a), which floating point leaves a few ulps off zero: that is zero.
  for (const x of headFirst)
    for (const d of baseFirst) {
      const sum = x + d;
      differences[at++] = Math.abs(sum) < ROUNDING ? 0 : sum;
    }
  differences.sort();
  return { differences, m, n, estimate: median(differences) / 2, cdf: nullCdf(m, n) };
}

/** The interval of τ at `level` (or wider: U is discrete), with the level it reaches. */
export function crossoverInterval(summary: CrossoverSummary, level: number): { interval: [number, number]; level: number } {
  const alpha = 1 - level;
  const { differences: D, cdf } = summary;
  let k = 0;
  while (k + 1 <= D.length / 2 && 2 * cdf(k) <= alpha) k++;
  if (k === 0) return { interval: [-Infinity, Infinity], level: 1 };
  return { interval: [D[k - 1]! / 2, D[D.length - k]! / 2], level: 1 - 2 * cdf(k - 1) };
}

/** The smallest α at which the interval excludes 0. */
export function crossoverP(summary: CrossoverSummary): number {
  const D = summary.differences;
  let atOrBelow = 0;
  let atOrAbove = 0;
  for (const v of D) {
    if (v <= 0) atOrBelow++;
    if (v >= 0) atOrAbove++;
  }
  return Math.min(1, 2 * summary.cdf(Math.min(atOrBelow, atOrAbove)));
}
