/**
 * Sample quantiles, type 7 of Hyndman & Fan (1996): the default of R's `quantile()` and of
 * numpy's `percentile(method="linear")`. For sorted x_1..x_n, h = (n - 1)·p and
 * Q(p) = x_⌊h⌋ + (h - ⌊h⌋)·(x_⌊h⌋+1 - x_⌊h⌋) (0-based indices). The median is Q(0.5), which is
 * the usual median for both odd and even n; Q1 = Q(0.25), Q3 = Q(0.75).
 */
export function quantile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new RangeError("quantile of an empty sample");
  if (!(p >= 0 && p <= 1)) throw new RangeError(`quantile: p must be in [0, 1], got ${p}`);
  const sorted = [...values].sort((a, b) => a - b);
  const h = (sorted.length - 1) * p;
  const below = Math.floor(h);
  const lower = sorted[below]!;
  const upper = sorted[Math.min(below + 1, sorted.length - 1)]!;
  // No interpolation where none is needed: it would turn infinite values (unbounded half-widths) into NaN.
  if (h === below || lower === upper) return lower;
  return lower + (h - below) * (upper - lower);
}

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** A median with its quartiles (type 7). */
export interface Spread {
  median: number;
  q1: number;
  q3: number;
}

export function spread(values: readonly number[]): Spread {
  return { median: quantile(values, 0.5), q1: quantile(values, 0.25), q3: quantile(values, 0.75) };
}
