/**
 * The standard normal distribution, for the signed-rank test's large-sample approximation.
 *
 * Φ(x) = ½·erfc(-x / √2), with erfc by the Chebyshev fit of Numerical Recipes (2nd ed., §6.2,
 * `erfcc`): fractional error below 1.2e-7 everywhere, ample for p-values and levels read to a
 * few digits.
 */

/** erfc(x), fractional error < 1.2e-7. */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const poly =
    -1.26551223 +
    t *
      (1.00002368 +
        t *
          (0.37409196 +
            t *
              (0.09678418 +
                t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
  const value = t * Math.exp(-z * z + poly);
  return x >= 0 ? value : 2 - value;
}

/** P(Z <= x) for a standard normal Z. */
export function normalCdf(x: number): number {
  if (x === Infinity) return 1;
  if (x === -Infinity) return 0;
  return 0.5 * erfc(-x / Math.SQRT2);
}

/** The x with P(Z <= x) = p, by bisection on normalCdf (to 1e-10: far below its own error). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normalQuantile needs 0 < p < 1 (got ${p})`);
  let lo = -40;
  let hi = 40;
  while (hi - lo > 1e-10) {
    const mid = (lo + hi) / 2;
    if (normalCdf(mid) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}
