const average = (s: Float64Array, i: number, j: number) => (s[i]! + s[j]!) / 2;

/**
 * The Walsh averages A_ij = (d_i + d_j) / 2, i <= j, of a sample, without building all
 * M = n(n+1)/2 of them: counts below a value, and order statistics by selection in the implicitly
 * sorted matrix (Johnson & Mizoguchi 1978; Monahan 1984, ACM Algorithm 616, which does this for
 * the Hodges–Lehmann estimator). O(n) memory, so any number of rounds fits.
 *
 * With d sorted ascending, row i (columns j = i..n-1) ascends in j, and the column where a row
 * crosses a value moves left as i grows (A_ij grows with d_i), so one sweep counts in O(n).
 * Selection keeps, per row, the columns that may still hold the k-th value and splits them at the
 * weighted median of the rows' middle candidates: at least a quarter of the candidates go each
 * round, so O(log M) rounds of O(n log n). Exact: every comparison uses the same floating-point
 * value of A_ij, and IEEE addition is monotone, so the sweeps see the same order as a full sort.
 *
 * Up to MATERIALIZE_LIMIT values all M averages are kept in order instead (merged from the rows,
 * which are already sorted: M·log2(n) moves), which is 2-5x faster for the usual round counts.
 */

/** Largest n whose M = n(n+1)/2 averages are kept in an array (20,100 numbers, 160 KB). */
export const MATERIALIZE_LIMIT = 200;

export interface WalshSample {
  n: number;
  /** The sample, ascending. */
  sorted: Float64Array;
  /** All n(n+1)/2 averages ascending, when n <= MATERIALIZE_LIMIT. */
  all?: Float64Array;
}

export function walshSample(d: readonly number[], materializeLimit = MATERIALIZE_LIMIT): WalshSample {
  const sorted = Float64Array.from(d).sort();
  return d.length <= materializeLimit ? { n: d.length, sorted, all: mergedRows(sorted) } : { n: d.length, sorted };
}

/** Every average ascending: the rows of sorted d are ascending, so they are merged pairwise. */
function mergedRows(sorted: Float64Array): Float64Array {
  const n = sorted.length;
  let walsh = new Float64Array((n * (n + 1)) / 2);
  const runStarts: number[] = [];
  let w = 0;
  for (let i = 0; i < n; i++) {
    runStarts.push(w);
    for (let j = i; j < n; j++) walsh[w++] = average(sorted, i, j);
  }
  let buffer = new Float64Array(walsh.length);
  let starts = runStarts;
  while (starts.length > 1) {
    const merged: number[] = [];
    for (let r = 0; r < starts.length; r += 2) {
      const lo = starts[r]!;
      const mid = r + 1 < starts.length ? starts[r + 1]! : walsh.length;
      const hi = r + 2 < starts.length ? starts[r + 2]! : walsh.length;
      let a = lo;
      let b = mid;
      let out = lo;
      while (a < mid && b < hi) buffer[out++] = walsh[a]! <= walsh[b]! ? walsh[a++]! : walsh[b++]!;
      while (a < mid) buffer[out++] = walsh[a++]!;
      while (b < hi) buffer[out++] = walsh[b++]!;
      merged.push(lo);
    }
    [walsh, buffer] = [buffer, walsh];
    starts = merged;
  }
  return walsh;
}

/** Index of the first element of a sorted array that is not before x (before: < x when `strict`, else <= x). */
function firstNotBefore(sorted: Float64Array, x: number, strict: boolean): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (strict ? sorted[mid]! < x : sorted[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * For each row i, the first column (>= i) whose average is not before x, where "before" is < x
 * (`strict`) or <= x; and how many averages are before x in all.
 */
function cutAt(w: WalshSample, x: number, strict: boolean): { cut: Int32Array; before: number } {
  const { n, sorted } = w;
  const cut = new Int32Array(n);
  let before = 0;
  let j = n;
  for (let i = 0; i < n; i++) {
    if (j < i) j = i;
    while (j > i && (strict ? !(average(sorted, i, j - 1) < x) : !(average(sorted, i, j - 1) <= x))) j--;
    cut[i] = j;
    before += j - i;
  }
  return { cut, before };
}

/** #{A_ij <= x} (or < x when `strict`). */
export function walshCount(w: WalshSample, x: number, strict = false): number {
  return w.all ? firstNotBefore(w.all, x, strict) : cutAt(w, x, strict).before;
}

/** The k-th smallest Walsh average, 1 <= k <= n(n+1)/2. */
export function walshOrderStatistic(w: WalshSample, k: number): number {
  const { n, sorted } = w;
  const m = (n * (n + 1)) / 2;
  if (!Number.isInteger(k) || k < 1 || k > m)
    throw new RangeError(`Walsh order statistic: k must be a whole number in [1, ${m}], got ${k}`);
  if (w.all) return w.all[k - 1]!;
  // Candidates of row i: columns lo[i] .. hi[i] - 1.
  const lo = Int32Array.from({ length: n }, (_, i) => i);
  const hi = new Int32Array(n).fill(n);
  const rows = Array.from({ length: n }, (_, i) => i);
  for (;;) {
    // The pivot: the weighted median of each row's middle candidate, weighted by its candidates.
    const live = rows.filter((i) => hi[i]! > lo[i]!);
    const middle = (i: number) => average(sorted, i, lo[i]! + ((hi[i]! - lo[i]! - 1) >> 1));
    live.sort((a, b) => middle(a) - middle(b));
    const total = live.reduce((sum, i) => sum + hi[i]! - lo[i]!, 0);
    let seen = 0;
    let pivot = middle(live[live.length - 1]!);
    for (const i of live) {
      seen += hi[i]! - lo[i]!;
      if (2 * seen >= total) {
        pivot = middle(i);
        break;
      }
    }
    const less = cutAt(w, pivot, true);
    if (k <= less.before) {
      for (let i = 0; i < n; i++) hi[i] = Math.min(hi[i]!, less.cut[i]!);
      continue;
    }
    const atMost = cutAt(w, pivot, false);
    if (k <= atMost.before) return pivot;
    for (let i = 0; i < n; i++) lo[i] = Math.max(lo[i]!, atMost.cut[i]!);
  }
}
