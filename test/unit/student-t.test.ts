import { describe, expect, test } from "bun:test";
import { regularizedBeta, studentT975, studentTCdf, studentTQuantile } from "../../src/stats/student-t.ts";
import { studentT975 as fromPaired } from "../../src/stats/paired.ts";

/**
 * Independent reference: P(|T| < t) by the finite series of Abramowitz & Stegun 26.7.3 (odd ν)
 * and 26.7.4 (even ν), which shares no code or method with the incomplete-beta implementation,
 * inverted by plain bisection.
 */
function twoSidedSeries(t: number, nu: number): number {
  const theta = Math.atan(t / Math.sqrt(nu));
  const s = Math.sin(theta);
  const c2 = Math.cos(theta) ** 2;
  if (nu % 2 === 0) {
    let term = 1;
    let sum = 1;
    for (let k = 2; k <= nu - 2; k += 2) {
      term *= ((k - 1) / k) * c2;
      sum += term;
    }
    return s * sum;
  }
  if (nu === 1) return (2 * theta) / Math.PI;
  let term = Math.cos(theta);
  let sum = term;
  for (let k = 3; k <= nu - 2; k += 2) {
    term *= ((k - 1) / k) * c2;
    sum += term;
  }
  return (2 / Math.PI) * (theta + s * sum);
}

function referenceT975(nu: number): number {
  let lo = 0;
  let hi = 100;
  for (let i = 0; i < 80; i++) {
    const mid = (lo + hi) / 2;
    if (twoSidedSeries(mid, nu) < 0.95) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

describe("studentT975", () => {
  test("matches printed tables", () => {
    const printed: Array<[number, number]> = [
      [1, 12.7062],
      [2, 4.3027],
      [3, 3.1824],
      [5, 2.5706],
      [10, 2.2281],
      [30, 2.0423],
      [39, 2.0227],
      [100, 1.984],
      [1000, 1.9623],
    ];
    for (const [df, t] of printed) expect([df, Number(studentT975(df).toFixed(4))]).toEqual([df, t]);
  });

  test("closed forms for df 1 and 2", () => {
    expect(studentT975(1)).toBeCloseTo(Math.tan(Math.PI * 0.475), 10);
    expect(studentT975(2)).toBeCloseTo(0.95 / Math.sqrt(2 * 0.975 * 0.025), 10);
  });

  test("agrees with the A&S series to 4 decimals for every df from 1 to 1000", () => {
    let worst = 0;
    for (let df = 1; df <= 1000; df++) {
      const diff = Math.abs(studentT975(df) - referenceT975(df));
      worst = Math.max(worst, diff);
      if (diff >= 5e-5) throw new Error(`df ${df}: ${studentT975(df)} vs ${referenceT975(df)}`);
    }
    expect(worst).toBeLessThan(1e-8);
  });

  test("is decreasing in df and tends to the normal 1.959964", () => {
    for (let df = 2; df <= 1000; df++) expect(studentT975(df)).toBeLessThan(studentT975(df - 1));
    expect(studentT975(1e7)).toBeCloseTo(1.959964, 5);
  });

  test("paired.ts re-exports it", () => expect(fromPaired).toBe(studentT975));
});

describe("Student t distribution", () => {
  test("the CDF inverts the quantile and is symmetric", () => {
    for (const df of [1, 2, 7, 40, 300]) {
      for (const p of [0.001, 0.025, 0.2, 0.5, 0.8, 0.975, 0.9995]) {
        expect(studentTCdf(studentTQuantile(p, df), df)).toBeCloseTo(p, 12);
      }
      expect(studentTQuantile(0.1, df)).toBeCloseTo(-studentTQuantile(0.9, df), 12);
    }
  });

  test("the CDF matches the A&S series", () => {
    for (const df of [1, 2, 3, 9, 10, 55]) {
      for (const t of [0.1, 1, 2.5, 7]) expect(2 * studentTCdf(t, df) - 1).toBeCloseTo(twoSidedSeries(t, df), 12);
    }
  });

  test("regularized beta: I_x(1, 1) = x and I_x(a, 1) = x^a", () => {
    expect(regularizedBeta(0.3, 1, 1)).toBeCloseTo(0.3, 14);
    expect(regularizedBeta(0.7, 3, 1)).toBeCloseTo(0.343, 14);
  });

  test("rejects impossible arguments", () => {
    expect(() => studentT975(0)).toThrow(RangeError);
    expect(() => studentT975(Number.NaN)).toThrow(RangeError);
    expect(() => studentTQuantile(1, 3)).toThrow(RangeError);
  });
});
